// The network latency class of a pair of nodes: which of the scenario's latency distributions a
// message between them draws from. Class 0 is the same node (no hop), 1 the same rack, 2 the same
// DC, 3 two DCs, and 4 + k the scenario's k-th `network.dc_pairs` entry (either direction), which
// overrides 2 or 3 for its pair of DCs.
//
// Contract: O(nodes + DCs^2) memory (a scenario has at most 16 DCs), the class computed from the
// two nodes' racks and DCs on each call (issue 14: an n x n table of classes was 100 MB at 10,000
// nodes and 2.1 GB at the 46,340-node cap).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/engine/model_spec.hpp"

namespace lbsim {

class LatencyClasses {
 public:
  LatencyClasses() = default;
  LatencyClasses(const Topology& topo, const NetworkSpec& net) : dcs_(topo.dcs.size()) {
    loc_.resize(topo.size());
    for (NodeId a = 0; a < topo.size(); ++a) loc_[a] = {topo.node_rack[a], topo.node_dc[a]};
    dc_table_.resize(dcs_ * dcs_);
    for (std::uint32_t x = 0; x < dcs_; ++x)
      for (std::uint32_t y = 0; y < dcs_; ++y) {
        std::uint8_t c = x == y ? 2 : 3;
        for (std::size_t k = net.dc_pairs.size(); k-- > 0;) {  // the first entry naming the pair wins
          const auto& p = net.dc_pairs[k];
          if ((p.from == x && p.to == y) || (p.from == y && p.to == x)) c = static_cast<std::uint8_t>(4 + k);
        }
        dc_table_[x * dcs_ + y] = c;
      }
  }

  // Between two nodes (0 when a == b).
  std::uint8_t between(NodeId a, NodeId b) const {
    if (a == b) return 0;
    const Loc la = loc_[a], lb = loc_[b];
    return la.rack == lb.rack ? 1 : of_dcs(la.dc, lb.dc);
  }
  // Between the client (in DC `dc`, and in rack `rack` unless it is negative) and node n.
  std::uint8_t client(std::int32_t rack, std::uint32_t dc, NodeId n) const {
    return rack >= 0 && static_cast<std::uint32_t>(rack) == loc_[n].rack ? 1 : of_dcs(dc, loc_[n].dc);
  }
  // Between two DCs, for nodes in different racks: 2 or 3 unless a dc_pairs entry names them.
  std::uint8_t of_dcs(std::uint32_t x, std::uint32_t y) const { return dc_table_[x * dcs_ + y]; }

 private:
  struct Loc {
    std::uint32_t rack, dc;
  };
  std::vector<Loc> loc_;
  std::size_t dcs_ = 0;
  std::vector<std::uint8_t> dc_table_;  // dcs_ x dcs_
};

}  // namespace lbsim
