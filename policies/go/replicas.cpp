// gocql's token-to-replicas map; see policies/go/replicas.hpp.
#include "policies/go/replicas.hpp"

#include <algorithm>

namespace lbsim::policy::go {
namespace {

// networkTopology.replicaMap (gocql topology.go), one list per ring token of a DC with rf > 0.
void nts_map(const Topology& topo, const Replication& repl, const std::vector<std::pair<Token, HostId>>& ring,
             DriverReplicaMap& out) {
  const std::size_t dcs = topo.dcs.size();
  std::vector<int> rf(dcs, 0);
  for (std::uint32_t d = 0; d < dcs; ++d) rf[d] = std::max(0, repl.rf_for_dc(topo.dcs[d]));
  int total_rf = 0;  // totalRF: every DC the keyspace names, present or not
  for (const auto& [name, n] : repl.dc_rf) total_rf += std::max(0, n);
  // haveRF: replicasInDC has a key per DC of the ring and per named DC, so it can only hold when
  // every ring DC is named; then every named DC must hold exactly its rf (0 for an absent one).
  bool every_dc_named = true;
  for (const auto& name : topo.dcs)
    if (std::none_of(repl.dc_rf.begin(), repl.dc_rf.end(), [&](const auto& e) { return e.first == name; }))
      every_dc_named = false;
  std::vector<std::pair<std::uint32_t, int>> targets;  // (ring DC, rf) per named DC present
  bool absent_named_with_rf = false;
  for (const auto& [name, n] : repl.dc_rf) {
    if (const auto d = topo.dc_index(name)) targets.emplace_back(*d, std::max(0, n));
    else if (n > 0) absent_named_with_rf = true;  // its count stays 0, never its rf
  }
  const bool rf_reachable = every_dc_named && !absent_named_with_rf;

  std::vector<int> count(dcs, 0);
  std::vector<std::uint32_t> seen_racks(dcs, 0);
  std::vector<std::uint8_t> rack_seen(topo.racks.size(), 0);
  std::vector<std::vector<HostId>> skipped(dcs);
  std::vector<HostId> list;
  const std::size_t n = ring.size();
  auto have_rf = [&] {
    if (!rf_reachable) return false;
    for (const auto& [d, r] : targets)
      if (count[d] != r) return false;
    return true;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (rf[topo.node_dc[ring[i].second]] == 0) continue;  // "skip this token since no replica in this datacenter"
    std::fill(count.begin(), count.end(), 0);
    std::fill(seen_racks.begin(), seen_racks.end(), 0u);
    std::fill(rack_seen.begin(), rack_seen.end(), std::uint8_t{0});
    for (auto& s : skipped) s.clear();
    list.clear();
    for (std::size_t j = 0; j < n && static_cast<int>(list.size()) < total_rf && !have_rf(); ++j) {
      const HostId h = ring[(i + j) % n].second;
      const std::uint32_t d = topo.node_dc[h];
      const std::uint32_t rack = topo.node_rack[h];
      if (rf[d] == 0 || count[d] >= rf[d]) continue;
      const bool all_racks = seen_racks[d] == topo.dc_rack_count[d];
      if (rack_seen[rack] && all_racks) {
        list.push_back(h);  // no check that h is already listed
        ++count[d];
      } else if (!rack_seen[rack]) {
        rack_seen[rack] = 1;
        list.push_back(h);
        int r = count[d] + 1;
        if (++seen_racks[d] == topo.dc_rack_count[d]) {
          // Drain the DC's deferred hosts from the head, up to rf (repeats included).
          auto& s = skipped[d];
          std::size_t k = 0;
          for (; k < s.size() && r + static_cast<int>(k) < rf[d]; ++k) list.push_back(s[k]);
          r += static_cast<int>(k);
          s.erase(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(k));
        }
        count[d] = r;
      } else {
        skipped[d].push_back(h);
      }
    }
    out.add(ring[i].first, list);
  }
}

}  // namespace

DriverReplicaMap gocql_replica_map(const Topology& topo, const Replication& repl) {
  const auto ring = sorted_ring(topo);
  DriverReplicaMap out;
  if (repl.kind == StrategyKind::NetworkTopology) {
    nts_map(topo, repl, ring, out);
    return out;
  }
  // simpleStrategy.replicaMap; rf 0: the primary (Pick's GetHostForToken fallback).
  return simple_strategy_map(ring, static_cast<std::size_t>(std::max(1, repl.simple_rf)));
}

std::optional<Replication> replica_source_param(const jsonin::Object& o, const BuildContext& ctx) {
  enum class Kind { Correct, Gocql };
  const Kind k = o.choice<Kind>("replica_source", {{"correct", Kind::Correct}, {"gocql", Kind::Gocql}}, Kind::Correct);
  if (k == Kind::Correct) return std::nullopt;
  if (ctx.replication == nullptr)
    jsonin::fail(o.path_of("replica_source"),
                 "\"gocql\" computes the driver's replica map from the keyspace's replication, which is not known "
                 "here (no cluster); use \"correct\"");
  if (ctx.replication->tablets)
    jsonin::fail(o.path_of("replica_source"),
                 "\"gocql\" is the driver's vnode replica map; a tablet keyspace is routed by the driver's tablet "
                 "cache (scylladb/gocql), so use \"correct\"");
  return *ctx.replication;
}

}  // namespace lbsim::policy::go
