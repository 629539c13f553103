#include "sim/analysis/routing.hpp"

#include <algorithm>
#include <utility>

#include <boost/sort/insert_sort/insert_sort.hpp>

#include "sim/core/check.hpp"

namespace lbsim {

using jsonin::Json;

namespace {

std::string adaptive_reason(const std::string& type);

std::uint32_t dc_of(const Json& spec, const Topology& topo) {
  if (spec.contains("local_dc")) return *topo.dc_index(spec["local_dc"].get<std::string>());
  return topo.node_dc[0];  // the driver's default: the DC of the first contact point
}

std::optional<RoutingSpec> child_spec(const Json& child, const Topology& topo, RoutingSpec base, std::string& why) {
  const std::string type = child.value("type", "");
  if (type == "RoundRobin") {
    base.child = RoutingSpec::Child::RoundRobin;
    return base;
  }
  if (type == "DCAwareRoundRobin" || type == "RackAwareRoundRobin") {
    base.child = type == "DCAwareRoundRobin" ? RoutingSpec::Child::DcAware : RoutingSpec::Child::RackAware;
    base.local_dc = dc_of(child, topo);
    base.used_hosts_per_remote_dc = child.value("used_hosts_per_remote_dc", 0);
    base.allow_remote_dcs_for_local_cl = child.value("allow_remote_dcs_for_local_cl", false);
    if (base.child == RoutingSpec::Child::RackAware) {
      // The driver compares rack names; the default is the rack of the first host, whatever its DC.
      base.local_rack = child.contains("local_rack") ? child["local_rack"].get<std::string>()
                                                     : topo.racks[topo.node_rack[0]];
      base.remote_racks_local = child.value("remote_rack_distance", std::string("LOCAL")) == "LOCAL";
    }
    return base;
  }
  why = type == "LatencyAware" ? "child policy " + adaptive_reason(type) : "child policy " + type + " is not modelled";
  return std::nullopt;
}

// Why an adaptive Java policy is not modelled: the feedback its choice depends on.
std::string adaptive_reason(const std::string& type) {
  if (type == "LatencyAware")
    return "adaptive: LatencyAware defers the hosts whose average latency exceeds exclusion_threshold x the "
           "fastest's (chooses by measured latencies)";
  if (type == "RandomTwoChoice")
    return "adaptive: RandomTwoChoice puts first the one of the child plan's first two hosts with fewer requests in "
           "flight on the token's shard (chooses by in-flight counts)";
  if (type == "Default4x")
    return "adaptive: Default4x puts the first two replicas in order of their requests in flight (power of two "
           "choices) and unhealthy ones (10 or more in flight, too few responses in 200 ms) last";
  return type + " is not modelled";
}

}  // namespace

std::optional<RoutingSpec> routing_spec(const Json& spec, const Topology& topo, std::string& why) {
  const std::string type = spec.value("type", "");
  if (is_driver_policy(type)) return driver_routing_spec(spec, topo, why);
  RoutingSpec s;
  if (type == "TokenAware") {
    s.token_aware = true;
    const std::string o = spec.value("ordering", std::string("RANDOM"));
    s.ordering = o == "TOPOLOGICAL" ? RoutingSpec::Ordering::Topological
                 : o == "NEUTRAL"   ? RoutingSpec::Ordering::Neutral
                                    : RoutingSpec::Ordering::Random;
    return child_spec(spec["child"], topo, s, why);
  }
  if (type == "Basic4x") {
    // Local replicas shuffled first, then the other local nodes rotated: coordinator-wise the
    // same as TokenAware RANDOM over DC-aware with no remote hosts.
    s.token_aware = true;
    s.ordering = RoutingSpec::Ordering::Random;
    s.child = RoutingSpec::Child::DcAware;
    s.local_dc = dc_of(spec, topo);
    return s;
  }
  if (type == "RoundRobin" || type == "DCAwareRoundRobin" || type == "RackAwareRoundRobin")
    return child_spec(spec, topo, s, why);
  why = adaptive_reason(type);
  return std::nullopt;
}

Routing coordinator_routing(const TokenRing& ring, const RoutingSpec& spec, const std::vector<bool>& down,
                            bool dc_local_cl) {
  if (spec.driver) return driver_coordinator_routing(ring, spec.driver(down), down);
  const Topology& topo = ring.topology();
  const std::size_t n = topo.size();
  // The child's plan as a sequence of host lists, each rotated from a uniform start; and distance.
  std::vector<std::vector<NodeId>> lists;
  std::vector<bool> local(n, false);
  auto live = [&](auto pred) {
    std::vector<NodeId> v;
    for (NodeId h = 0; h < n; ++h)
      if (!down[h] && pred(h)) v.push_back(h);
    return v;
  };
  switch (spec.child) {
    case RoutingSpec::Child::RoundRobin:
      lists.push_back(live([](NodeId) { return true; }));
      std::fill(local.begin(), local.end(), true);
      break;
    case RoutingSpec::Child::DcAware:
    case RoutingSpec::Child::RackAware: {
      const bool rack = spec.child == RoutingSpec::Child::RackAware;
      auto in_dc = [&](NodeId h) { return topo.node_dc[h] == spec.local_dc; };
      auto in_rack = [&](NodeId h) { return topo.racks[topo.node_rack[h]] == spec.local_rack; };
      if (rack) {
        lists.push_back(live([&](NodeId h) { return in_dc(h) && in_rack(h); }));
        lists.push_back(live([&](NodeId h) { return in_dc(h) && !in_rack(h); }));
      } else {
        lists.push_back(live(in_dc));
      }
      for (NodeId h = 0; h < n; ++h)
        local[h] = in_dc(h) && (!rack || spec.remote_racks_local || in_rack(h));
      if (!dc_local_cl || spec.allow_remote_dcs_for_local_cl) {
        for (std::uint32_t d = 0; d < topo.dcs.size(); ++d) {
          if (d == spec.local_dc) continue;
          auto hosts = live([&](NodeId h) { return topo.node_dc[h] == d; });
          hosts.resize(std::min<std::size_t>(hosts.size(), static_cast<std::size_t>(std::max(0, spec.used_hosts_per_remote_dc))));
          lists.push_back(std::move(hosts));
        }
      }
      break;
    }
  }

  Routing out;
  out.unrouted = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
  const std::vector<NodeId>* first = nullptr;
  for (const auto& l : lists)
    if (!l.empty()) {
      first = &l;
      break;
    }
  if (first)
    for (NodeId h : *first) out.unrouted[h] += 1.0 / static_cast<double>(first->size());

  // The rows are filled in order, each with its entries sorted by node: the row-major matrix is
  // built where it stays. setFromTriplets built a column-major copy and transposed it, a fifth of
  // `analyze` at 3,000 x 256 (issue 14); the matrix is the same (a row never names a node twice).
  out.routed.resize(static_cast<Eigen::Index>(ring.size()), static_cast<Eigen::Index>(n));
  if (ring.size() > 0) {
    const std::size_t per_row = std::max<std::size_t>(1, ring.replicas_at(0, ReplicaOrder::Driver).size());
    out.routed.reserve(Eigen::VectorXi::Constant(static_cast<Eigen::Index>(ring.size()), static_cast<int>(per_row)));
  }
  std::vector<std::pair<int, double>> entries;  // one row's (node, share)
  out.fallback.assign(ring.size(), 0);
  // NEUTRAL: each host's position in the child's lists, so the first local replica met in a
  // rotation is found from the replicas' positions in O(RF log RF), not by scanning the list.
  constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
  std::vector<std::size_t> list_of(spec.ordering == RoutingSpec::Ordering::Neutral ? n : 0, kAbsent),
      pos_in(list_of.size(), kAbsent);
  for (std::size_t li = 0; li < lists.size() && !list_of.empty(); ++li)
    for (std::size_t i = 0; i < lists[li].size(); ++i)
      if (list_of[lists[li][i]] == kAbsent) {
        list_of[lists[li][i]] = li;
        pos_in[lists[li][i]] = i;
      }
  std::vector<NodeId> lr;
  std::vector<std::size_t> pos;
  std::size_t empty = 0;
  for (std::size_t r = 0; r < ring.size(); ++r) {
    const auto row = static_cast<int>(r);
    lr.clear();
    if (spec.token_aware)
      for (NodeId h : ring.replicas_at(r, ReplicaOrder::Driver))
        if (!down[h] && local[h]) lr.push_back(h);
    if (lr.empty()) {
      if (!first) ++empty;
      out.fallback[r] = 1;
      continue;
    }
    entries.clear();
    switch (spec.ordering) {
      case RoutingSpec::Ordering::Topological: entries.emplace_back(static_cast<int>(lr[0]), 1.0); break;
      case RoutingSpec::Ordering::Random:
        for (NodeId h : lr) entries.emplace_back(static_cast<int>(h), 1.0 / static_cast<double>(lr.size()));
        break;
      case RoutingSpec::Ordering::Neutral: {
        // The first list holding any of the replicas decides; positions in it, ascending.
        std::size_t li = kAbsent;
        for (NodeId h : lr) li = std::min(li, list_of[h]);
        if (li == kAbsent) break;
        const auto& l = lists[li];
        pos.clear();
        for (NodeId h : lr)
          if (list_of[h] == li) pos.push_back(pos_in[h]);
        std::sort(pos.begin(), pos.end());
        pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
        const double m = static_cast<double>(l.size());
        for (std::size_t k = 0; k < pos.size(); ++k) {
          const std::size_t prev = pos[(k + pos.size() - 1) % pos.size()];
          const std::size_t gap = pos.size() == 1 ? l.size() : (pos[k] + l.size() - prev) % l.size();
          entries.emplace_back(static_cast<int>(l[pos[k]]), static_cast<double>(gap) / m);
        }
        break;
      }
    }
    boost::sort::insert_sort(entries.begin(), entries.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < entries.size(); ++k) {
      LBSIM_DCHECK(k == 0 || entries[k - 1].first < entries[k].first, "a routing row names a node twice");
      out.routed.insert(row, entries[k].first) = entries[k].second;
    }
  }
  out.routed.makeCompressed();
  out.no_host = ring.size() ? static_cast<double>(empty) / static_cast<double>(ring.size()) : 0.0;
  return out;
}

}  // namespace lbsim
