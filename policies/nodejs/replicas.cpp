// The Node.js driver's token-to-replicas map and spec helpers; see policies/nodejs/replicas.hpp.
#include "policies/nodejs/replicas.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "policies/plan_util.hpp"

namespace lbsim::policy::nodejs {
namespace {

// One ring walk of getTokenToReplicaNetworkMapper (cassandra-driver 4.10.0 schema-parser.js) from
// ring position `start`, appending to `out`.
class NtsWalk {
 public:
  NtsWalk(const Topology& topo, const Replication& repl, std::span<const HostId> owners)
      : topo_(topo), owners_(owners) {
    const std::size_t dcs = topo.dcs.size();
    rf_.assign(dcs, 0);
    for (std::uint32_t d = 0; d < dcs; ++d) {
      const int rf = repl.rf_for_dc(topo.dcs[d]);
      // `parseInt(rf)` falsy (0) skips the DC; else min(rf, hosts of the DC with tokens).
      rf_[d] = rf <= 0 ? 0 : std::min<int>(rf, static_cast<int>(topo.dc_node_count[d]));
    }
    // isDoneForToken iterates the replication's DCs, skipping those absent from the topology.
    for (const auto& [name, rf] : repl.dc_rf)
      if (const auto d = topo.dc_index(name); d && std::min<int>(rf, static_cast<int>(topo.dc_node_count[*d])) > 0)
        done_check_.push_back({*d, std::min<int>(rf, static_cast<int>(topo.dc_node_count[*d]))});
    by_dc_.assign(dcs, 0);
    racks_placed_.assign(dcs, 0);
    rack_placed_.assign(topo.racks.size(), 0);
  }

  void run(std::size_t start, std::vector<HostId>& out) {
    std::fill(by_dc_.begin(), by_dc_.end(), 0);
    std::fill(racks_placed_.begin(), racks_placed_.end(), 0u);
    std::fill(rack_placed_.begin(), rack_placed_.end(), std::uint8_t{0});
    skipped_.clear();
    const std::size_t first = out.size();
    const std::size_t n = owners_.size();
    for (std::size_t j = 0; j < n; ++j) {
      const HostId h = owners_[(start + j) % n];
      if (std::find(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), h) != out.end()) continue;
      const std::uint32_t d = topo_.node_dc[h];
      const int rf = rf_[d];
      if (rf == 0) continue;
      int have = by_dc_[d];
      if (have >= rf) continue;
      const std::uint32_t rack = topo_.node_rack[h];
      if (rack_placed_[rack] && racks_placed_[d] < topo_.dc_rack_count[d]) {
        // A rack already has a replica: defer the host, into the list shared by every DC.
        if (skipped_.size() < static_cast<std::size_t>(rf - have)) skipped_.push_back(h);
        continue;
      }
      by_dc_[d] = ++have;
      out.push_back(h);
      if (!rack_placed_[rack]) {
        rack_placed_[rack] = 1;
        if (++racks_placed_[d] == topo_.dc_rack_count[d]) {
          // The DC's last rack: append the head of the shared list, credited to this DC.
          int added = 0;
          for (; added < rf - have && static_cast<std::size_t>(added) < skipped_.size(); ++added)
            out.push_back(skipped_[static_cast<std::size_t>(added)]);
          by_dc_[d] += added;
        }
      }
      if (done()) break;
    }
  }

 private:
  bool done() const {
    for (const auto& [d, rf] : done_check_)
      if (by_dc_[d] < rf) return false;
    return true;
  }
  const Topology& topo_;
  std::span<const HostId> owners_;
  std::vector<int> rf_;
  std::vector<std::pair<std::uint32_t, int>> done_check_;
  std::vector<int> by_dc_;
  std::vector<std::uint32_t> racks_placed_;
  std::vector<std::uint8_t> rack_placed_;
  std::vector<HostId> skipped_;
};

}  // namespace

