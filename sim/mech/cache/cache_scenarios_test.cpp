// cluster.cache and cluster.disk in whole runs (issue 37, sim/mech/cache/cache.cpp): hit and miss
// counts against small deterministic cases, the disk's FIFO arithmetic, the write rules, the warm
// and cold starts, restarts, and which replica reads touch the cache.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <string>

#include <fmt/format.h>

#include "sim/report/html_report.hpp"
#include "sim/runner/sweep.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/report_text.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// `nodes` nodes in one rack, RF `rf`, one shard, constant CPU (coordinator 0, read and write
// 20 us), no network, no client cost; reads only at CL ONE over `keys` uniform keys unless patched.
// The cache entries are 1,000 bytes, so capacity_mb = entries x 1000 / 1048576.
jsonin::Json doc(int nodes = 1, int rf = 1, std::uint64_t ops = 20000) {
  std::string ns;
  for (int i = 0; i < nodes; ++i)
    ns += std::string(i ? "," : "") + R"({"id": "n)" + std::to_string(i + 1) + R"(", "dc": "dc1", "rack": "r1"})";
  return jsonin::Json::parse(R"({
    "name": "cache", "seed": 5,
    "cluster": {"nodes": [)" + ns + R"(], "num_tokens": 8, "shards": 1,
                "service": {"coordinator": 0, "read": 20, "write": 20},
                "cache": {"capacity_mb": 1, "partition_size": 1000, "initial": "cold"}},
    "keyspace": {"class": "SimpleStrategy", "rf": )" + std::to_string(rf) + R"(},
    "network": {"same_rack": 0, "same_dc": 0, "cross_dc": 0},
    "client": {"dc": "dc1", "threads": 4, "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0,
               "thread_local_draw_ns": 0, "shared_draw_ns": 0, "line_transfer_ns": 0},
    "workload": {"ops": )" + std::to_string(ops) + R"(, "warmup_ops": 0, "mix": {"read": 1},
                 "consistency": {"read": "ONE", "write": "ONE"}, "keys": {"count": 100}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}},
                 {"name": "random", "policy": {"type": "TokenAware", "ordering": "RANDOM",
                                               "child": {"type": "RoundRobin"}}}]
  })");
}

// Room for `entries` entries of 1,000 bytes (and half of one more: no rounding loses one).
std::string mb_for(double entries) { return fmt::format("{:.12g}", (entries * 1000.0 + 500.0) / 1048576.0); }

NodeCache total(const RunResult& r) {
  NodeCache t;
  for (const NodeResult& n : r.nodes) {
    EXPECT_TRUE(n.cache.has_value()) << n.id;
    if (!n.cache) continue;
    t.hits += n.cache->hits;
    t.misses += n.cache->misses;
    t.disk_reads += n.cache->disk_reads;
  }
  return t;
}

TEST(CacheEngine, NoCacheNoCacheReport) {
  jsonin::Json d = doc();
  d["cluster"].erase("cache");
  const RunResult r = run_first(build(d));
  EXPECT_FALSE(r.nodes[0].cache.has_value());
}

TEST(CacheEngine, ColdCacheThatHoldsEveryKeyMissesOncePerKey) {
  // 100 keys of 1,000 bytes in room for 100: each key misses at its first read only.
  const RunResult r = run_first(build(doc(), {"cluster.cache.capacity_mb=" + mb_for(100)}));
  const NodeCache t = total(r);
  EXPECT_EQ(t.misses, 100u);
  EXPECT_EQ(t.hits + t.misses, 20000u);
  EXPECT_EQ(r.nodes[0].replica_reads, 20000u);
}

TEST(CacheEngine, UniformKeysHitAtCapacityOverKeys) {
  // An LRU under independent uniform requests holds C of N keys, each equally likely to be asked:
  // the hit rate is C/N (= 0.3 here) whatever the order.
  const RunResult r = run_first(build(doc(1, 1, 200000), {"cluster.cache.capacity_mb=" + mb_for(30)}));
  EXPECT_NEAR(r.nodes[0].cache->hit_rate, 0.30, 0.01);
  // An entry larger than the cache is never inserted: every read misses.
  const RunResult none = run_first(build(doc(), {"cluster.cache.capacity_mb=0.0001"}));
  EXPECT_EQ(total(none).hits, 0u);
}

