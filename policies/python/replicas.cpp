// The Python driver 3.25's token-to-replicas map; see policies/python/replicas.hpp.
#include "policies/python/replicas.hpp"

#include <algorithm>

namespace lbsim::policy::python {
namespace {

// NetworkTopologyStrategy.make_token_replica_map (cassandra/metadata.py, 3.25.0).
void nts_map(const Topology& topo, const Replication& repl, const std::vector<std::pair<Token, HostId>>& ring,
             DriverReplicaMap& out) {
  const std::size_t n = ring.size();
  // dc_to_token_offset: per DC, its ring positions; the DCs in order of first appearance.
  std::vector<std::uint32_t> dc_order;
  std::vector<std::vector<std::size_t>> offsets(topo.dcs.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t d = topo.node_dc[ring[i].second];
    if (offsets[d].empty()) dc_order.push_back(d);
    offsets[d].push_back(i);
  }
  std::vector<int> rf(topo.dcs.size(), 0);
  for (std::uint32_t d = 0; d < topo.dcs.size(); ++d) rf[d] = std::max(0, repl.rf_for_dc(topo.dcs[d]));
  std::vector<std::uint8_t> rack_placed(topo.racks.size(), 0);
  std::vector<HostId> list, skipped;
  for (std::size_t i = 0; i < n; ++i) {
    list.clear();
    for (std::uint32_t d : dc_order) {
      if (rf[d] == 0) continue;
      const auto& offs = offsets[d];
      const std::size_t index = static_cast<std::size_t>(std::lower_bound(offs.begin(), offs.end(), i) - offs.begin());
      int remaining = rf[d];
      std::uint32_t this_dc = 0, racks_placed = 0;
      skipped.clear();
      std::fill(rack_placed.begin(), rack_placed.end(), std::uint8_t{0});
      for (std::size_t k = 0; k < offs.size(); ++k) {
        const HostId h = ring[offs[(index + k) % offs.size()]].second;
        if (remaining == 0 || this_dc == topo.dc_node_count[d]) break;
        if (std::find(list.begin(), list.end(), h) != list.end()) continue;
        const std::uint32_t rack = topo.node_rack[h];
        if (rack_placed[rack] && racks_placed < topo.dc_rack_count[d]) {
          skipped.push_back(h);  // a plain list: a host met twice is queued twice
          continue;
        }
        list.push_back(h);
        ++this_dc;
        --remaining;
        if (!rack_placed[rack]) {
          rack_placed[rack] = 1;
          ++racks_placed;
        }
        if (racks_placed == topo.dc_rack_count[d]) {
          for (HostId s : skipped) {
            if (remaining == 0) break;
            list.push_back(s);  // not checked against the list
            --remaining;
          }
          skipped.clear();
        }
      }
    }
    out.add(ring[i].first, list);
  }
}

}  // namespace

std::vector<std::uint32_t> dc_ring_order(const Topology& topo) {
  std::vector<std::uint32_t> rank(topo.dcs.size(), 0);
  std::vector<std::uint8_t> seen(topo.dcs.size(), 0);
  std::uint32_t next = 0;
  for (const auto& [t, h] : sorted_ring(topo)) {
    const std::uint32_t d = topo.node_dc[h];
    if (!seen[d]) {
      seen[d] = 1;
      rank[d] = next++;
    }
  }
  return rank;
}

DriverReplicaMap python325_replica_map(const Topology& topo, const Replication& repl) {
  const auto ring = sorted_ring(topo);
  DriverReplicaMap out;
  if (repl.kind == StrategyKind::NetworkTopology) {
    nts_map(topo, repl, ring, out);
    return out;
  }
  // SimpleStrategy.make_token_replica_map.
  return simple_strategy_map(ring, static_cast<std::size_t>(std::max(0, repl.simple_rf)));
}

std::optional<Replication> replica_source_param(const jsonin::Object& o, const BuildContext& ctx) {
  enum class Kind { Correct, Python325 };
  const Kind k =
      o.choice<Kind>("replica_source", {{"correct", Kind::Correct}, {"python-3.25", Kind::Python325}}, Kind::Correct);
  if (k == Kind::Correct) return std::nullopt;
  if (ctx.replication == nullptr)
    jsonin::fail(o.path_of("replica_source"),
                 "\"python-3.25\" computes the driver's replica map from the keyspace's replication, which is not "
                 "known here (no cluster); use \"correct\"");
  return *ctx.replication;
}

}  // namespace lbsim::policy::python
