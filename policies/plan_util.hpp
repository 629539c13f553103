// Small building blocks shared by the policies: fixed plans, Java integer arithmetic, the
// driver's shuffles, copy-on-write live-host lists, and spec-parsing helpers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "policies/policy.hpp"
#include "policies/registry.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim::policy {

// A plan over a host list fixed when the plan was made.
class FixedPlan final : public Plan {
 public:
  explicit FixedPlan(std::span<const HostId> hosts) : hosts_(hosts.data()), size_(hosts.size()) {}
  HostId next() override { return pos_ < size_ ? hosts_[pos_++] : kNoHost; }

 private:
  const HostId* hosts_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

inline Plan* empty_plan(PlanArena& arena) { return arena.make<FixedPlan>(std::span<const HostId>{}); }

// Java's `int` counter (AtomicInteger.getAndIncrement wraps from MAX_VALUE to MIN_VALUE) and
// `idx % size` with the sign fix-up the 3.x round-robin policies apply.
inline std::uint32_t java_index(std::int32_t idx, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  std::int64_t c = static_cast<std::int64_t>(idx) % n;
  if (c < 0) c += n;
  return static_cast<std::uint32_t>(c);
}
inline std::int32_t as_java_int(std::uint32_t bits) { return static_cast<std::int32_t>(bits); }

// Collections.shuffle on a RandomAccess list (for i = size down to 2: swap(i-1, nextInt(i))),
// which is also 4.x ArrayUtils.shuffleHead (for i = n-1 down to 1: swap(i, nextInt(i+1))).
// size-1 draws of generator `model`.
inline void java_shuffle(std::span<HostId> list, PlanRandom& rnd, RngModel model) {
  for (std::size_t i = list.size(); i > 1; --i) {
    const std::uint32_t j = rnd.below(static_cast<std::uint32_t>(i), model);
    std::swap(list[i - 1], list[j]);
  }
}

inline bool contains(std::span<const HostId> hosts, HostId h) {
  return std::find(hosts.begin(), hosts.end(), h) != hosts.end();
}

// A CopyOnWriteArrayList<Host> as the 3.x policies use it: addIfAbsent appends, remove keeps the
// order of the others, and a snapshot taken by a plan never changes afterwards. Versions that a
// snapshot may reference are kept (versions are made only by up/down events, which are rare), so
// a snapshot is a plain span and taking one costs nothing. A version no snapshot has seen is
// changed in place: a policy's init adds every host without a version per host (which cost
// O(nodes^2) memory: 392 MB at 10,000 nodes, issue 14).
class CowList {
 public:
  static constexpr std::uint32_t kAbsent = 0xffffffffu;
  CowList() { versions_.emplace_back(); }
  std::span<const HostId> snapshot() const {
    seen_ = true;
    return versions_.back();
  }
  std::size_t size() const { return versions_.back().size(); }
  // The current version for a look that ends before the list next changes (no snapshot: the
  // next change may then happen in place).
  std::span<const HostId> peek() const { return versions_.back(); }
  // Position of h in the current version, or kAbsent. O(1).
  std::uint32_t position(HostId h) const { return h < pos_.size() ? pos_[h] : kAbsent; }
  // Whether a snapshot is still the current version (then position() answers for it, absent hosts
  // included). A version a snapshot has seen is never changed again, so the same storage is the
  // same contents.
  bool is_current(std::span<const HostId> s) const {
    return s.data() == versions_.back().data() && s.size() == versions_.back().size();
  }
  bool add_if_absent(HostId h) {
    if (position(h) != kAbsent) return false;
    std::vector<HostId>& next = writable();
    next.push_back(h);
    if (h >= pos_.size()) pos_.resize(static_cast<std::size_t>(h) + 1, kAbsent);
    pos_[h] = static_cast<std::uint32_t>(next.size() - 1);
    return true;
  }
  bool remove(HostId h) {
    const std::uint32_t at = position(h);
    if (at == kAbsent) return false;
    std::vector<HostId>& next = writable();
    next.erase(next.begin() + at);
    pos_[h] = kAbsent;
    for (std::size_t i = at; i < next.size(); ++i) pos_[next[i]] = static_cast<std::uint32_t>(i);
    return true;
  }
  std::size_t versions() const { return versions_.size(); }