TEST(CacheEngine, DiskUtilizationIsMissRateTimesReadsOverIops) {
  // Every read misses (entries do not fit); an open loop of 1,000 reads/s, A = 2 sstables per read:
  // the IOPS-bound disk is busy 1000 x 2 / 10000 = 0.2 of the time; the bandwidth adds
  // 1000 x 2 x 1000 B / 1e7 B/s = 0.2.
  jsonin::Json d = doc(1, 1, 50000);
  d["client"].erase("threads");
  d["client"]["rate_ops_s"] = 1000;
  const std::vector<std::string> base{"cluster.cache.capacity_mb=0.0001", "cluster.cache.sstables_per_read=2"};
  auto sets = base;
  sets.emplace_back("cluster.disk={\"read_iops\": 10000, \"read_bandwidth\": 0}");
  const RunResult r = run_first(build(d, sets));
  const NodeCache& c = *r.nodes[0].cache;
  EXPECT_EQ(c.disk_reads, 2 * c.misses);
  EXPECT_NEAR(c.disk_utilization, 0.2, 0.01);
  sets = base;
  sets.emplace_back("cluster.disk={\"read_iops\": 10000, \"read_bandwidth\": 1e7}");
  EXPECT_NEAR(run_first(build(d, sets)).nodes[0].cache->disk_utilization, 0.4, 0.015);
}

TEST(CacheEngine, OneThreadMissCostsDiskThenLatencyThenMissCpu) {
  // One closed-loop thread, no queueing: an operation takes 2 x (1/10000 s) on the disk, 50 us of
  // device latency and 30 us of miss CPU = 280 us, so 1e6 / 280 = 3571.4 op/s.
  jsonin::Json d = doc(1, 1, 5000);
  d["client"]["threads"] = 1;
  const RunResult r = run_first(build(d, {"cluster.cache.capacity_mb=0.0001", "cluster.cache.sstables_per_read=2",
                                          "cluster.cache.read={\"hit\": 5, \"miss\": 30}",
                                          "cluster.disk={\"read_iops\": 10000, \"read_bandwidth\": 0, \"latency\": 50}"}));
  EXPECT_NEAR(r.throughput(), 1e6 / 280.0, 1e6 / 280.0 * 0.005);
  EXPECT_NEAR(r.nodes[0].cache->disk_utilization, 200.0 / 280.0, 0.01);
  // All hits (every key fits, warm): 5 us of hit CPU each.
  const RunResult h = run_first(build(d, {"cluster.cache.capacity_mb=1", "cluster.cache.initial=\"warm\"",
                                          "cluster.cache.read={\"hit\": 5, \"miss\": 30}",
                                          "cluster.disk={\"read_iops\": 10000, \"read_bandwidth\": 0, \"latency\": 50}"}));
  EXPECT_EQ(h.nodes[0].cache->misses, 0u);
  EXPECT_NEAR(h.throughput(), 1e6 / 5.0, 1e6 / 5.0 * 0.005);
}

TEST(CacheEngine, WritesUpdateOrInvalidate) {
  // Warm, every key fits, half reads and half writes on uniform keys. update: writes leave the
  // entries cached, nothing misses. invalidate: a read misses when the key's previous operation
  // was a write, probability 1/2.
  const std::vector<std::string> sets{"cluster.cache.initial=\"warm\"", "workload.mix={\"read\": 1, \"write\": 1}"};
  auto upd = sets;
  upd.emplace_back("cluster.cache.writes=\"update\"");
  const RunResult u = run_first(build(doc(1, 1, 100000), upd));
  EXPECT_EQ(u.nodes[0].cache->misses, 0u);
  EXPECT_GT(u.nodes[0].cache->hits, 45000u);
  auto inv = sets;
  inv.emplace_back("cluster.cache.writes=\"invalidate\"");
  EXPECT_NEAR(run_first(build(doc(1, 1, 100000), inv)).nodes[0].cache->hit_rate, 0.5, 0.01);
}

