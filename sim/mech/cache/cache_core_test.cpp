// The cache and disk through the core harness (tests/core/harness.hpp): the replica_service
// strategy called directly with chosen jobs, tokens and times; process_lost fired and the window's
// edges opened by hand. Every expected time follows from the scenario's numbers below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/harness.hpp"
#include "sim/mech/cache/cache.hpp"

namespace lbsim {
namespace {

// One node, RF 1, cold cache with room for two 1,000-byte partitions (2,500 bytes), 2 sstables
// per read, read CPU 5 us on a hit and 30 us on a miss, write CPU 50 us; a disk of 10,000 reads/s
// and 1e7 bytes/s with 50 us of device latency. A disk read occupies the disk for
// 1e9 / 10,000 = 100,000 ns plus 1,000 B x 1e9 / 1e7 = 100,000 ns: a miss (2 reads) 400 us.
Scenario one_node(const std::vector<std::string>& sets = {}) {
  return testing::build(jsonin::Json::parse(R"({
    "name": "cache-core", "seed": 3,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 8, "shards": 1,
                "service": {"coordinator": 20, "read": 100, "write": 50},
                "cache": {"capacity_mb": 0.00238418579, "partition_size": 1000, "initial": "cold",
                          "sstables_per_read": 2, "read": {"hit": 5, "miss": 30}},
                "disk": {"read_iops": 10000, "read_bandwidth": 10000000, "latency": 50}},
    "keyspace": {"class": "SimpleStrategy", "rf": 1},
    "client": {"dc": "dc1", "threads": 1},
    "workload": {"ops": 10, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })"), sets);
}

constexpr SimTime kMissDisk = 400 * kUs;  // 2 x (100 us + 100 us)
constexpr SimTime kLatency = 50 * kUs;

// A read (or a write) of `token` coordinated and served by node 0: its job's slot.
std::uint32_t job_of(testing::CoreHarness& h, Token token, OpKind kind = OpKind::Read) {
  const auto [cr, job] = h.read_job(0, 0);
  h.core().crs_[cr].kind = kind;
  h.core().crs_[cr].token = token;
  h.core().crs_[cr].outstanding = 1;
  return job;
}

TEST(CacheCore, AMissParksTheJobOnTheDiskAndAHitReturnsTheHitCpu) {
  testing::CoreHarness h(one_node());
  auto& core = h.core();
  CacheDisk* c = h.mechanism<CacheDisk>();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(core.hooks_.replica_service);
  ASSERT_TRUE(core.q_.empty());
  const SimTime t0 = 1 * kMs;
  h.set_now(t0);

  // A miss: the disk is busy 400 us from now, and the job comes back after the device latency.
  const std::uint32_t a = job_of(h, 101);
  EXPECT_LT(core.hooks_.replica_service(a, 0, true, t0), 0.0);
  EXPECT_TRUE(core.jobs_[a].parked_done);
  EXPECT_EQ(c->disk_free(0), t0 + kMissDisk);
  const CacheDisk::Counts& k = c->counts(0);
  EXPECT_EQ(k.misses, 1u);
  EXPECT_EQ(k.disk_reads, 2u);
  EXPECT_EQ(k.disk_busy, kMissDisk);
  ASSERT_EQ(core.q_.size(), 1u);
  const auto e = core.q_.pop();
  EXPECT_EQ(e.at, t0 + kMissDisk + kLatency);
  EXPECT_EQ(e.type(), Simulation::Impl::kReplicaArrive);
  EXPECT_EQ(e.id(), a);

  // A second miss at the same instant queues behind the first (FIFO): its reads end at 800 us.
  const std::uint32_t b = job_of(h, 202);
  EXPECT_LT(core.hooks_.replica_service(b, 0, true, t0), 0.0);
  EXPECT_EQ(c->disk_free(0), t0 + 2 * kMissDisk);
  EXPECT_EQ(core.q_.pop().at, t0 + 2 * kMissDisk + kLatency);

  // Back from the disk: the miss's CPU, 30 us.
  h.set_now(t0 + kMissDisk + kLatency);
  EXPECT_DOUBLE_EQ(core.hooks_.replica_service(a, 0, true, core.now_), 30000.0);
  // The first key is cached now: a read of it hits (5 us of CPU) and leaves the disk alone.
  const std::uint32_t h1 = job_of(h, 101);
  EXPECT_DOUBLE_EQ(core.hooks_.replica_service(h1, 0, true, core.now_), 5000.0);
  EXPECT_FALSE(core.jobs_[h1].parked_done);
  EXPECT_EQ(k.hits, 1u);
  EXPECT_EQ(k.misses, 2u);
  EXPECT_EQ(c->disk_free(0), t0 + 2 * kMissDisk);
  EXPECT_TRUE(core.q_.empty());
  // A third key evicts the least recently used (202; 101 was just read): room for two.
  const std::uint32_t d = job_of(h, 303);
  EXPECT_LT(core.hooks_.replica_service(d, 0, true, core.now_), 0.0);
  EXPECT_TRUE(c->cache_of(0, 0).contains(101));
  EXPECT_FALSE(c->cache_of(0, 0).contains(202));
  EXPECT_TRUE(c->cache_of(0, 0).contains(303));
}

TEST(CacheCore, WritesKeepOrDropTheCachedEntryByTheRule) {
  for (const bool invalidate : {false, true}) {
    testing::CoreHarness h(one_node({std::string("cluster.cache.writes=\"") + (invalidate ? "invalidate" : "update") + "\""}));
    auto& core = h.core();
    CacheDisk* c = h.mechanism<CacheDisk>();
    ASSERT_NE(c, nullptr);
    const std::uint32_t r = job_of(h, 7);
    ASSERT_LT(core.hooks_.replica_service(r, 0, true, 0), 0.0);
    ASSERT_TRUE(c->cache_of(0, 0).contains(7));
    // A write: the node's write CPU (50 us), no disk, and the entry kept (update) or dropped.
    const std::uint32_t w = job_of(h, 7, OpKind::Write);
    EXPECT_DOUBLE_EQ(core.hooks_.replica_service(w, 0, false, 0), 50000.0) << invalidate;
    EXPECT_EQ(c->cache_of(0, 0).contains(7), !invalidate);
    EXPECT_EQ(c->counts(0).disk_reads, 2u);  // the read's only
  }
}

TEST(CacheCore, ProcessLostEmptiesTheCacheAndTheDiskQueue) {
  testing::CoreHarness h(one_node());
  auto& core = h.core();
  CacheDisk* c = h.mechanism<CacheDisk>();
  ASSERT_NE(c, nullptr);
  const SimTime t0 = 1 * kMs;
  h.set_now(t0);
  const std::uint32_t a = job_of(h, 101);
  const std::uint32_t b = job_of(h, 202);
  ASSERT_LT(core.hooks_.replica_service(a, 0, true, t0), 0.0);
  ASSERT_LT(core.hooks_.replica_service(b, 0, true, t0), 0.0);
  ASSERT_EQ(c->cache_of(0, 0).size(), 2u);
  ASSERT_EQ(c->counts(0).disk_busy, 2 * kMissDisk);

  // A kill 200 us later (the core marks the node down, then fires process_lost): the caches are
  // empty and the 600 us of reads still queued leave the disk's busy time.
  const SimTime t1 = t0 + 200 * kUs;
  h.set_now(t1);
  core.nodes_.set_down(0, t1);
  core.hooks_.process_lost.fire(0);
  EXPECT_EQ(c->cache_of(0, 0).size(), 0u);
  EXPECT_EQ(c->disk_free(0), t1);
  EXPECT_EQ(c->counts(0).disk_busy, 200 * kUs);

  // The first job's return finds its node gone since it went to the disk: it is dropped.
  const std::uint32_t cr = core.jobs_[a].cr;
  h.set_now(t0 + kMissDisk + kLatency);
  EXPECT_LT(core.hooks_.replica_service(a, 0, true, core.now_), 0.0);
  EXPECT_EQ(core.crs_[cr].outstanding, 0u);
}

TEST(CacheCore, TheWindowsEdgesCountTheDiskOnlyUpToNow) {
  testing::CoreHarness h(one_node());
  auto& core = h.core();
  CacheDisk* c = h.mechanism<CacheDisk>();
  ASSERT_NE(c, nullptr);
  const SimTime t0 = 1 * kMs;
  h.set_now(t0);
  ASSERT_LT(core.hooks_.replica_service(job_of(h, 101), 0, true, t0), 0.0);
  ASSERT_LT(core.hooks_.replica_service(job_of(h, 202), 0, true, t0), 0.0);
  // 500 us after the two misses arrived, the disk has worked 500 of its 800 us.
  const SimTime t1 = t0 + 500 * kUs;
  h.set_now(t1);
  c->window_open();
  EXPECT_EQ(c->window_start(0).disk_busy, 500 * kUs);
  EXPECT_EQ(c->counts(0).disk_busy, 2 * kMissDisk);  // the live counter keeps the reservation
  const SimTime t2 = t0 + 700 * kUs;
  h.set_now(t2);
  c->window_close();
  EXPECT_EQ(c->window_end(0).disk_busy, 700 * kUs);
}

}  // namespace
}  // namespace lbsim
