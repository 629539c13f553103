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
// order of the others, and a snapshot taken by a plan never changes afterwards. Every version is
// kept (versions are made only by up/down events, which are rare), so a snapshot is a plain span
// and taking one costs nothing.
class CowList {
 public:
  CowList() { versions_.emplace_back(); }
  std::span<const HostId> snapshot() const { return versions_.back(); }
  std::size_t size() const { return versions_.back().size(); }
  bool add_if_absent(HostId h) {
    if (contains(snapshot(), h)) return false;
    std::vector<HostId> next = versions_.back();
    next.push_back(h);
    versions_.push_back(std::move(next));
    return true;
  }
  bool remove(HostId h) {
    const auto cur = snapshot();
    if (!contains(cur, h)) return false;
    std::vector<HostId> next;
    next.reserve(cur.size());
    for (HostId x : cur)
      if (x != h) next.push_back(x);
    versions_.push_back(std::move(next));
    return true;
  }

 private:
  std::deque<std::vector<HostId>> versions_;
};

// Spec helpers. `dc_param` reads an optional DC name and, when the topology is known, checks that
// it exists (the error lists the DCs).
std::optional<std::string> dc_param(const jsonin::Object& o, std::string_view key, const BuildContext& ctx);
std::optional<std::string> rack_param(const jsonin::Object& o, std::string_view key, const std::optional<std::string>& dc,
                                      const BuildContext& ctx);
// A duration in milliseconds (> 0 unless `allow_zero`), returned in nanoseconds.
SimTime ms_param(const jsonin::Object& o, std::string_view key, double dflt_ms, bool allow_zero);
// The DC index of `name` in `topo`, or the DC of node 0 when `name` is empty (the driver's
// "first contact point" inference); kNoDc when the DC does not exist.
inline constexpr std::uint32_t kNoDc = 0xffffffffu;
std::uint32_t resolve_dc(const Topology& topo, const std::optional<std::string>& name);

}  // namespace lbsim::policy