TEST(CacheEngine, WriteRuleDefaultsFollowTheServer) {
  EXPECT_EQ(build(doc(), {"cluster.server=\"scylla-2025.1\""}).mech.get<CacheSpec>(MechSpecs::k_cache)->writes, CacheWriteRule::Update);
  EXPECT_EQ(build(doc(), {"cluster.server=\"cassandra-4.1\""}).mech.get<CacheSpec>(MechSpecs::k_cache)->writes, CacheWriteRule::Invalidate);
  EXPECT_EQ(build(doc()).mech.get<CacheSpec>(MechSpecs::k_cache)->writes, CacheWriteRule::Update);
}

TEST(CacheEngine, WarmHoldsTheMostPopularKeysColdStartsEmpty) {
  // hotspot: every operation on the first 10 of 1,000 keys; room for 10 entries. Warm holds the
  // 10 most popular (the hot ones): nothing misses. Cold: each hot key misses once.
  const std::vector<std::string> sets{
      "cluster.cache.capacity_mb=" + mb_for(10),
      "workload.keys={\"count\": 1000, \"distribution\": \"hotspot\", \"hot_keys\": 0.01, \"hot_ops\": 1}"};
  auto warm = sets;
  warm.emplace_back("cluster.cache.initial=\"warm\"");
  EXPECT_EQ(run_first(build(doc(), warm)).nodes[0].cache->misses, 0u);
  EXPECT_EQ(run_first(build(doc(), sets)).nodes[0].cache->misses, 10u);
  // gaussian with sd 0.5 (stdvrng 1000 over 1,001 keys): reads fall on keys 499..503; warm with
  // room for 10 holds the 10 nearest the mean (496..505): nothing misses. Cold: each key read misses once.
  const std::vector<std::string> g{"cluster.cache.capacity_mb=" + mb_for(10),
                                   "workload.keys={\"count\": 1001, \"distribution\": \"gaussian\", \"stdvrng\": 1000}"};
  auto gw = g;
  gw.emplace_back("cluster.cache.initial=\"warm\"");
  EXPECT_EQ(run_first(build(doc(1, 1, 3000), gw)).nodes[0].cache->misses, 0u);
  const std::uint64_t cold = run_first(build(doc(1, 1, 3000), g)).nodes[0].cache->misses;
  EXPECT_GE(cold, 3u);
  EXPECT_LE(cold, 5u);
}

TEST(CacheEngine, RestartAndKillEmptyTheCacheDownKeepsIt) {
  // Warm, every key fits: no miss until the node restarts at 0.2 s (at once); then each of the 100
  // keys misses once more. A kill (down 10 ms) empties it too; a plain down does not.
  jsonin::Json d = doc(1, 1, 20000);
  d["client"].erase("threads");
  d["client"]["rate_ops_s"] = 50000;
  d["timeouts"] = jsonin::Json::parse(R"({"client_ms": 20})");
  d["retry"] = jsonin::Json::parse(R"({"policy": "never"})");
  auto with_fault = [&](const std::string& kind, double dur) {
    jsonin::Json x = d;
    x["cluster"]["cache"]["initial"] = "warm";
    x["faults"] = jsonin::Json::parse(R"({"driver_detection_ms": 1, "server_detection_ms": 0, "events": [{"at_s": 0.2,
      "node": "n1", "kind": ")" + kind + R"(")" + (dur > 0 ? ", \"duration_s\": " + std::to_string(dur) : "") + "}]}");
    return run_first(build(x)).nodes[0].cache->misses;
  };
  EXPECT_EQ(with_fault("restart", 0), 100u);
  EXPECT_EQ(with_fault("kill", 0.01), 100u);
  EXPECT_EQ(with_fault("down", 0.01), 0u);
}

TEST(CacheEngine, DigestReadsAndLwtReadRoundsTouchTheCache) {
  // 3 nodes, RF 3, CL ALL: one data read and two digests per read, each looked up on its
  // replica; cold with room for every key: each node misses each key once.
  const RunResult all = run_first(build(doc(3, 3, 10000), {"workload.consistency={\"read\": \"ALL\"}"}));
  const NodeCache t = total(all);
  EXPECT_EQ(t.hits + t.misses, 3u * 10000u);
  EXPECT_EQ(t.misses, 300u);
  // CL ONE: one lookup per read.
  const NodeCache one = total(run_first(build(doc(3, 3, 10000))));
  EXPECT_EQ(one.hits + one.misses, 10000u);
  // LWT: the read round goes to every replica (SERIAL, RF 3); prepare, propose, commit do not look up.
  const NodeCache lwt = total(run_first(build(doc(3, 3, 2000), {"workload.mix={\"lwt\": 1}"})));
  EXPECT_EQ(lwt.hits + lwt.misses, 3u * 2000u);
}

