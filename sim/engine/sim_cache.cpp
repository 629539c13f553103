// cluster.cache and cluster.disk (issue 37): the replicas' read caches and the disk that serves
// their misses. configs/README.md "cluster.cache" gives each parameter's source.
//
// A replica read (data or digest, and the read round of a lightweight transaction) looks its
// partition up in the cache of the node (per_shard: of the shard owning the token):
// - hit: the CPU work is `read.hit`;
// - miss: the entry is inserted (exact LRU, sim/cache/lru.hpp), the node's disk serves
//   `sstables_per_read` reads in arrival order (each occupies it for 1/read_iops +
//   bytes/read_bandwidth, reserved at arrival, so the FIFO costs no event), the device latency
//   follows outside the queue, and the job comes back (kReplicaArrive, Job::disk_done) for its CPU
//   work `read.miss` in the owner shard's queue; pauses, downs and restarts meanwhile are handled
//   as for any arriving job.
// Writes (and an LWT's commit round) follow `writes`: update keeps a cached entry as it is
// (ScyllaDB merges the flushed memtable into it, without touching its recency or inserting an
// absent key: scylladb/scylladb f4a4091ca2 db/row_cache.cc row_cache::update); invalidate drops it
// (Cassandra's row cache: apache/cassandra 00022bfa61 db/ColumnFamilyStore.java apply() calls
// invalidateCachedPartition after the memtable put).
// A restart or a kill empties the node's caches (its process, and so its memory, is gone).
#include <cmath>

#include "sim/cluster/routing_key.hpp"
#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {

// The key ids of `spec` from the most to the least popular, each once (Warm start; configs/README.md
// "cluster.cache" says what popularity is per distribution). f returns false to stop.
template <class F>
void keys_by_popularity(const KeySpec& spec, F&& f) {
  const auto n = static_cast<std::int64_t>(std::max<std::uint64_t>(spec.count, 1));
  if (spec.kind == KeyDistKind::Gaussian) {
    // Closest to the mean first; ties: the lower key id.
    const double m = (1.0 + static_cast<double>(n)) / 2.0;
    std::int64_t lo = static_cast<std::int64_t>(std::floor(m)), hi = lo + 1;
    while (lo >= 1 || hi <= n) {
      const bool take_lo = lo >= 1 && (hi > n || m - static_cast<double>(lo) <= static_cast<double>(hi) - m);
      if (!f(take_lo ? lo-- : hi++)) return;
    }
    return;
  }
  // zipf (rank = id), exponential, hotspot (hot keys first): popularity falls with the id;
  // uniform and sequential: every key alike, taken in id order.
  for (std::int64_t k = 1; k <= n; ++k)
    if (!f(k)) return;
}

}  // namespace

void Simulation::Impl::init_cache() {
  const CacheSpec& cs = sc_.nodes.cache;
  if (!cs.enabled) return;
  cache_on_ = true;
  cache_per_node_ = shards_;
  const auto cap = static_cast<std::uint64_t>(cs.capacity_bytes / cache_per_node_);
  caches_.reserve(n_ * cache_per_node_);
  for (std::size_t i = 0; i < n_ * cache_per_node_; ++i) caches_.emplace_back(cap);
  disk_free_.assign(n_, 0);
  const DiskSpec& d = sc_.nodes.disk;
  disk_fixed_ns_ = d.read_iops > 0 ? 1e9 / d.read_iops : 0;
  disk_ns_per_byte_ = d.read_bandwidth > 0 ? 1e9 / d.read_bandwidth : 0;
  size_seed_ = root_.fork("partition_size").seed();
  size_constant_ = cs.partition_size.kind == DistKind::Constant;
  disk_rng_ = root_.fork("disk");
  if (cs.initial != CacheInitial::Warm) return;
  // Warm: as after a CL ALL read of every key in increasing popularity, each cache holds the keys
  // its node (shard) replicates, the most popular most recently used, up to its capacity.
  std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> plan(caches_.size());
  std::vector<std::uint64_t> room(caches_.size(), cap);
  std::vector<std::uint8_t> full(caches_.size(), 0);
  std::size_t open = caches_.size();
  keys_by_popularity(sc_.workload.keys, [&](std::int64_t id) {
    const Token t = token_of_key_id(id);
    const std::uint32_t bytes = partition_bytes(t);
    const std::uint32_t shard = cache_per_node_ > 1 ? shard_of_token(t) % cache_per_node_ : 0;
    for (const NodeId r : ring_.replicas(t, ReplicaOrder::Server)) {
      const std::size_t c = static_cast<std::size_t>(r) * cache_per_node_ + shard;
      if (full[c]) continue;
      if (bytes > room[c]) {  // the LRU would evict the more popular keys read before: full
        full[c] = 1;
        --open;
        continue;
      }
      room[c] -= bytes;
      plan[c].emplace_back(static_cast<std::uint64_t>(t), bytes);
    }
    return open > 0;
  });
  for (std::size_t c = 0; c < caches_.size(); ++c) {
    for (auto it = plan[c].rbegin(); it != plan[c].rend(); ++it) caches_[c].access(it->first, it->second);
    caches_[c].reset_counters();
  }
}

