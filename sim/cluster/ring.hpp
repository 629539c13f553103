// The token ring with replica placement precomputed per vnode range.
//
// Ownership (TokenMetadata.firstTokenIndex): a token belongs to the first ring token >= it,
// wrapping past the largest to the smallest. Ring token i owns (token[i-1], token[i]].
//
// Two replica orders are stored for every range, with the same set of nodes:
// - Server: what Cassandra 3.x/4.x and ScyllaDB compute (SimpleStrategy ring walk; NTS
//   DatacenterEndpoints with the `rf - racks` repeats rule). Used by coordinators.
// - Driver: the order Java driver 3.x Metadata.getReplicas returns (ReplicationStrategy: NTS with
//   a per-DC deferred "skipped" LinkedHashSet flushed when the DC's last rack is seen; DCs
//   interleaved in ring-walk order). TokenAwarePolicy TOPOLOGICAL relies on it.
// For SimpleStrategy both orders are the ring walk.
// Sources: apache/cassandra src/java/org/apache/cassandra/locator/TokenMetadata.java
// (firstTokenIndex), SimpleStrategy.java and NetworkTopologyStrategy.java (DatacenterEndpoints,
// calculateNaturalEndpoints); scylladb/scylladb locator/network_topology_strategy.cc (same rule);
// scylladb/java-driver scylla-3.x driver-core/src/main/java/com/datastax/driver/core/Metadata.java
// and ReplicationStategy.java (the file name is misspelled upstream).
//
// Every range has the same number of replicas: sum over DCs of min(rf, nodes in DC) for NTS,
// min(rf, nodes) for SimpleStrategy. Storage is flat, O(ring tokens x RF); a lookup is a bucket
// index plus a short binary search.
#pragma once
#include <cstdint>

#include "sim/core/int128.hpp"
#include <span>
#include <string>
#include <vector>

#include "sim/cluster/tablets.hpp"
#include "sim/cluster/topology.hpp"

namespace lbsim {

enum class ReplicaOrder : std::uint8_t { Server, Driver };

struct NodeOwnership {
  double primary = 0;   // arc of the node's primary ranges / 2^64 (nodetool "Owns")
  double replica = 0;   // arc of every range it replicates / 2^64 ("Owns (effective)")
  u128 primary_arc = 0;
  u128 replica_arc = 0;
};

struct Summary {
  std::size_t count = 0;
  double mean = 0, stddev = 0, min = 0, max = 0, max_over_mean = 0;  // population stddev
};
Summary summarize(std::span<const double> values);

struct DcOwnership {
  std::string dc;
  int rf = 0;
  std::size_t nodes = 0, racks = 0;
  Summary primary, replica;
};

class TokenRing {
 public:
  TokenRing(Topology topology, Replication replication);
  // A tablet keyspace's placement in ring form: range i is tablet i, (last[i-1], last[i]]; its
  // replicas are the tablet's hosts in allocation order (the v1 payload order) for both orders,
  // and replica_shard() gives each replica's shard. Node tokens are not used.
  static TokenRing from_tablets(Topology topology, Replication replication, const TabletMap& map);
  bool has_tablets() const { return !replica_shards_.empty(); }
  // The ring of a subset of a larger cluster, renumbered: this ring was built on a topology of
  // some of `full`'s nodes (in `full`'s order), node i of it being node to_full[i] of `full`. The
  // copy has the same ranges and replicas, with `full`'s node ids and topology (topology changes:
  // each member set's placement is computed on the members alone).
  TokenRing renumbered(Topology full, std::span<const NodeId> to_full) const;
  // Tablet keyspaces: the shard of the replica at position `pos` of `range` (server order).
  std::uint32_t replica_shard(std::size_t range, std::size_t pos) const { return replica_shards_[range * stride_ + pos]; }
  const std::vector<std::uint32_t>& replica_shards() const { return replica_shards_; }

