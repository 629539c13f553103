// cluster.cache and cluster.disk (issue 37): the replicas' read caches and the disk that serves
// their misses, a mechanism of the engine (sim/engine/mechanism.hpp). configs/README.md
// "cluster.cache" gives each parameter's source.
//
// A replica read (data or digest, and the read round of a lightweight transaction) looks its
// partition up in the cache of the node (per_shard: of the shard owning the token):
// - hit: the CPU work is `read.hit`;
// - miss: the entry is inserted (exact LRU, sim/cache/lru.hpp), the node's disk serves
//   `sstables_per_read` reads in arrival order (each occupies it for 1/read_iops +
//   bytes/read_bandwidth, reserved at arrival, so the FIFO costs no event), the device latency
//   follows outside the queue, and the job comes back (kReplicaArrive, Job::parked_done) for its CPU
//   work `read.miss` in the owner shard's queue; pauses, downs and restarts meanwhile are handled
//   as for any arriving job.
// Writes (and an LWT's commit round) follow `writes`: update keeps a cached entry as it is
// (ScyllaDB merges the flushed memtable into it, without touching its recency or inserting an
// absent key: scylladb/scylladb f4a4091ca2 db/row_cache.cc row_cache::update); invalidate drops it
// (Cassandra's row cache: apache/cassandra 00022bfa61 db/ColumnFamilyStore.java apply() calls
// invalidateCachedPartition after the memtable put).
// A restart or a kill empties the node's caches (its process, and so its memory, is gone).
#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/cluster/routing_key.hpp"
#include "sim/engine/sim_impl.hpp"
#include "sim/mech/cache/cache.hpp"

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

std::unique_ptr<Mechanism> make_cache(CacheDisk::Core& core, std::uint16_t id) {
  if (!core.sc_.mech.get<CacheSpec>(MechSpecs::k_cache)) return nullptr;
  return std::make_unique<CacheDisk>(core, id);
}

CacheDisk::CacheDisk(Core& core, std::uint16_t)
    : core_(core), cs_(*core.sc_.mech.get<CacheSpec>(MechSpecs::k_cache)), disk_(cs_.disk), disk_rng_(core.root_.fork("disk")) {
  per_node_ = core.shards_;
  const std::size_t nodes = core.n_;
  const auto cap = static_cast<std::uint64_t>(cs_.capacity_bytes / per_node_);
  caches_.reserve(nodes * per_node_);
  for (std::size_t i = 0; i < nodes * per_node_; ++i) caches_.emplace_back(cap);
  disk_free_.assign(nodes, 0);
  counts_.assign(nodes, {});
  start_.assign(nodes, {});
  end_.assign(nodes, {});
  disk_fixed_ns_ = disk_.read_iops > 0 ? 1e9 / disk_.read_iops : 0;
  disk_ns_per_byte_ = disk_.read_bandwidth > 0 ? 1e9 / disk_.read_bandwidth : 0;
  size_seed_ = core.root_.fork("partition_size").seed();
  size_constant_ = cs_.partition_size.kind == DistKind::Constant;
  core.result_.timeline.enable_cache();
  if (cs_.initial == CacheInitial::Warm) warm();

  Hooks& k = core.hooks_;
  if (k.replica_service) check_fail("replica_service has another owner", 0);
  k.replica_service = {[](void* s, std::uint32_t job, NodeId r, bool read, SimTime now) {
                         return static_cast<CacheDisk*>(s)->access(job, r, read, now);
                       },
                       this};
  // Listed before HWLB: its process_lost subscriber sees the cache already empty.
  k.process_lost.add(this, [](void* s, NodeId n) { static_cast<CacheDisk*>(s)->node_restarted(n); });
}

