// Basic4x: see basic_4x.hpp for the semantics and their sources.
#include "policies/java4/basic_4x.hpp"

#include <algorithm>

#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

// The replica block (fixed), then the other local nodes rotated, then the lazily computed
// DC-failover nodes. The rotated tail is not copied: its t-th host is the t-th host of the local
// snapshot that is not a replica, found from the replicas' sorted positions in O(RF). Copying the
// whole local DC made every plan O(DC size) (5.1 us per operation at 3,000 nodes, issue 14).
class Plan4x final : public Plan {
 public:
  Plan4x(std::span<const HostId> block, std::span<const HostId> local, std::span<const std::uint32_t> marked,
         std::size_t amount, const Basic4x* failover, PlanRandom* rnd, PlanArena* arena)
      : block_(block), local_(local), marked_(marked), tail_(local.size() - marked.size()), amount_(amount),
        failover_(failover), rnd_(rnd), arena_(arena) {}
  HostId next() override {
    if (pos_ < block_.size()) return block_[pos_++];
    if (pos_ < block_.size() + tail_) {
      std::size_t j = (pos_++ - block_.size() + amount_) % tail_;
      for (std::uint32_t m : marked_) j += m <= j ? 1 : 0;  // skip the replicas at or before it
      return local_[j];
    }
    if (failover_ != nullptr) {
      remote_ = failover_->failover_nodes(*rnd_, *arena_);
      failover_ = nullptr;
    }
    return remote_pos_ < remote_.size() ? remote_[remote_pos_++] : kNoHost;
  }

 private:
  std::span<const HostId> block_, local_;
  std::span<const std::uint32_t> marked_;
  std::size_t tail_, amount_;
  std::size_t pos_ = 0;
  const Basic4x* failover_;
  PlanRandom* rnd_;
  PlanArena* arena_;
  std::span<const HostId> remote_;
  std::size_t remote_pos_ = 0;
};

}  // namespace

void Basic4x::init(const ClusterView& view, Rng&) {
  view_ = &view;
  const Topology& t = view.topology();
  agnostic_ = !o_.local_dc && !o_.infer_local_dc;
  local_dc_ = agnostic_ ? kNoDc : resolve_dc(t, o_.local_dc);
  live_.assign(agnostic_ ? 1 : std::max<std::size_t>(t.dcs.size(), 1), CowList());
  dist_.assign(view.size(), Distance::Ignored);
  mark_.assign(view.size(), 0);
  stamp_ = 0;
  in_local_rack_.assign(view.size(), 0);
  if (o_.local_rack)
    for (HostId h = 0; h < view.size(); ++h)
      in_local_rack_[h] = t.racks[t.node_rack[h]] == *o_.local_rack && (agnostic_ || t.node_dc[h] == local_dc_) ? 1 : 0;
  for (HostId h = 0; h < view.size(); ++h) {
    dist_[h] = compute_distance(h);
    if (dist_[h] != Distance::Ignored && view.is_up(h)) live_set(t.node_dc[h]).add_if_absent(h);
  }
}

Distance Basic4x::compute_distance(HostId h) const {
  const std::uint32_t dc = view_->dc(h);
  if (agnostic_ || dc == local_dc_) return Distance::Local;
  if (o_.max_nodes_per_remote_dc > 0) {
    const auto remote = live_[dc].peek();
    for (std::size_t i = 0; i < static_cast<std::size_t>(o_.max_nodes_per_remote_dc); ++i) {
      if (i == remote.size() || remote[i] == h) return Distance::Remote;
    }
  }
  return Distance::Ignored;
}

void Basic4x::on_up(HostId h) {
  dist_[h] = compute_distance(h);
  if (dist_[h] != Distance::Ignored) live_set(view_->dc(h)).add_if_absent(h);
}

void Basic4x::on_down(HostId h) { live_set(view_->dc(h)).remove(h); }

const CowList* Basic4x::local_set() const {
  if (agnostic_) return &live_[0];
  return local_dc_ < live_.size() ? &live_[local_dc_] : nullptr;
}