std::uint32_t Simulation::Impl::partition_bytes(Token t) const {
  const Dist& d = sc_.nodes.cache.partition_size;
  double v = d.a;
  if (!size_constant_) {
    // One draw per key, from a stream of its own seeded by (run seed, token): the same size at
    // every access, for every policy at this seed.
    std::uint64_t s = size_seed_ ^ (static_cast<std::uint64_t>(t) * 0x9e3779b97f4a7c15ULL);
    Rng r(splitmix64(s));
    v = d.sample_ns(r);
  }
  return static_cast<std::uint32_t>(std::clamp(std::round(v), 1.0, 4.0e9));
}

double Simulation::Impl::cache_access(std::uint32_t job, NodeId r, bool read, SimTime now) {
  Job& j = jobs_[job];
  const CoordReq& c = crs_[j.cr];
  const CacheSpec& cs = sc_.nodes.cache;
  if (j.disk_done) {  // back from the disk
    if (nodes_.went_down(r, j.epoch, now + 1)) {  // its reads were lost with the node
      drop_job(job);
      return -1;
    }
    return cs.miss.sample_ns(service_rng_);
  }
  const auto key = static_cast<std::uint64_t>(c.token);
  LruCache& cache = cache_of(r, j.owner);
  if (!read) {
    // An LWT's prepare and propose rounds write Paxos state; its commit (round 3) the partition.
    if (cs.writes == CacheWriteRule::Invalidate && (c.kind == OpKind::Write || j.phase == 3)) cache.erase(key);
    return sc_.nodes.write.sample_ns(service_rng_);
  }
  NodeCounters& k = nodes_.counters(r);
  std::uint32_t bytes = 0;
  bool hit;
  if (size_constant_) {
    bytes = partition_bytes(c.token);
    hit = cache.access(key, bytes);
  } else if (cache.contains(key)) {
    hit = cache.access(key, 0);
  } else {
    bytes = partition_bytes(c.token);
    hit = cache.access(key, bytes);
  }
  if (hit) {
    ++k.cache_hits;
    return cs.hit.sample_ns(service_rng_);
  }
  ++k.cache_misses;
  if (!sc_.nodes.disk.enabled) return cs.miss.sample_ns(service_rng_);
  const std::uint32_t a = cs.sstables_per_read;
  const double occupancy = static_cast<double>(a) * (disk_fixed_ns_ + static_cast<double>(bytes) * disk_ns_per_byte_);
  const auto occ = static_cast<SimTime>(occupancy + 0.5);
  SimTime& free = disk_free_[r];
  free = std::max(free, now) + occ;
  k.disk_reads += a;
  k.disk_busy += occ;
  j.disk_done = true;
  j.epoch = nodes_.epoch(r);
  q_.push(free + sc_.nodes.disk.latency.sample(disk_rng_), kReplicaArrive, job);
  return -1;
}

void Simulation::Impl::cache_node_restarted(NodeId n) {
  for (std::uint32_t s = 0; s < cache_per_node_; ++s) caches_[static_cast<std::size_t>(n) * cache_per_node_ + s].clear();
  // The disk reads it had queued are lost with the process: its queue empties now.
  if (disk_free_[n] > now_) {
    nodes_.counters(n).disk_busy -= disk_free_[n] - now_;
    disk_free_[n] = now_;
  }
}

void Simulation::Impl::cache_trim_snapshot(std::vector<NodeSnapshot>& snaps) const {
  // A disk is busy without a gap from its last idle instant to disk_free_: the reserved time after
  // now is exactly its tail.
  for (NodeId n = 0; n < n_; ++n)
    if (disk_free_[n] > now_) snaps[n].counters.disk_busy -= disk_free_[n] - now_;
}

}  // namespace lbsim