// Warm: as after a CL ALL read of every key in increasing popularity, each cache holds the keys
// its node (shard) replicates, the most popular most recently used, up to its capacity.
void CacheDisk::warm() {
  const auto cap = static_cast<std::uint64_t>(cs_.capacity_bytes / per_node_);
  std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> plan(caches_.size());
  std::vector<std::uint64_t> room(caches_.size(), cap);
  std::vector<std::uint8_t> full(caches_.size(), 0);
  std::size_t open = caches_.size();
  keys_by_popularity(core_.sc_.workload.keys, [&](std::int64_t id) {
    const Token t = token_of_key_id(id);
    const std::uint32_t bytes = partition_bytes(t);
    const std::uint32_t shard = per_node_ > 1 ? core_.shard_of_token(t) % per_node_ : 0;
    for (const NodeId r : core_.ring_.replicas(t, ReplicaOrder::Server)) {
      const std::size_t c = static_cast<std::size_t>(r) * per_node_ + shard;
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

void CacheDisk::on_event(std::uint16_t sub, std::uint32_t) { check_fail("the cache has no events of its own", sub); }

std::uint32_t CacheDisk::partition_bytes(Token t) const {
  const Dist& d = cs_.partition_size;
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

double CacheDisk::access(std::uint32_t job, NodeId r, bool read, SimTime now) {
  Core& core = core_;
  auto& j = core.jobs_[job];
  const auto& c = core.crs_[j.cr];
  if (j.parked_done) {  // back from the disk
    if (core.nodes_.went_down(r, j.epoch, now + 1)) {  // its reads were lost with the node
      core.drop_job(job);
      return -1;
    }
    return cs_.miss.sample_ns(core.service_rng_);
  }
  const auto key = static_cast<std::uint64_t>(c.token);
  LruCache& cache = cache_of(r, j.owner);
  if (!read) {
    // An LWT's prepare and propose rounds write Paxos state; its commit (round 3) the partition.
    if (cs_.writes == CacheWriteRule::Invalidate && (c.kind == OpKind::Write || j.phase == 3)) cache.erase(key);
    return core.sc_.nodes.write.sample_ns(core.service_rng_);
  }
  Counts& k = counts_[r];
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
  if (core.window_open_ && !core.window_closed_) core.result_.timeline.record_cache(now - core.window_start_, r, hit);
  if (hit) {
    ++k.hits;
    return cs_.hit.sample_ns(core.service_rng_);
  }
  ++k.misses;
  if (!disk_.enabled) return cs_.miss.sample_ns(core.service_rng_);
  const std::uint32_t a = cs_.sstables_per_read;
  const double occupancy = static_cast<double>(a) * (disk_fixed_ns_ + static_cast<double>(bytes) * disk_ns_per_byte_);
  const auto occ = static_cast<SimTime>(occupancy + 0.5);
  SimTime& free = disk_free_[r];
  free = std::max(free, now) + occ;
  k.disk_reads += a;
  k.disk_busy += occ;
  j.parked_done = true;
  j.epoch = core.nodes_.epoch(r);
  core.q_.push(free + disk_.latency.sample(disk_rng_), Core::kReplicaArrive, job);
  return -1;
}

void CacheDisk::node_restarted(NodeId n) {
  for (std::uint32_t s = 0; s < per_node_; ++s) caches_[static_cast<std::size_t>(n) * per_node_ + s].clear();
  // The disk reads it had queued are lost with the process: its queue empties now.
  const SimTime now = core_.now_;
  if (disk_free_[n] > now) {
    counts_[n].disk_busy -= disk_free_[n] - now;
    disk_free_[n] = now;
  }
}

void CacheDisk::snapshot(std::vector<Counts>& out) const {
  out = counts_;
  // A disk is busy without a gap from its last idle instant to disk_free_: the reserved time after
  // now is exactly its tail.
  const SimTime now = core_.now_;
  for (NodeId n = 0; n < core_.n_; ++n)
    if (disk_free_[n] > now) out[n].disk_busy -= disk_free_[n] - now;
}

void CacheDisk::window_open() { snapshot(start_); }
void CacheDisk::window_close() { snapshot(end_); }

void CacheDisk::collect(RunResult& r) const {
  const std::size_t nodes = core_.n_;
  CacheSummary c;
  const double window_s = static_cast<double>(std::max<SimTime>(r.window, 1)) / 1e9;
  std::uint64_t hits = 0, misses = 0, most = 0;
  for (NodeId n = 0; n < nodes; ++n) {
    const Counts& a = start_[n];
    const Counts& b = end_[n];
    hits += b.hits - a.hits;
    misses += b.misses - a.misses;
    most = std::max(most, b.misses - a.misses);
  }
  c.hit_rate = hits + misses > 0 ? static_cast<double>(hits) / static_cast<double>(hits + misses) : 0.0;
  c.misses_per_s = static_cast<double>(misses) / window_s;
  c.miss_overcommit = misses > 0 ? static_cast<double>(most) * static_cast<double>(nodes) / static_cast<double>(misses) : 0.0;
  std::vector<std::uint64_t> keys;
  for (const LruCache& x : caches_) {
    const auto k = x.keys_mru_first();
    keys.insert(keys.end(), k.begin(), k.end());
  }
  const std::size_t entries = keys.size();
  std::sort(keys.begin(), keys.end());
  c.keys_cached = static_cast<std::uint64_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
  c.copies_per_key = c.keys_cached > 0 ? static_cast<double>(entries) / static_cast<double>(c.keys_cached) : 0.0;
  r.cache = c;
  // Each node's figures in the window (NodeResult::cache).
  const double window = static_cast<double>(std::max<SimTime>(r.window, 1));
  for (NodeId n = 0; n < nodes && n < r.nodes.size(); ++n) {
    const Counts& a = start_[n];
    const Counts& b = end_[n];
    NodeCache nc;
    nc.hits = b.hits - a.hits;
    nc.misses = b.misses - a.misses;
    nc.disk_reads = b.disk_reads - a.disk_reads;
    const std::uint64_t lookups = nc.hits + nc.misses;
    nc.hit_rate = lookups > 0 ? static_cast<double>(nc.hits) / static_cast<double>(lookups) : 0.0;
    nc.misses_per_s = static_cast<double>(nc.misses) / (window / 1e9);
    nc.disk_utilization = static_cast<double>(b.disk_busy - a.disk_busy) / window;
    r.nodes[n].cache = nc;
  }
}

}  // namespace lbsim