  const Topology& topology() const { return topo_; }
  const Replication& replication() const { return repl_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  std::size_t size() const { return tokens_.size(); }
  Token token_at(std::size_t range) const { return tokens_[range]; }
  NodeId owner_at(std::size_t range) const { return owners_[range]; }
  std::size_t replicas_per_range() const { return stride_; }

  // Index of the range that owns `t`: the first ring token >= t, wrapping to 0.
  std::size_t range_index(Token t) const {
    const std::uint64_t b = bucket_of(t);
    const std::size_t lo = bucket_start_[b], hi = bucket_start_[b + 1];
    if (lo == hi) return hi == tokens_.size() ? 0 : hi;
    // A lower bound in [lo, hi) whose halving steps select with a conditional move: the keys are
    // random, so a branch on each comparison mispredicts about half the time.
    const Token* base = tokens_.data() + lo;
    for (std::size_t n = hi - lo; n > 1; n -= n / 2) base = base[n / 2] < t ? base + n / 2 : base;
    const std::size_t i = static_cast<std::size_t>(base - tokens_.data()) + (*base < t ? 1 : 0);
    return i == tokens_.size() ? 0 : i;
  }
  NodeId owner(Token t) const { return owners_[range_index(t)]; }

  // Prefetch hints for a caller that knows a token some operations ahead (the engine on a ring
  // too large for the caches, issue 14). Each step's reads depend on the previous step's lines,
  // so a caller issues them one after the other, some time apart: the token's bucket bounds, then
  // the bucket's tokens (those range_index() searches), then, the range known, its replica rows.
  // A prefetch never faults, so an address one past the end is harmless.
  void prefetch_bucket(Token t) const { __builtin_prefetch(bucket_start_.data() + bucket_of(t)); }
  void prefetch_tokens(Token t) const {
    const std::uint64_t b = bucket_of(t);
    __builtin_prefetch(tokens_.data() + bucket_start_[b]);
    __builtin_prefetch(tokens_.data() + bucket_start_[b + 1]);
  }
  void prefetch_replicas(std::size_t range) const {
    __builtin_prefetch(server_.data() + range * stride_);
    __builtin_prefetch(driver_.data() + range * stride_);
  }
  // Bytes of the lookup tables an operation reads: tokens, bucket bounds and both replica orders.
  std::size_t lookup_bytes() const {
    return tokens_.size() * sizeof(Token) + bucket_start_.size() * sizeof(std::uint32_t) +
           (server_.size() + driver_.size()) * sizeof(NodeId);
  }

  std::span<const NodeId> replicas_at(std::size_t range, ReplicaOrder order) const {
    const auto& v = order == ReplicaOrder::Server ? server_ : driver_;
    return {v.data() + range * stride_, stride_};
  }
  std::span<const NodeId> replicas(Token t, ReplicaOrder order) const {
    return replicas_at(range_index(t), order);
  }

  // Arc length of range i: (token[i-1], token[i]], 2^64 for a one-token ring.
  u128 arc(std::size_t range) const;
  const std::vector<NodeOwnership>& ownership() const { return ownership_; }
  std::vector<DcOwnership> dc_ownership() const;

  std::size_t memory_bytes() const;

 private:
  std::uint64_t bucket_of(Token t) const {
    return token_order(t) >> bucket_shift_;
  }
  TokenRing() = default;
  void build_buckets();
  void place_simple();
  void place_nts();
  void compute_ownership();

  Topology topo_;
  Replication repl_;
  std::vector<std::string> warnings_;
  std::vector<Token> tokens_;
  std::vector<NodeId> owners_;
  std::vector<std::uint32_t> bucket_start_;
  int bucket_shift_ = 63;
  std::size_t stride_ = 0;
  std::vector<NodeId> server_;
  std::vector<NodeId> driver_;
  std::vector<NodeOwnership> ownership_;
  std::vector<std::uint32_t> replica_shards_;  // tablets only: per (range, replica)
};

}  // namespace lbsim
