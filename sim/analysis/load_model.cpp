#include "sim/analysis/load_model.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "sim/cluster/coordination.hpp"

namespace lbsim {

namespace {
constexpr std::uint32_t kNoShard = 0xffffffffu;
}  // namespace

std::size_t replica_stride(const TokenRing& ring) {
  std::size_t stride = 1;
  for (std::size_t r = 0; r < ring.size(); ++r) stride = std::max(stride, ring.replicas_at(r, ReplicaOrder::Server).size());
  return stride;
}

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
  using Place = LoadModelInput::Place;
  std::vector<double> keyed(n, 0.0), even(n, 0.0), shard_busy(per_shard ? n * shards : 0, 0.0);
  // Hop potential (half a hop's CPU) of replica work arriving uniformly or through the pool.
  std::vector<double> hop_uniform(n, 0.0), hop_pool(n, 0.0), pooled(n, 0.0);
  std::vector<double> uniform(shards, 1.0 / static_cast<double>(shards));
  const std::vector<double>& pool = in.pool_weight.size() == shards ? in.pool_weight : uniform;
  std::vector<NodeId> touched;
  std::vector<std::uint8_t> is_touched(n, 0);
  auto touch = [&](NodeId h) {
    if (!is_touched[h]) {
      is_touched[h] = 1;
      touched.push_back(h);
    }
  };
  auto add_keyed = [&](NodeId h, double busy) {
    if (!per_shard) return;
    touch(h);
    keyed[h] += busy;
  };
  // Coordinator work of one request class, placed on the coordinator node's shards.
  auto add_coordinator = [&](NodeId c, Place place, double busy) {
    if (!per_shard || busy == 0) return;
    if (place == Place::Owner) add_keyed(c, busy);
    else if (place == Place::Uniform) even[c] += busy;
    else pooled[c] += busy;
  };
  // A replica work item (probability p) of one request class at t, coordinated by c.
  // A hop costs cross_shard_hop_s whatever the work (sim/engine, enqueue_replica).
  auto add_hop = [&](NodeId c, NodeId t, Place arrival, double p) {
    const double hop_s = in.cross_shard_hop_s;
    if (arrival == Place::Owner || p == 0 || hop_s == 0) return;
    if (t != c && !in.rpc_on_sender_shard) return;
    if (!per_shard) {  // no per-shard table: a random arrival shard misses the owner (S-1)/S of the time
      out.nodes[t].cross_shard_s += p * hop_s * (1.0 - 1.0 / static_cast<double>(in.shards));
      return;
    }
    touch(t);
    (arrival == Place::Uniform ? hop_uniform : hop_pool)[t] += p * hop_s / 2;
  };

