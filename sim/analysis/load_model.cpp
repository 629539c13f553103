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

  // per_shard: the work of range r that lands on the key's shard (replica work, routed
  // coordinator work) and the work spread evenly over a node's shards (unrouted coordinator work).
  const std::size_t shards = in.shards;
  const bool per_shard = shards > 1 && in.range_shard_weight.size() == ring.size() * shards;
  std::vector<double> keyed(n, 0.0), even(n, 0.0), shard_busy(per_shard ? n * shards : 0, 0.0);
  std::vector<NodeId> touched;
  auto add_keyed = [&](NodeId h, double busy) {
    if (!per_shard) return;
    if (keyed[h] == 0) touched.push_back(h);
    keyed[h] += busy;
  };

  std::array<NodeId, 256> targets{};
  for (std::size_t r = 0; r < ring.size(); ++r) {
    const double w = in.range_weight[r];
    if (w == 0) continue;
    touched.clear();
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
        if (per_shard) {
          const double unrouted = in.unrouted_fraction * rt.unrouted[c] * share;
          even[c] += unrouted * in.coordinator_s;
          add_keyed(c, (p - unrouted) * in.coordinator_s);
        }
        const ClNeed need = cl_need(cl, topo.node_dc[c], rf);
        if (!cl_available(need, topo, topo.node_dc[c], replicas, up)) {
          out.unavailable += p;
          continue;
        }
        if (read) {
          const std::size_t k = read_targets(need, topo, c, replicas, up, targets);
          for (std::size_t i = 0; i < k; ++i) {
            out.nodes[targets[i]].replica_reads += p;
            add_keyed(targets[i], p * in.read_s);
          }
        } else {
          for (NodeId t : replicas) {
            if (!up(t)) continue;
            out.nodes[t].replica_writes += p;
            add_keyed(t, p * in.write_s);
          }
        }
      }
    }
    // The keyed work of range r goes to each shard in proportion to the keys it owns there.
    for (NodeId h : touched) {
      for (std::size_t sh = 0; sh < shards; ++sh)
        shard_busy[h * shards + sh] += keyed[h] * in.range_shard_weight[r * shards + sh] / w;
      keyed[h] = 0;
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
  out.node_saturation_ops_s = out.saturation_ops_s;
  if (per_shard) {
    // One server per shard at the node's speed; the busiest shard sets the bound (it is never
    // above the per-node bound, since the busiest shard carries at least the mean).
    out.saturation_ops_s = std::numeric_limits<double>::infinity();
    for (NodeId h = 0; h < n; ++h) {
      const double cap = (h < in.capacity.size() ? in.capacity[h] : 1.0) / static_cast<double>(shards);
      for (std::size_t sh = 0; sh < shards; ++sh) {
        const double busy = shard_busy[h * shards + sh] + even[h] / static_cast<double>(shards);
        if (busy > 0 && cap / busy < out.saturation_ops_s) {
          out.saturation_ops_s = cap / busy;
          out.bottleneck = h;
          out.bottleneck_shard = static_cast<std::uint32_t>(sh);
        }
      }
    }
  }
  return out;
}

}  // namespace lbsim