 private:
  // The current version if no snapshot has seen it, else a fresh copy of it.
  std::vector<HostId>& writable() {
    if (seen_) {
      std::vector<HostId> copy = versions_.back();
      versions_.push_back(std::move(copy));
      seen_ = false;
    }
    return versions_.back();
  }
  std::deque<std::vector<HostId>> versions_;
  std::vector<std::uint32_t> pos_;  // host -> position in the current version
  mutable bool seen_ = false;       // a snapshot of the current version was taken
};

// The leading positions of a round-robin plan: segment s yields list[(start + p) mod size] at
// its step p, segments one after the other (see Plan::rotation). `index` gives positions in O(1)
// when the list is its current version.
struct RotationView {
  struct Segment {
    std::span<const HostId> list;
    const CowList* index = nullptr;
    std::uint64_t start = 0;  // floorMod of the first step's counter, in [0, size)
  };
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  Segment seg[2];
  std::size_t count = 0;
  // Set by a plan between the wrapper and the round-robin plan that defers some hosts to its end
  // (Plan::deferred, pass, passed_deferred); at most one such plan (a second one is walked).
  bool deferring = false;

  std::size_t length() const { return count == 0 ? 0 : seg[0].list.size() + (count > 1 ? seg[1].list.size() : 0); }
  HostId at(std::size_t p) const {
    std::size_t s = 0;
    if (p >= seg[0].list.size()) {
      p -= seg[0].list.size();
      s = 1;
    }
    const auto& g = seg[s];
    return g.list[(g.start + p) % g.list.size()];
  }
  // The position of h, or kNone.
  std::size_t position(HostId h) const {
    std::size_t base = 0;
    for (std::size_t s = 0; s < count; ++s) {
      const auto& g = seg[s];
      const std::size_t m = g.list.size();
      if (m > 0) {
        std::size_t j = CowList::kAbsent;
        if (g.index != nullptr && g.index->is_current(g.list)) {
          j = g.index->position(h);  // O(1), also when h is not in this segment
        } else {  // an older version of the list (a node went up or down since): look it up
          const auto it = std::find(g.list.begin(), g.list.end(), h);
          if (it != g.list.end()) j = static_cast<std::size_t>(it - g.list.begin());
        }
        if (j != CowList::kAbsent) return base + (j + m - g.start) % m;
      }
      base += m;
    }
    return kNone;
  }
};

// Spec helpers. `dc_param` reads an optional DC name and, when the topology is known, checks that
// it exists (the error lists the DCs).
std::optional<std::string> dc_param(const jsonin::Object& o, std::string_view key, const BuildContext& ctx);
std::optional<std::string> rack_param(const jsonin::Object& o, std::string_view key, const std::optional<std::string>& dc,
                                      const BuildContext& ctx);
// "contact_points" (the client's Cluster contact points): node ids, distinct, checked against the
// topology when it is known; empty when absent.
std::vector<std::string> contact_points_param(const jsonin::Object& o, const BuildContext& ctx);
// A duration in milliseconds (> 0 unless `allow_zero`), returned in nanoseconds.
SimTime ms_param(const jsonin::Object& o, std::string_view key, double dflt_ms, bool allow_zero);
// The DC index of `name` in `topo`, or the DC of node 0 when `name` is empty (the driver's
// "first contact point" inference); kNoDc when the DC does not exist.
inline constexpr std::uint32_t kNoDc = 0xffffffffu;
std::uint32_t resolve_dc(const Topology& topo, const std::optional<std::string>& name);

}  // namespace lbsim::policy
