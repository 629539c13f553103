// Scenario sections of issue 37's node caches: cluster.cache and cluster.disk (configs/README.md,
// "cluster.cache"; every default's source is given there).
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "sim/config/scenario_parts.hpp"

namespace lbsim::scenario_detail {

using jsonin::Object;

namespace {
constexpr double kMaxBytes = 4.0e9;  // an entry's size is a uint32 (sim/cache/lru.hpp)

// A size distribution in bytes: parse_dist's forms with bytes for microseconds ("bytes",
// "mean_bytes", "p99_bytes"; values in [1, kMaxBytes]).
Dist parse_bytes_dist(const Json& j, const std::string& path) {
  return parse_dist_in(j, path, DistUnit{"bytes", "bytes", 1, 1, 1, kMaxBytes});
}
}  // namespace

void parse_cache_disk(const Json& cluster, const std::string& path, NodeModelSpec& s) {
  const Json* cj = cluster.is_object() && cluster.contains("cache") ? &cluster["cache"] : nullptr;
  const Json* dj = cluster.is_object() && cluster.contains("disk") ? &cluster["disk"] : nullptr;
  if (dj && !cj)
    jsonin::fail(jsonin::key_path(path, "disk"), "queues the misses of a cache: it needs \"cluster.cache\"");
  if (!cj) return;
  const std::string cp = jsonin::key_path(path, "cache");
  Object co(*cj, cp, {"capacity_mb", "partition_size", "read", "sstables_per_read", "writes", "initial"});
  CacheSpec& c = s.cache;
  c.enabled = true;
  // Required: a node's cache is what its memory leaves (ScyllaDB gives the row cache the shard's
  // free memory; scylla_cache_bytes_total measures it), so no default fits every machine.
  c.capacity_bytes = co.number("capacity_mb", 1e-6, 1e9) * 1048576.0;
  if (const Json* ps = co.find("partition_size")) c.partition_size = parse_bytes_dist(*ps, co.path_of("partition_size"));
  // Without read costs of its own the cache takes the node's read service for both (no published
  // split of a hit's and a miss's CPU; configs/README.md).
  c.hit = s.read;
  c.miss = s.read;
  if (const Json* rd = co.find("read")) {
    Object ro(*rd, co.path_of("read"), {"hit", "miss"});
    if (const Json* d = ro.find("hit")) c.hit = parse_dist(*d, ro.path_of("hit"));
    if (const Json* d = ro.find("miss")) c.miss = parse_dist(*d, ro.path_of("miss"));
  }
  c.sstables_per_read = static_cast<std::uint32_t>(co.integer("sstables_per_read", 1, 1000, 1));
  // ScyllaDB merges a flushed memtable into the cached partitions (row_cache::update); Cassandra's
  // row cache drops a written partition (ColumnFamilyStore.apply: invalidateCachedPartition).
  // configs/README.md.
  const CacheWriteRule dflt_writes = server_rules(s.server).scylla || s.server == ServerRelease::Unspecified
                                         ? CacheWriteRule::Update
                                         : CacheWriteRule::Invalidate;
  c.writes = co.choice<CacheWriteRule>("writes", {{"update", CacheWriteRule::Update}, {"invalidate", CacheWriteRule::Invalidate}},
                                       dflt_writes);
  c.initial = co.choice<CacheInitial>("initial", {{"warm", CacheInitial::Warm}, {"cold", CacheInitial::Cold}},
                                      CacheInitial::Warm);
  if (!dj) return;
  const std::string dp = jsonin::key_path(path, "disk");
  Object d(*dj, dp, {"read_iops", "read_bandwidth", "latency"});
  DiskSpec& k = s.disk;
  k.enabled = true;
  // Required: iotune measures them per machine (io_properties.yaml); 0 removes that bound.
  k.read_iops = d.number("read_iops", 0, 1e9);
  k.read_bandwidth = d.number("read_bandwidth", 0, 1e12);
  if (const Json* l = d.find("latency")) k.latency = parse_dist(*l, d.path_of("latency"));
}

}  // namespace lbsim::scenario_detail
