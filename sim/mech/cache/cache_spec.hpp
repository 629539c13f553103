// The node caches' spec (cluster.cache and cluster.disk, issue 37; parsed by cache_config.cpp into
// its MechSpecs slot, present only with cluster.cache). A read cache per node, split into equal
// per-shard caches under the per_shard discipline (a key lives in its owning shard's cache:
// ScyllaDB's row cache is per shard, scylladb/scylladb row_cache.hh). Without it reads cost
// NodeModelSpec::read and nothing below runs. configs/README.md "cluster.cache" gives each field's
// source.
#pragma once
#include <cstdint>

#include "sim/workload/distribution.hpp"

namespace lbsim {

enum class CacheWriteRule : std::uint8_t {
  Update,      // a write to a cached partition updates the entry in place (it stays cached)
  Invalidate,  // a write drops the partition's entry (the next read misses)
};
enum class CacheInitial : std::uint8_t {
  Warm,  // at t = 0 each cache holds the keys its node replicates, most popular last (as after a
         // CL ALL warm-up that read every key), up to its capacity
  Cold,  // empty
};

// cluster.disk: one disk per node that queues the cache misses' reads (FIFO, in arrival order).
// Each read occupies it for 1/read_iops + bytes/read_bandwidth (the two capacities of ScyllaDB's
// I/O scheduler, measured by iotune: io_properties.yaml read_iops, read_bandwidth) and then takes
// the device latency outside the queue. Only with cluster.cache.
struct DiskSpec {
  bool enabled = false;
  double read_iops = 0;       // reads per second; 0: no IOPS bound
  double read_bandwidth = 0;  // bytes per second; 0: no bandwidth bound
  Dist latency = Dist::constant(0);
};

struct CacheSpec {
  double capacity_bytes = 0;                      // per node (per_shard: capacity / shards per shard)
  Dist partition_size = Dist::constant(1024);     // bytes per cached partition, one draw per key
  Dist hit = Dist::lognormal(200000, 1000000);    // replica read CPU on a cache hit
  Dist miss = Dist::lognormal(200000, 1000000);   // replica read CPU on a miss (the disk reads add to it)
  std::uint32_t sstables_per_read = 1;            // A: disk reads per miss
  CacheWriteRule writes = CacheWriteRule::Update;
  CacheInitial initial = CacheInitial::Warm;
  DiskSpec disk;                                  // cluster.disk
};

}  // namespace lbsim