ReplicaMap::ReplicaMap(const Topology& topo, const Replication& repl) {
  std::vector<std::pair<Token, HostId>> ring;
  for (HostId h = 0; h < topo.size(); ++h)
    for (Token t : topo.nodes[h].tokens) ring.emplace_back(t, h);
  std::sort(ring.begin(), ring.end());
  std::vector<HostId> owners;
  for (const auto& [t, h] : ring) {
    tokens_.push_back(t);
    owners.push_back(h);
  }
  const std::size_t n = ring.size();
  offsets_.push_back(0);
  if (repl.kind == StrategyKind::NetworkTopology) {
    NtsWalk walk(topo, repl, owners);
    for (std::size_t i = 0; i < n; ++i) {
      walk.run(i, flat_);
      offsets_.push_back(static_cast<std::uint32_t>(flat_.size()));
    }
    return;
  }
  // getTokenToReplicaSimpleMapper for rf > 1; the "noStrategy" primary-only map otherwise.
  const std::size_t rf = repl.simple_rf > 1 ? std::min(static_cast<std::size_t>(repl.simple_rf), n) : 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t first = flat_.size();
    flat_.push_back(owners[i]);
    for (std::size_t j = 1; j < n && flat_.size() - first < rf; ++j) {
      const HostId h = owners[(i + j) % n];
      if (std::find(flat_.begin() + static_cast<std::ptrdiff_t>(first), flat_.end(), h) == flat_.end()) flat_.push_back(h);
    }
    offsets_.push_back(static_cast<std::uint32_t>(flat_.size()));
  }
}

std::span<const HostId> ReplicaMap::replicas(Token t) const {
  if (tokens_.empty()) return {};
  std::size_t i = static_cast<std::size_t>(std::lower_bound(tokens_.begin(), tokens_.end(), t) - tokens_.begin());
  if (i == tokens_.size()) i = 0;
  return replicas_at(i);
}

ReplicaSource replica_source_param(const jsonin::Object& o, const BuildContext& ctx) {
  enum class Kind { Correct, NodeJs };
  const Kind k = o.choice<Kind>("replica_source", {{"correct", Kind::Correct}, {"nodejs-4.10", Kind::NodeJs}}, Kind::Correct);
  ReplicaSource src;
  if (k == Kind::Correct) return src;
  if (ctx.replication == nullptr)
    jsonin::fail(o.path_of("replica_source"),
                 "\"nodejs-4.10\" computes the driver's replica map from the keyspace's replication, which is not "
                 "known here (no cluster); use \"correct\"");
  src.nodejs = *ctx.replication;
  return src;
}

std::optional<std::vector<std::string>> node_list_param(const jsonin::Object& o, std::string_view key,
                                                        const BuildContext& ctx) {
  const jsonin::Json* v = o.find(key);
  if (v == nullptr) return std::nullopt;
  const std::string path = o.path_of(key);
  const jsonin::Json& arr = jsonin::as_array(*v, path, true);
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string ip = jsonin::index_path(path, i);
    std::string id = jsonin::as_string(arr[i], ip);
    if (ctx.topology != nullptr && !ctx.topology->node_index(id)) {
      std::vector<std::string> valid;
      for (const auto& n : ctx.topology->nodes) valid.push_back(n.id);
      if (valid.size() > 12) {
        valid.resize(12);
        valid.push_back("...");
      }
      jsonin::fail(ip, fmt::format("unknown node '{}'; valid: {}", id, jsonin::join(valid)));
    }
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) jsonin::fail(ip, fmt::format("node '{}' listed twice", id));
    ids.push_back(std::move(id));
  }
  return ids;
}

std::vector<std::uint8_t> node_mask(const Topology& topo, const std::vector<std::string>& ids) {
  std::vector<std::uint8_t> mask(topo.size(), 0);
  for (const auto& id : ids)
    if (const auto h = topo.node_index(id)) mask[*h] = 1;
  return mask;
}

}  // namespace lbsim::policy::nodejs
