// The analytic load model: from the ring (range sizes and replicas), the key distribution (each
// range's weight) and a policy's routing probabilities, each node's expected share of coordinator
// requests and of replica reads and writes, and the throughput at which the busiest node
// saturates. Eigen sparse matrices: routing is ranges x nodes.
//
// Assumptions, stated so a gap with the simulation can be read correctly:
// - the down set is static and known to driver and coordinators from the start;
// - one attempt per operation (no retries, no speculative executions, no timeouts);
// - replica targets follow sim/cluster/coordination.hpp exactly as the simulator does (with
//   ScyllaDB 2025.1's shuffle of equal-distance replicas, their probabilities);
// - the saturation bound is the busiest server's: a node of `shared` discipline is shards x speed
//   servers behind one queue; with `per_shard` (range_shard_weight given) each shard is one
//   server of the node's speed that gets the replica and routed coordinator work of the keys it
//   owns, plus an even part of the unrouted coordinator work (the engine picks a random shard);
//   with a connection model, coordinator work follows the connections and replica work that
//   arrives on a shard other than its owner adds a cross-shard hop on both shards.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "sim/analysis/routing.hpp"
#include "sim/cluster/consistency.hpp"
#include "sim/workload/key_dist.hpp"

namespace lbsim {

struct LoadModelInput {
  const TokenRing* ring = nullptr;
  std::vector<double> range_weight;  // sums to 1 (range_weights())
  double unrouted_fraction = 0;
  double read_fraction = 0;
  ConsistencyLevel read_cl = ConsistencyLevel::LocalOne;
  ConsistencyLevel write_cl = ConsistencyLevel::LocalOne;
  // ServerRules::shuffle_equal_distance_reads: read targets in expectation (read_target_shares).
  bool shuffle_equal_distance_reads = false;
  std::vector<bool> down;  // per node
  // Mean work per operation, seconds, and node capacity (parallel servers x speed).
  double coordinator_s = 0, read_s = 0, write_s = 0;
  std::vector<double> capacity;  // per node: shards x speed
  // per_shard discipline only: weights per range and shard, row-major (range_weights(by_shard)).
  std::uint32_t shards = 1;
  std::vector<double> range_shard_weight;
  // Where a request lands on the coordinator's shards (client.connections), for routed and
  // unrouted requests: the token's shard (Owner), a random shard (Uniform) or a connection of the
  // pool (Pool, with pool_weight[s] the share of the pool's connections on shard s). Replica work
  // that arrives on a shard other than its owner costs a hop of cross_shard_hop_s, whatever the
  // work's size, half on each shard; it arrives on the coordinator's shard when local, and on the
  // sender's shard number when remote if rpc_on_sender_shard (else on the owner).
  enum class Place : std::uint8_t { Owner, Uniform, Pool };
  Place routed_coordinator = Place::Owner, unrouted_coordinator = Place::Uniform;
  Place routed_arrival = Place::Owner, unrouted_arrival = Place::Owner;
  std::vector<double> pool_weight;
  double cross_shard_hop_s = 0;  // CPU seconds per hop; 0: no hops
  bool rpc_on_sender_shard = true;
  // Optional output (cluster.cache's per-node Che, node_cache.hpp): when set, receives
  // ranges x replica_stride(ring) entries, (r, i) = P(the i-th replica of replicas_at(r, Server) is
  // a read target | a read of a key in range r), data and digest reads alike. Null: nothing kept.
  std::vector<double>* read_share_out = nullptr;
};

// The largest replica count of the ring's ranges (the stride of read_share_out).
std::size_t replica_stride(const TokenRing& ring);

struct NodeLoad {
  double coordinator = 0;     // P(node coordinates an operation)
  double replica_reads = 0;   // expected replica reads per operation
  double replica_writes = 0;  // expected replica writes per operation
  double cross_shard_s = 0;   // expected cross-shard hop CPU per operation (in busy_s)
  double busy_s = 0;          // expected busy seconds per operation
};

struct LoadModel {
  bool modelled = false;
  std::string reason;  // when not modelled
  std::vector<NodeLoad> nodes;
  double unavailable = 0;     // fraction of operations with too few live replicas
  double no_host = 0;         // fraction of operations with an empty plan
  double saturation_ops_s = 0;       // throughput bound set by the busiest node or shard
  double node_saturation_ops_s = 0;  // the bound when a node's shards share its load evenly
  std::optional<NodeId> bottleneck;
  std::optional<std::uint32_t> bottleneck_shard;  // per_shard discipline
};

LoadModel analyze_load(const LoadModelInput& in, const jsonin::Json& policy_spec);

}  // namespace lbsim
