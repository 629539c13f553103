#include "sim/analysis/load_model.hpp"

#include <array>
#include <limits>

#include "sim/cluster/coordination.hpp"

namespace lbsim {

LoadModel analyze_load(const LoadModelInput& in, const jsonin::Json& policy_spec) {
  const TokenRing& ring = *in.ring;
  const Topology& topo = ring.topology();
  const std::size_t n = topo.size();
  LoadModel out;
  std::string why;
  const auto spec = routing_spec(policy_spec, topo, why);
  if (!spec) {
    out.reason = why;
    return out;
  }
  out.modelled = true;
  out.nodes.assign(n, {});
  std::vector<bool> down = in.down;
  down.resize(n, false);
  auto up = [&](NodeId h) { return !down[h]; };
  const RfTable rf = RfTable::of(topo, ring.replication());

  // Coordinator probabilities differ per CL only through the DC-local stop of DC-aware children.
  const Routing rd = coordinator_routing(ring, *spec, down, is_dc_local(in.read_cl));
  const Routing wr = coordinator_routing(ring, *spec, down, is_dc_local(in.write_cl));
  const double routed = 1.0 - in.unrouted_fraction;

  std::array<NodeId, 256> targets{};
  for (std::size_t r = 0; r < ring.size(); ++r) {
    const double w = in.range_weight[r];
    if (w == 0) continue;
    const auto replicas = ring.replicas_at(r, ReplicaOrder::Server);
    for (int kind = 0; kind < 2; ++kind) {
      const bool read = kind == 0;
      const double share = w * (read ? in.read_fraction : 1.0 - in.read_fraction);
      if (share == 0) continue;
      const Routing& rt = read ? rd : wr;
      const ConsistencyLevel cl = read ? in.read_cl : in.write_cl;
      // P(coordinator = c | range r) mixes routed and unrouted requests.
      Eigen::VectorXd pc = in.unrouted_fraction * rt.unrouted;
      for (SparseRows::InnerIterator it(rt.routed, static_cast<Eigen::Index>(r)); it; ++it)
        pc[it.col()] += routed * it.value();
      const double assigned = pc.sum();
      out.no_host += share * (1.0 - assigned);
      for (NodeId c = 0; c < n; ++c) {
        const double p = pc[c] * share;
        if (p == 0) continue;
        out.nodes[c].coordinator += p;
        const ClNeed need = cl_need(cl, topo.node_dc[c], rf);
        if (!cl_available(need, topo, topo.node_dc[c], replicas, up)) {
          out.unavailable += p;
          continue;
        }
        if (read) {
          const std::size_t k = read_targets(need, topo, c, replicas, up, targets);
          for (std::size_t i = 0; i < k; ++i) out.nodes[targets[i]].replica_reads += p;
        } else {
          for (NodeId t : replicas)
            if (up(t)) out.nodes[t].replica_writes += p;
        }
      }
    }
  }

  out.saturation_ops_s = std::numeric_limits<double>::infinity();
  for (NodeId h = 0; h < n; ++h) {
    auto& l = out.nodes[h];
    l.busy_s = l.coordinator * in.coordinator_s + l.replica_reads * in.read_s + l.replica_writes * in.write_s;
    const double cap = h < in.capacity.size() ? in.capacity[h] : 1.0;
    if (l.busy_s > 0 && cap / l.busy_s < out.saturation_ops_s) {
      out.saturation_ops_s = cap / l.busy_s;
      out.bottleneck = h;
    }
  }
  return out;
}

}  // namespace lbsim