TEST(CacheEngine, PerShardCachesSplitTheCapacity) {
  // Room for exactly the 100 keys: one cache per node misses each key once; four shard caches of
  // 25 entries each overflow on the shards that own more than 25 keys.
  const std::vector<std::string> sets{"cluster.cache.capacity_mb=" + mb_for(100), "cluster.shards=4"};
  auto shared = sets;
  shared.emplace_back("cluster.discipline=\"shared\"");
  EXPECT_EQ(run_first(build(doc(1, 1, 20000), shared)).nodes[0].cache->misses, 100u);
  EXPECT_GT(run_first(build(doc(1, 1, 20000), sets)).nodes[0].cache->misses, 200u);
}

TEST(CacheEngine, ReportsCarryTheCacheOnlyWithACache) {
  // 3 nodes, RF 3, CL ONE, TokenAware RANDOM, room for half the keys per node: hit rate 0.5.
  const RunResult r = run_first(build(doc(3, 3, 40000), {"cluster.cache.capacity_mb=" + mb_for(50),
                                                          "cluster.cache.initial=\"warm\"",
                                                          "cluster.disk={\"read_iops\": 100000, \"read_bandwidth\": 0}"}),
                                "random");
  const nlohmann::json j = nlohmann::json::parse(report_json(r).dump());
  ASSERT_TRUE(j.contains("cache"));
  EXPECT_NEAR(j["cache"]["hit_rate"].get<double>(), 0.5, 0.02);
  EXPECT_NEAR(j["cache"]["miss_overcommit"].get<double>(), 1.0, 0.1);
  // Warm: every node cached the same 50 keys of its 100 (all replicated everywhere); RANDOM's
  // misses insert others, so copies per key fall between 1 and 3.
  EXPECT_GT(j["cache"]["copies_per_key"].get<double>(), 1.0);
  EXPECT_LE(j["cache"]["copies_per_key"].get<double>(), 3.0);
  const auto& n0 = j["nodes"][0]["cache"];
  EXPECT_EQ(n0["hits"].get<std::uint64_t>() + n0["misses"].get<std::uint64_t>(), r.nodes[0].replica_reads);
  // disk utilization = misses/s x 1/iops
  EXPECT_NEAR(n0["disk_utilization"].get<double>(), n0["misses_per_s"].get<double>() / 100000.0, 1e-3);
  const auto& pts = j["timeline"]["points"];
  ASSERT_FALSE(pts.empty());
  EXPECT_EQ(pts[0]["cache_hit_rate"].size(), 3u);
  const std::string text = [&] {
    std::ostringstream o;
    print_run(o, r);
    return o.str();
  }();
  EXPECT_NE(text.find("cache: hit rate"), std::string::npos);
  ReportInputs in;
  in.reports.push_back(j);
  in.report_files.emplace_back("x.json");
  EXPECT_NE(render_html_report(in, {}).find("Cache hit rate per node: random"), std::string::npos);

  // Without a cache: no cache block, no timeline series, no chart, no text line.
  jsonin::Json d = doc(3, 3, 4000);
  d["cluster"].erase("cache");
  const RunResult n = run_first(build(d), "random");
  const nlohmann::json k = nlohmann::json::parse(report_json(n).dump());
  EXPECT_FALSE(k.contains("cache"));
  EXPECT_FALSE(k["nodes"][0].contains("cache"));
  EXPECT_FALSE(k["timeline"]["points"][0].contains("cache_hit_rate"));
}