  // cluster.cache: each range's read targets by replica position (node_cache.hpp).
  std::vector<double>* read_share = in.read_share_out;
  const std::size_t share_stride = read_share ? replica_stride(ring) : 0;
  if (read_share) read_share->assign(ring.size() * share_stride, 0.0);
  std::array<NodeId, 256> targets{};
  std::array<double, 256> target_share{};  // with the shuffle: the probability of each target
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
      // Coordinator c with probability p (of which `unrouted` without a routing key): its own
      // work, then the replica work it sends.
      auto coordinate = [&](NodeId c, double p, double unrouted) {
        out.nodes[c].coordinator += p;
        add_coordinator(c, in.unrouted_coordinator, unrouted * in.coordinator_s);
        add_coordinator(c, in.routed_coordinator, (p - unrouted) * in.coordinator_s);
        const ClNeed need = cl_need(cl, topo.node_dc[c], rf);
        if (!cl_available(need, topo, topo.node_dc[c], replicas, up)) {
          out.unavailable += p;
          return;
        }
        if (read) {
          const std::size_t k = in.shuffle_equal_distance_reads
                                    ? read_target_shares(need, topo, c, replicas, up, targets, target_share)
                                    : read_targets(need, topo, c, replicas, up, targets);
          for (std::size_t i = 0; i < k; ++i) {
            const double q = in.shuffle_equal_distance_reads ? target_share[i] : 1.0;
            out.nodes[targets[i]].replica_reads += p * q;
            if (read_share)
              for (std::size_t pos = 0; pos < replicas.size(); ++pos)
                if (replicas[pos] == targets[i]) (*read_share)[r * share_stride + pos] += p * q / share;
            add_keyed(targets[i], p * q * in.read_s);
            add_hop(c, targets[i], in.routed_arrival, (p - unrouted) * q);
            add_hop(c, targets[i], in.unrouted_arrival, unrouted * q);
          }
        } else {
          for (NodeId t : replicas) {
            if (!up(t)) continue;
            out.nodes[t].replica_writes += p;
            add_keyed(t, p * in.write_s);
            add_hop(c, t, in.routed_arrival, p - unrouted);
            add_hop(c, t, in.unrouted_arrival, unrouted);
          }
        }
      };
      const bool fallback = rt.fallback[r] != 0;
      if (in.unrouted_fraction == 0 && !fallback) {
        // Every request routed and the row sparse (<= RF coordinators): O(RF), in node order as
        // the dense walk below.
        double assigned = 0;
        for (SparseRows::InnerIterator it(rt.routed, static_cast<Eigen::Index>(r)); it; ++it) {
          const double p = routed * it.value();
          assigned += p;
          if (p * share != 0) coordinate(static_cast<NodeId>(it.col()), p * share, 0.0);
        }
        out.no_host += share * (1.0 - assigned);
        continue;
      }
      // P(coordinator = c | range r) mixes routed and unrouted requests; a fallback range's routed
      // requests follow the child's plan, as unrouted ones do.
      Eigen::VectorXd pc = (in.unrouted_fraction + (fallback ? routed : 0.0)) * rt.unrouted;
      for (SparseRows::InnerIterator it(rt.routed, static_cast<Eigen::Index>(r)); it; ++it)
        pc[it.col()] += routed * it.value();
      out.no_host += share * (1.0 - pc.sum());
      for (NodeId c = 0; c < n; ++c) {
        const double p = pc[c] * share;
        if (p == 0) continue;
        coordinate(c, p, in.unrouted_fraction * rt.unrouted[c] * share);
      }
    }
    // The keyed work of range r goes to each shard in proportion to the keys it owns there. A hop
    // (owner o, arrival a != o, independent) puts half on o with P(o)(1 - q[o]) and half on a
    // with q[a](1 - P(a)).
    for (NodeId h : touched) {
      // A tablet's replica owns all of its keys on the replica's tablet shard; otherwise (vnodes,
      // or a coordinator that is no replica) the keys' token shards.
      std::uint32_t tablet_shard = kNoShard;
      if (ring.has_tablets())
        for (std::size_t pos = 0; pos < replicas.size(); ++pos)
          if (replicas[pos] == h) tablet_shard = ring.replica_shard(r, pos);
      for (std::size_t sh = 0; sh < shards; ++sh) {
        const double own = tablet_shard != kNoShard ? (sh == tablet_shard ? 1.0 : 0.0)
                                                    : in.range_shard_weight[r * shards + sh] / w;
        double busy = keyed[h] * own;
        const double hop = hop_uniform[h] * (own * (1 - uniform[sh]) + uniform[sh] * (1 - own)) +
                           hop_pool[h] * (own * (1 - pool[sh]) + pool[sh] * (1 - own));
        shard_busy[h * shards + sh] += busy + hop;
        out.nodes[h].cross_shard_s += hop;
      }
      keyed[h] = hop_uniform[h] = hop_pool[h] = 0;
      is_touched[h] = 0;
    }
  }

  out.saturation_ops_s = std::numeric_limits<double>::infinity();
  for (NodeId h = 0; h < n; ++h) {
    auto& l = out.nodes[h];
    l.busy_s = l.coordinator * in.coordinator_s + l.replica_reads * in.read_s + l.replica_writes * in.write_s +
               l.cross_shard_s;
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
        const double busy = shard_busy[h * shards + sh] + even[h] / static_cast<double>(shards) + pooled[h] * pool[sh];
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
