// Per-node Che: the hit rate of each node's read cache (cluster.cache; per shard under `per_shard`)
// predicted from key popularity x the policy's routing x the read CL's fan-out (issue 37, item 4).
//
// Rates. A read of key k (probability read_fraction x P(k) per operation) is coordinated by node c
// with the policy's routing probability (load_model.hpp / routing.hpp) and sent to the
// coordinator's read targets, closest first, the coordinator itself when it is a replica
// (sim/cluster/coordination.hpp read_targets; with ScyllaDB 2025.1's shuffle of equal-distance
// replicas, in expectation: read_target_shares). Data and digest reads both touch the target's
// cache, so node n sees key k at the per-operation rate
//     lambda_{n,k} = read_fraction x P(k) x R_{r(k),n},
// where R_{r,n} = P(n is a read target | a read of a key in range r) comes out of analyze_load()
// (LoadModelInput::read_share_out). Writes reach every live replica: w_{n,k} = write_fraction x P(k)
// at each replica n of k.
//
// Writes. Under the `update` rule (a write changes a cached entry in place, sim/cache/lru.hpp
// update(); it neither inserts nor refreshes recency) a write does not change what a read finds,
// so w plays no part. Under `invalidate` (LruCache::erase) an entry is present at a read iff the
// key's previous read lies within the characteristic time T and no write came after it. With
// independent Poisson reads (lambda) and writes (w) of the key, looking back from a read (PASTA),
// the most recent event of either kind is a read with probability lambda/(lambda+w), at an age
// that is exponential of rate lambda+w, so
//     P(hit_k) = P(cached_k) = lambda/(lambda+w) x (1 - exp(-(lambda+w) T)).       (3)
// This is Che's TTL view with a write ending the entry early; the capacity equation becomes
//     sum_k s_k lambda_k/(lambda_k+w_k) (1 - exp(-(lambda_k+w_k) T)) = C,           (4)
// which is che.hpp's eq. (1) when w = 0. T is in operations (the rates are per operation); with
// an open-loop rate it is also given in seconds.
//
// Sizes. The engine draws one partition size per key from cluster.cache.partition_size; the
// model uses its mean for every key. Eq. (4) is linear in s_k and the sizes are independent of the
// popularity, so the expected occupancy is the same; what is lost is the variance of T for small
// caches and the (rare) keys larger than the cache, which the engine never caches.
//
// Populations and cost. Keys 1..min(count, kCheExactKeys) are exact: each key is hashed to its
// token (as the simulator does), its range gives its targets, and it becomes one item of each
// target's cache (of its owning shard: the token's shard, or a tablet replica's shard). The
// remaining keys (count > kCheExactKeys) are grouped: consecutive key ids in blocks whose width
// grows geometrically (ratio 1.01, at most 1/4,096 of the tail), each block's mass spread over the
// ranges by arc length (a uniform hash), as key_weights.cpp spreads it; per cache, ranges with the
// same read share merge into one class, so a block is one weighted item per (cache, class). Cost:
// O(min(count, 2^20) x RF) items in memory (24 bytes each) plus O(blocks x classes) for the tail;
// each cache's root search takes a few dozen passes over its items. A 10^8-key population thus
// costs about the same as a 10^6-key one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/ring.hpp"
#include "sim/cluster/shard.hpp"
#include "sim/workload/key_dist.hpp"

namespace lbsim {

inline constexpr std::uint64_t kCheExactKeys = std::uint64_t{1} << 20;

struct CacheModelInput {
  const TokenRing* ring = nullptr;
  KeySpec keys;
  double read_fraction = 0;   // reads per operation
  double write_fraction = 0;  // writes per operation (each reaches every live replica)
  bool invalidate = false;    // cluster.cache.writes: true = invalidate, false = update
  double capacity_bytes = 0;  // per node
  double entry_bytes = 1024;  // mean partition size
  // per_shard discipline: caches per node (capacity / shards each); a key lives in its token's
  // shard (tablets: the replica's tablet shard). 1: one cache per node.
  std::uint32_t shards = 1;
  Sharding sharding{1, 12};
  // analyze_load's read shares: ranges x stride, entry (r, i) = P(the i-th replica of
  // replicas_at(r, Server) is a read target | a read of a key in range r).
  const std::vector<double>* read_share = nullptr;
  std::size_t stride = 0;
  std::vector<bool> down;  // per node: down nodes get no writes
  double ops_per_s = 0;    // open-loop rate when known (0: unknown; no per-second figures)
  // Disk: reads per miss (sstables) and the disk's occupancy per read (1/read_iops +
  // bytes/read_bandwidth), seconds; 0: no disk bound.
  std::uint32_t sstables_per_read = 1;
  double disk_read_s = 0;
  std::uint64_t exact_keys = kCheExactKeys;  // keys taken one by one (tests lower it)
};

struct CacheCheResult {  // one cache (a node's, or one shard's)
  double t = 0;           // characteristic time, operations (infinite when everything fits)
  double reads = 0;       // reads per operation that reach this cache
  double hits = 0;        // hits per operation
  double occupancy = 0;   // expected bytes in use
  bool fits = false;
  std::size_t items = 0;  // weighted items of the root search
};

struct NodeCacheModel {
  double reads_per_op = 0;   // replica reads (data + digest) per operation
  double hit_rate = 0;       // read-weighted over the node's shards
  double misses_per_op = 0;
  double t_min = 0, t_max = 0;  // characteristic time over the node's caches, operations
  std::vector<CacheCheResult> shards;  // one per cache of the node
};

struct CacheModel {
  bool modelled = false;
  std::string reason;
  std::string method;  // "exact" or "grouped"
  std::vector<NodeCacheModel> nodes;
  double hit_rate = 0;      // over all replica reads
  double misses_per_op = 0; // summed over nodes
  // Overcommit of misses: the busiest node's misses over the mean node's.
  double miss_imbalance = 0;
  double disk_saturation_ops_s = 0;  // 0: no disk bound (disk_read_s == 0 or no misses)
  std::size_t disk_bottleneck = 0;
  // Filled by analyze_scenario: the load model's node-level bound (a node's shards sharing its
  // load evenly) with each replica read costing cluster.cache's hit or miss CPU instead of
  // cluster.service.read.
  double cpu_saturation_ops_s = 0;
  std::size_t cpu_bottleneck = 0;
};

CacheModel analyze_cache(const CacheModelInput& in);

// The weighted root search of eq. (4) over items (read rate, write rate, multiplicity), every item
// `entry_bytes` bytes, for a cache of capacity_bytes. Exposed for tests.
struct CacheItem {
  double rate = 0, wrate = 0, mult = 1;
};
CacheCheResult che_with_invalidation(const std::vector<CacheItem>& items, double entry_bytes, double capacity_bytes);

}  // namespace lbsim
