// cluster.cache and cluster.disk (issue 37): their parser, keys and checks, compiled into
// lbsim_config (sim/mech/specs.inc; configs/README.md "cluster.cache" gives every default's
// source). The cache's read costs default to the node model's service.read, its write rule to its
// server's.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"
#include "sim/config/scenario_parts.hpp"
#include "sim/mech/cache/cache_spec.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;
using scenario_detail::parse_dist;

namespace {
constexpr double kMaxBytes = 4.0e9;  // an entry's size is a uint32 (sim/cache/lru.hpp)

// A size distribution in bytes: parse_dist's forms with bytes for microseconds ("bytes",
// "mean_bytes", "p99_bytes"; values in [1, kMaxBytes]).
Dist parse_bytes_dist(const Json& j, const std::string& path) {
  return scenario_detail::parse_dist_in(j, path, scenario_detail::DistUnit{"bytes", "bytes", 1, 1, 1, kMaxBytes});
}
}  // namespace

void parse_cache_spec(const MechSpecInput& in, MechSpecs& out) {
  out.clear(MechSpecs::k_cache);
  const Json* cj = in.cluster.find("cache");
  const Json* dj = in.cluster.find("disk");
  if (dj && !cj) jsonin::fail(in.cluster.path_of("disk"), "queues the misses of a cache: it needs \"cluster.cache\"");
  if (!cj) return;
  const NodeModelSpec& s = in.nodes;
  Object co(*cj, in.cluster.path_of("cache"), {"capacity_mb", "partition_size", "read", "sstables_per_read", "writes", "initial"});
  CacheSpec c;
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
  if (dj) {
    Object d(*dj, in.cluster.path_of("disk"), {"read_iops", "read_bandwidth", "latency"});
    DiskSpec& k = c.disk;
    k.enabled = true;
    // Required: iotune measures them per machine (io_properties.yaml); 0 removes that bound.
    k.read_iops = d.number("read_iops", 0, 1e9);
    k.read_bandwidth = d.number("read_bandwidth", 0, 1e12);
    if (const Json* l = d.find("latency")) k.latency = parse_dist(*l, d.path_of("latency"));
  }
  out.set(MechSpecs::k_cache, std::move(c));
}

const std::vector<MechKey>& cache_spec_keys() {
  static const std::vector<MechKey> keys{{MechSection::Cluster, "cache"}, {MechSection::Cluster, "disk"}};
  return keys;
}

// Not modelled (configs/README.md "cluster.cache"): the warm start enumerates the key population on
// the vnode ring at t = 0, which a tablet map or a trace does not give.
void cache_spec_check(const Scenario& sc) {
  if (!sc.mech.get<CacheSpec>(MechSpecs::k_cache)) return;
  if (sc.tablet_map)
    jsonin::fail("/cluster/cache", "is not modelled on a tablet keyspace (keyspace.tablets); use a vnode keyspace");
  if (sc.workload.trace) jsonin::fail("/cluster/cache", "is not modelled with a trace (workload.trace); use workload.keys");
}

void cache_warmup(const Scenario&, SimTime, std::vector<std::string>&) {}

}  // namespace lbsim