Plan* Basic4x::new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) {
  const CowList* set = local_set();
  const std::span<const HostId> local = set ? set->snapshot() : std::span<const HostId>{};
  if (!req.routed || req.replicas.empty()) return finish_plan(local, {}, {}, req, rnd, arena);
  // The replicas in the local set, in live-set order: their positions, sorted (a stable partition
  // of the snapshot, as the driver's bubbling, without touching the other nodes).
  if (++stamp_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  const auto pos = arena.hosts(req.replicas.size());
  std::size_t rc = 0;
  for (HostId r : req.replicas) {
    if (mark_[r] == stamp_) continue;  // a repeated replica counts once
    mark_[r] = stamp_;
    const std::uint32_t at = set ? set->position(r) : CowList::kAbsent;
    if (at != CowList::kAbsent) pos[rc++] = at;
  }
  std::sort(pos.begin(), pos.begin() + static_cast<std::ptrdiff_t>(rc));
  const std::span<const std::uint32_t> marked(pos.data(), rc);
  const auto block = arena.hosts(std::max<std::size_t>(rc, 1)).first(rc);
  for (std::size_t i = 0; i < rc; ++i) block[i] = local[pos[i]];
  if (req.lwt) {
    // LWT (Scylla 4.x): the local replicas in replica order, unshuffled, no local rack, no
    // slow-replica reordering.
    std::size_t j = 0;
    for (HostId r : req.replicas)
      if ((agnostic_ || view_->dc(r) == local_dc_) && view_->is_up(r) && dist_[r] != Distance::Ignored && j < rc)
        block[j++] = r;
    return finish_plan(local, block.first(j), marked, req, rnd, arena);
  }
  // Scylla 4.x local rack: a stable partition of the replica block, local-rack replicas first.
  std::size_t lr = 0;
  if (o_.local_rack) {
    std::stable_partition(block.begin(), block.end(), [&](HostId h) { return in_local_rack_[h] != 0; });
    while (lr < rc && in_local_rack_[block[lr]]) ++lr;
  }
  if (lr > 0) {
    shuffle_head(block.first(lr), rnd);
    shuffle_head(block.subspan(lr, rc - lr), rnd);  // ArrayUtils.shuffleInRange(lr, rc - 1)
  } else if (rc > 1) {
    shuffle_head(block, rnd);
  }
  if (rc > 1) reorder_replicas(block, req, rnd);
  return finish_plan(local, block, marked, req, rnd, arena);
}

Plan* Basic4x::finish_plan(std::span<const HostId> local, std::span<HostId> block, std::span<const std::uint32_t> marked,
                           const Request& req, PlanRandom& rnd, PlanArena& arena) {
  const std::int32_t amount = round_robin_;
  round_robin_ = amount == 0x7fffffff ? 0 : amount + 1;
  const std::size_t tail = local.size() - marked.size();
  const std::size_t shift = tail >= 2 ? static_cast<std::size_t>(amount) % tail : 0;
  const bool failover = o_.max_nodes_per_remote_dc > 0 && !agnostic_ &&
                        (o_.allow_for_local_consistency_levels || !is_dc_local(req.cl));
  return arena.make<Plan4x>(block, local, marked, shift, failover ? this : nullptr, &rnd, &arena);
}

std::span<const HostId> Basic4x::failover_nodes(PlanRandom& rnd, PlanArena& arena) const {
  std::size_t total = 0;
  const auto per_dc = static_cast<std::size_t>(o_.max_nodes_per_remote_dc);
  for (std::uint32_t dc = 0; dc < live_.size(); ++dc)
    if (dc != local_dc_) total += std::min(per_dc, live_[dc].size());
  if (total == 0) return {};
  const auto out = arena.hosts(total);
  std::size_t k = 0;
  for (std::uint32_t dc = 0; dc < live_.size(); ++dc)
    if (dc != local_dc_) {
      const auto live = live_[dc].peek();  // copied at once
      for (std::size_t i = 0; i < per_dc && i < live.size(); ++i) out[k++] = live[i];
    }
  shuffle_head(out, rnd);
  return out;
}

namespace {

std::unique_ptr<Policy> make_basic_4x(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path,
                   {"type", "local_dc", "max_nodes_per_remote_dc", "allow_for_local_consistency_levels", "shuffle_replicas",
                    "local_rack"});
  Basic4xOptions opts;
  opts.local_dc = dc_param(o, "local_dc", ctx);
  opts.local_rack = rack_param(o, "local_rack", opts.local_dc, ctx);
  opts.max_nodes_per_remote_dc = static_cast<int>(o.integer("max_nodes_per_remote_dc", 0, 1000000, 0));
  opts.allow_for_local_consistency_levels = o.boolean("allow_for_local_consistency_levels", false);
  opts.shuffle_replicas = o.boolean("shuffle_replicas", true);
  return std::make_unique<Basic4x>(opts);
}

}  // namespace

LBSIM_REGISTER_POLICY(Basic4x, Driver::Java4,
                      "Java 4.x BasicLoadBalancingPolicy: local replicas first, shuffled (ThreadLocalRandom), then the "
                      "other local nodes rotated one step per plan; optional DC failover (max_nodes_per_remote_dc)",
                      (std::vector<ParamInfo>{
                          {"local_dc", "a datacenter of the topology", "the DC of the first host (the contact point)"},
                          {"max_nodes_per_remote_dc", "0..1000000", "0"},
                          {"allow_for_local_consistency_levels", "true | false", "false"},
                          {"shuffle_replicas", "true | false", "true"},
                          {"local_rack", "a rack of local_dc (Scylla 4.x)", "none"}}),
                      make_basic_4x)

}  // namespace lbsim::policy
