// cluster.cache and cluster.disk (issue 37), a mechanism of the engine (sim/engine/mechanism.hpp;
// README.md beside this file): the replicas' read caches and the disk that serves their misses.
// One exact LRU (sim/cache/lru.hpp) per node, or per (node, shard) under per_shard, keyed by the
// partition's token; a miss reserves the node's disk at its arrival (FIFO, no event) and the job
// comes back as a kReplicaArrive with Job::parked_done when the disk is done. Made only with a
// cluster.cache: without one nothing here exists.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/cache/lru.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/cluster/topology.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/model_spec.hpp"
#include "sim/mech/cache/cache_spec.hpp"
#include "sim/engine/node_model.hpp"
#include "sim/engine/simulation.hpp"

namespace lbsim {

class CacheDisk final : public Mechanism {
 public:
  using Core = Simulation::Impl;
  CacheDisk(Core& core, std::uint16_t id);

  void on_event(std::uint16_t sub, std::uint32_t arg) override;  // none: the disk's returns are the core's
  const char* event_name(std::uint16_t) const override { return "cache.unknown"; }
  // The window's edges (mechanism.hpp): its own counters' snapshots, without the disks' reserved
  // tails.
  void window_open() override;
  void window_close() override;
  // RunResult::cache and each node's NodeResult::cache.
  void collect(RunResult& r) const override;
  void streams(std::vector<std::pair<std::string, const Rng*>>& out) const override { out.emplace_back("disk", &disk_rng_); }

  // The strategy replica_service (hooks.hpp): a replica's read or write of job's partition on
  // node r, before its CPU work: the CPU service to queue, or a negative value when the job went
  // to the disk (or was dropped) and returns later.
  double access(std::uint32_t job, NodeId r, bool read, SimTime now);
  // process_lost: a restart or a kill: the node's caches come back empty, its disk queue is lost.
  void node_restarted(NodeId n);

  // For tests (the core harness).
  LruCache& cache_of(NodeId n, std::uint32_t shard) {
    return caches_[static_cast<std::size_t>(n) * per_node_ + (per_node_ > 1 ? shard % per_node_ : 0)];
  }
  SimTime disk_free(NodeId n) const { return disk_free_[n]; }
  // Per node: replica reads (data and digest) that hit / missed the cache, the misses' disk reads,
  // and the disk's busy time (its queue's occupancy, counted when a read is queued); and the same
  // at the window's edges, without the disk's reserved tail after that instant.
  struct Counts {
    std::uint64_t hits = 0, misses = 0, disk_reads = 0;
    SimTime disk_busy = 0;
  };
  const Counts& counts(NodeId n) const { return counts_[n]; }
  Counts& counts(NodeId n) { return counts_[n]; }  // for tests: chosen counters
  const Counts& window_start(NodeId n) const { return start_[n]; }
  const Counts& window_end(NodeId n) const { return end_[n]; }
  std::uint32_t partition_bytes(Token t) const;

 private:
  void warm();  // CacheInitial::Warm
  // counts_ now, without each disk's reads reserved after now (a snapshot counts up to now).
  void snapshot(std::vector<Counts>& out) const;

  Core& core_;
  const CacheSpec& cs_;
  const DiskSpec& disk_;
  std::uint32_t per_node_ = 1;      // caches per node: the core's shards under per_shard, else 1
  std::vector<LruCache> caches_;    // node-major
  std::vector<SimTime> disk_free_;  // per node: when its disk has served every read reserved
  std::vector<Counts> counts_, start_, end_;  // per node
  double disk_fixed_ns_ = 0;        // per disk read: 1 / read_iops
  double disk_ns_per_byte_ = 0;     // 1 / read_bandwidth
  std::uint64_t size_seed_ = 0;     // partition sizes: one draw per key from (seed, token)
  bool size_constant_ = true;
  Rng disk_rng_;
};

}  // namespace lbsim
