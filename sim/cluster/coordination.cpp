#include "sim/cluster/coordination.hpp"

namespace lbsim {

RfTable RfTable::of(const Topology& topo, const Replication& repl) {
  RfTable t;
  t.per_dc.assign(topo.dcs.size(), 0);
  if (repl.kind == StrategyKind::Simple) {
    t.total = static_cast<std::uint32_t>(repl.simple_rf);
    for (auto& v : t.per_dc) v = t.total;
  } else {
    for (const auto& [dc, rf] : repl.dc_rf) t.total += static_cast<std::uint32_t>(rf);
    for (std::size_t d = 0; d < topo.dcs.size(); ++d)
      t.per_dc[d] = static_cast<std::uint32_t>(repl.rf_for_dc(topo.dcs[d]));
  }
  return t;
}

ClNeed cl_need(ConsistencyLevel cl, std::uint32_t coordinator_dc, const RfTable& rf) {
  ClNeed n;
  const std::uint32_t local_rf = coordinator_dc < rf.per_dc.size() ? rf.per_dc[coordinator_dc] : 0;
  switch (cl) {
    case ConsistencyLevel::Any:
    case ConsistencyLevel::One: n.total = 1; break;
    case ConsistencyLevel::Two: n.total = 2; break;
    case ConsistencyLevel::Three: n.total = 3; break;
    case ConsistencyLevel::Quorum:
    case ConsistencyLevel::Serial: n.total = rf.total / 2 + 1; break;
    case ConsistencyLevel::All: n.total = rf.total; break;
    case ConsistencyLevel::LocalOne:
      n.total = 1;
      n.local_only = true;
      break;
    case ConsistencyLevel::LocalQuorum:
    case ConsistencyLevel::LocalSerial:
      n.total = local_rf / 2 + 1;
      n.local_only = true;
      break;
    case ConsistencyLevel::EachQuorum:
      n.each = true;
      n.total = 0;
      for (std::size_t d = 0; d < rf.per_dc.size() && d < kMaxDcs; ++d) {
        n.per_dc[d] = static_cast<std::uint8_t>(rf.per_dc[d] > 0 ? rf.per_dc[d] / 2 + 1 : 0);
        n.total += n.per_dc[d];
      }
      break;
  }
  return n;
}

}  // namespace lbsim