TEST(CacheEngine, SweepsAggregateTheCacheFiguresOnlyWithACache) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-cache-sweep-{}", ::getpid());
  fs::remove_all(root);
  auto sweep = [&](const std::string& name, const std::string& sets) {
    const std::string cmd = fmt::format("{} sweep {}/configs/cache.json --set workload.ops=2000 --set workload.warmup_ops=200 "
                                        "{} --quiet --out {} > /dev/null 2>&1",
                                        LBSIM_BINARY, LBSIM_SOURCE_DIR, sets, (root / name).string());
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(root / name / "sweep.json");
    return nlohmann::json::parse(in);
  };
  const nlohmann::json with = sweep("with", "--set cluster.cache.capacity_mb=10,30");
  EXPECT_TRUE(with["points"][0]["policies"]["random"]["metrics"].contains("cache.hit_rate"));
  EXPECT_NE(sweep_table(with).find("cache hit rate (%)"), std::string::npos);
  const nlohmann::json without = sweep("without", "--set cluster.disk=null --set cluster.cache=null --set client.threads=4,8 "
                                                  "--set client.rate_ops_s=null");
  EXPECT_FALSE(without["points"][0]["policies"]["random"]["metrics"].contains("cache.hit_rate"));
  EXPECT_EQ(sweep_table(without).find("cache hit rate"), std::string::npos);
  EXPECT_EQ(sweep_table(without).find("copies per cached key"), std::string::npos);
  fs::remove_all(root);
}

TEST(CacheEngine, ConservedThroughHopsPausesRestartsAndServerRules) {
  // Misses on a slow disk while shards hop (plain connections), a node pauses and another
  // restarts, under each kind of release clock: every operation ends, and every replica read
  // served looked the cache up once (4 threads: at most 12 replica reads in flight).
  for (const char* server : {"scylla-2025.1", "cassandra-3.11", "cassandra-5.0"}) {
    jsonin::Json d = doc(3, 3, 20000);
    const bool scylla = std::string(server).starts_with("scylla");
    d["cluster"]["shards"] = 4;
    d["cluster"]["server"] = server;
    if (!scylla) d["cluster"]["discipline"] = "shared";
    else d["client"]["connections"] = "plain";
    d["workload"]["mix"] = jsonin::Json::parse(R"({"read": 3, "write": 1})");
    d["workload"]["consistency"] = jsonin::Json::parse(R"({"read": "QUORUM", "write": "QUORUM"})");
    d["faults"] = jsonin::Json::parse(R"({"driver_detection_ms": 5, "server_detection_ms": 5, "events": [
      {"at_s": 0.05, "node": "n1", "kind": "pause", "duration_s": 0.01},
      {"at_s": 0.1, "node": "n2", "kind": "restart", "duration_s": 0.02}]})");
    const RunResult r = run_first(build(d, {"cluster.cache.capacity_mb=" + mb_for(40),
                                            "cluster.disk={\"read_iops\": 20000, \"read_bandwidth\": 0, \"latency\": 100}"}),
                                  "random");
    EXPECT_EQ(r.completed + r.failed, r.issued) << server;
    // A lookup counts at arrival, a served read when its CPU work is queued (after the disk): they
    // differ by the reads on a disk at the window's ends and those lost with the restarted node.
    for (const auto& n : r.nodes)
      EXPECT_NEAR(static_cast<double>(n.cache->hits + n.cache->misses), static_cast<double>(n.replica_reads + n.dropped_reads),
                  24.0)
          << server << n.id;
    EXPECT_GT(total(r).misses, 0u) << server;
  }
}

TEST(CacheEngine, SameSeedSameRun) {
  const std::vector<std::string> sets{"cluster.cache.capacity_mb=" + mb_for(40),
                                      "cluster.cache.partition_size={\"dist\": \"lognormal\", \"mean_bytes\": 1000, "
                                      "\"p99_bytes\": 4000}",
                                      "cluster.disk={\"read_iops\": 20000, \"read_bandwidth\": 1e8}"};
  const RunResult a = run_first(build(doc(3, 3), sets)), b = run_first(build(doc(3, 3), sets));
  for (std::size_t n = 0; n < a.nodes.size(); ++n) {
    EXPECT_EQ(a.nodes[n].cache->hits, b.nodes[n].cache->hits);
    EXPECT_EQ(a.nodes[n].cache->disk_reads, b.nodes[n].cache->disk_reads);
  }
  EXPECT_EQ(a.latency.mean(), b.latency.mean());
}

}  // namespace
}  // namespace lbsim
