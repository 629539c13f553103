// Tablet migrations' stages and streaming (issue 35; streaming.cpp beside this file and the stage
// machine of migrations.cpp). A small cluster where every move has one sender: 3
// nodes in 3 racks with one shard each, RF 3, 16 tablets; a fourth node joins rack r1, and since a
// move may never put two replicas of a tablet in one rack, every tablet it gets comes from n1, 8
// of them (16 -> 8 / 8). Figures worked out here:
// - bandwidth: a node's streams share changes.migration.node_stream_mb_s (max-min fair), each
//   capped by stream_mb_s, so the sender's MB / streaming seconds is the binding bound;
// - CPU: a CPU-bound stream keeps one chunk in its shard's FIFO queue at all times, so the shard
//   is busy 100 % while it streams and the stream gets what requests leave: (1 - u) / cost;
// - stages (scylladb/scylladb locator/tablets.cc get_selector_for_writes / _for_reads): no write
//   reaches the new replica in allow_write_both_read_old, writes do from write_both_read_old, reads
//   only from write_both_read_new on;
// - slots (service/tablet_allocator.cc is_streaming): freed when streaming ends, so the next
//   migration's fixed stages overlap the previous one's last ones;
// - removenode (locator/tablets.cc get_migration_streaming_info): every live replica sends.
#include <gtest/gtest.h>

#include <cstdio>

#include <fmt/format.h>

#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"

namespace lbsim::tablet_streaming_test {

using testing::build;
using testing::run_first;

// 3 nodes (r1, r2, r3), 1 shard, RF 3 tablets, open-loop constant arrivals at `rate`, QUORUM.
// `changes` is the "changes" object; the window is [warmup_s, warmup_s + duration_s].
jsonin::Json doc(const std::string& server, double rate, double warmup_s, double duration_s, const std::string& changes,
                 int nodes = 3) {
  return jsonin::Json::parse(fmt::format(R"({{
    "name": "streaming", "seed": 5,
    "cluster": {{"datacenters": [{{"name": "dc1", "racks": 3, "nodes": {5}}}], "num_tokens": 16, "shards": 1,
                "server": "{0}",
                "service": {{"coordinator": {{"dist": "exponential", "mean_us": 20}},
                             "read": {{"dist": "exponential", "mean_us": 100}},
                             "write": {{"dist": "exponential", "mean_us": 50}}}}}},
    "keyspace": {{"class": "NetworkTopologyStrategy", "rf": {{"dc1": 3}}, "tablets": {{"initial": 16}}}},
    "faults": {{"driver_detection_ms": 100, "server_detection_ms": 100}},
    "client": {{"dc": "dc1", "rate_ops_s": {1}, "arrivals": "constant", "cores": 8}},
    "workload": {{"duration_s": {3}, "warmup_s": {2}, "mix": {{"read": 1, "write": 1}},
                  "consistency": {{"read": "QUORUM", "write": "QUORUM"}}, "keys": {{"count": 100000}}}},
    "changes": {4},
    "policies": [{{"name": "random", "policy": {{"type": "TokenAware", "ordering": "RANDOM",
                                                "child": {{"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}}}}]
  }})",
                                         server, rate, warmup_s, duration_s, changes, nodes));
}

// A fourth node joins rack r1 at 1 s; `migration` is the "migration" object.
std::string join(const std::string& migration) {
  return R"({"events": [{"at_s": 1, "action": "add_node", "nodes": [{"dc": "dc1", "rack": "r1"}]}], "migration": )" +
         migration + "}";
}

const NodeStreaming& streaming(const RunResult& r, std::size_t n) {
  EXPECT_TRUE(r.nodes.at(n).streaming.has_value()) << r.nodes.at(n).id;
  static const NodeStreaming none;
  return r.nodes.at(n).streaming ? *r.nodes.at(n).streaming : none;
}

TEST(TabletStreaming, OneStreamAtTheNodeBandwidthTakesSizeOverBandwidth) {
  // One stream at a time (1 in, 1 out slot): each 1,000 MB tablet at 100 MB/s streams 10 s.
  const Scenario sc = build(doc("scylla-2025.1", 1000, 0, 100,
                                join(R"({"latency_ms": 100, "table_size_mb": 16000, "stream_mb_s": 1000,
                                         "node_stream_mb_s": 100, "max_in_per_shard": 1, "max_out_per_shard": 1})")));
  const RunResult r = run_first(sc, "random");
  ASSERT_TRUE(r.tablets);
  EXPECT_EQ(r.tablets->migrations_done, 8u);
  const NodeStreaming& n1 = streaming(r, 0);
  const NodeStreaming& n4 = streaming(r, 3);
  EXPECT_NEAR(n1.sent_mb, 8000, 1e-6);
  EXPECT_NEAR(n4.received_mb, 8000, 1e-6);
  EXPECT_EQ(n1.received_mb, 0);
  EXPECT_NEAR(n1.seconds, 80, 0.01);  // 8 x 1,000 MB / 100 MB/s
  EXPECT_NEAR(n4.seconds, 80, 0.01);
  EXPECT_EQ(streaming(r, 1).seconds, 0);  // n2 and n3 never stream
}

TEST(TabletStreaming, TwoStreamsFromOneNodeShareItsBandwidth) {
  // Two slots: n1 sends two tablets at once. The node bound (100 MB/s) is shared: n1 still sends
  // 100 MB/s in all; with a per-stream bound of 100 MB/s and no node bound it sends 200 MB/s.
  const std::string slots = R"(, "max_in_per_shard": 2, "max_out_per_shard": 2})";
  const RunResult shared = run_first(build(doc("scylla-2025.1", 1000, 0, 100,
      join(R"({"latency_ms": 100, "table_size_mb": 16000, "stream_mb_s": 1000, "node_stream_mb_s": 100)" + slots))),
      "random");
  const RunResult own = run_first(build(doc("scylla-2025.1", 1000, 0, 100,
      join(R"({"latency_ms": 100, "table_size_mb": 16000, "stream_mb_s": 100, "node_stream_mb_s": 100000)" + slots))),
      "random");
  for (const RunResult* r : {&shared, &own}) {
    ASSERT_TRUE(r->tablets);
    EXPECT_EQ(r->tablets->migrations_done, 8u);
    EXPECT_NEAR(streaming(*r, 0).sent_mb, 8000, 1e-6);
  }
  EXPECT_NEAR(streaming(shared, 0).sent_mb / streaming(shared, 0).seconds, 100, 0.5);
  EXPECT_NEAR(streaming(own, 0).sent_mb / streaming(own, 0).seconds, 200, 1.0);
}

TEST(TabletStreaming, CpuBoundStreamFillsItsShardWithWhatRequestsLeave) {
  // n1's one shard serves requests at utilization u (measured without the join); a stream
  // costing 1,000 us per MB sent, unbounded by bandwidth, then takes the rest: n1 is 100 % busy
  // and the stream runs at (1 - u) x 1,000 MB/s. The window [2 s, 6 s] lies inside the first
  // migration's streaming (10 GB: over 10 s), while n1 still holds all its tablets.
  const std::string mig = R"({"latency_ms": 100, "table_size_mb": 160000, "stream_mb_s": 100000,
                              "cpu_send_us_per_mb": 1000, "max_in_per_shard": 1, "max_out_per_shard": 1})";
  const RunResult base = run_first(build(doc("scylla-2025.1", 4500, 2, 4, "{}")), "random");
  const RunResult run = run_first(build(doc("scylla-2025.1", 4500, 2, 4, join(mig))), "random");
  const double u = base.nodes[0].utilization;
  ASSERT_GT(u, 0.2);
  ASSERT_LT(u, 0.5);
  EXPECT_GT(run.nodes[0].utilization, 0.995);  // 100 % while streaming
  const NodeStreaming& n1 = streaming(run, 0);
  EXPECT_NEAR(n1.seconds, 4, 1e-6);
  EXPECT_NEAR(n1.sent_mb / n1.seconds, (1 - u) * 1000, 0.03 * (1 - u) * 1000);
  // The requests wait behind the stream's chunks (0.5 ms each): the tail grows.
  EXPECT_GT(run.latency.percentile(99), base.latency.percentile(99) + 200 * kUs);
  EXPECT_EQ(run.measured_errors(), 0u);
  // The receiver costs nothing here (cpu_receive_us_per_mb 0): n4 does no work.
  EXPECT_LT(run.nodes[3].utilization, 0.01);
}

// n4's replica reads and writes in the window [from_s, from_s + len_s].
std::pair<std::uint64_t, std::uint64_t> new_replica_work(const std::string& server, double from_s, double len_s) {
  // Fixed latency 2 s: with ScyllaDB's stages allow_write_both_read_old lasts [1.0, 1.4],
  // write_both_read_old [1.4, 1.8], streaming (100 MB at 100 MB/s) [1.8, 2.8],
  // write_both_read_new [2.8, 3.2].
  const RunResult r = run_first(build(doc(server, 4000, from_s, len_s,
                                          join(R"({"latency_ms": 2000, "table_size_mb": 1600, "stream_mb_s": 100,
                                                   "max_in_per_shard": 1, "max_out_per_shard": 1})"))),
                                "random");
  return {r.nodes[3].replica_reads, r.nodes[3].replica_writes};
}

TEST(TabletStreaming, StagesDecideWhenTheNewReplicaTakesWritesAndReads) {
  auto [r0, w0] = new_replica_work("scylla-2025.1", 1.05, 0.3);  // allow_write_both_read_old
  EXPECT_EQ(r0, 0u);
  EXPECT_EQ(w0, 0u);
  auto [r1, w1] = new_replica_work("scylla-2025.1", 1.45, 1.3);  // write_both_read_old, streaming
  EXPECT_EQ(r1, 0u);
  EXPECT_GT(w1, 50u);  // 1/16 of 2,000 writes/s for 1.3 s: about 160
  auto [r2, w2] = new_replica_work("scylla-2025.1", 2.85, 0.3);  // write_both_read_new
  EXPECT_GT(r2, 10u);
  EXPECT_GT(w2, 10u);
  // lbsim's unspecified rule writes both from the migration's start.
  auto [ru, wu] = new_replica_work("unspecified", 1.05, 0.3);
  EXPECT_EQ(ru, 0u);
  EXPECT_GT(wu, 10u);
}

TEST(TabletStreaming, SlotsAreFreedWhenStreamingEnds) {
  // One slot, latency 1 s, 0.1 s of streaming. ScyllaDB frees the slot when streaming ends: the
  // k-th migration starts at 1 + 0.5 k s and ends 1.1 s later, so by 5 s six are done (k <= 5.8).
  // Holding the slot to the end (unspecified): the k-th ends at 1 + 1.1 (k + 1) s: three.
  const std::string ch = join(R"({"latency_ms": 1000, "table_size_mb": 160, "stream_mb_s": 100,
                                  "max_in_per_shard": 1, "max_out_per_shard": 1})");
  const RunResult scylla = run_first(build(doc("scylla-2025.1", 1000, 0, 5, ch)), "random");
  const RunResult lbsim = run_first(build(doc("unspecified", 1000, 0, 5, ch)), "random");
  ASSERT_TRUE(scylla.tablets && lbsim.tablets);
  EXPECT_EQ(scylla.tablets->migrations_done, 6u);
  EXPECT_EQ(lbsim.tablets->migrations_done, 3u);
}

// 4 nodes (r1: n1, n4; r2: n2; r3: n3); n4 is removed at 1 s: each of its tablets is rebuilt on
// n1 (the only node left in r1) from the live replicas on n2 and n3.
RunResult remove_n4(const std::string& server) {
  return run_first(build(doc(server, 1000, 0, 30,
                             R"({"events": [{"at_s": 1, "action": "remove_node", "node": "n4"}],
                                 "migration": {"latency_ms": 100, "table_size_mb": 1600, "stream_mb_s": 1000,
                                               "node_stream_mb_s": 1000, "cpu_send_us_per_mb": 100,
                                               "cpu_receive_us_per_mb": 100}})",
                             4)),
                   "random");
}

TEST(TabletStreaming, RemovenodeRebuildsFromEveryLiveReplica) {
  for (const char* server : {"scylla-2025.1", "scylla-2025.2"}) {
    SCOPED_TRACE(server);
    const RunResult r = remove_n4(server);
    ASSERT_TRUE(r.tablets);
    const double k = static_cast<double>(r.tablets->migrations_done);
    ASSERT_GE(k, 4);
    EXPECT_EQ(r.tablets->node_replicas[3], 0u);
    EXPECT_EQ(streaming(r, 3).sent_mb, 0);  // the dead node sends nothing
    // Both live replicas send. Before 2025.2 each sends the whole tablet (the new replica gets two
    // copies); the repair-based rebuild sends it once, half from each.
    const double each = std::string(server) == "scylla-2025.1" ? 100 : 50;
    EXPECT_NEAR(streaming(r, 1).sent_mb, k * each, 1e-6);
    EXPECT_NEAR(streaming(r, 2).sent_mb, k * each, 1e-6);
    EXPECT_NEAR(streaming(r, 0).received_mb, k * 2 * each, 1e-6);
    EXPECT_GT(streaming(r, 1).seconds, 0);
    EXPECT_GT(streaming(r, 2).seconds, 0);
  }
}

TEST(TabletStreaming, NoStreamingCostAddsNoEventAndNoReportField) {
  // Without topology changes nothing of the streaming model shows; with the earlier model
  // (unspecified, no cost keys) the report has no nodes[].streaming either.
  const RunResult plain = run_first(build(doc("unspecified", 1000, 0, 2, "{}")), "random");
  for (const auto& n : plain.nodes) EXPECT_FALSE(n.streaming.has_value());
  const RunResult old = run_first(build(doc("unspecified", 1000, 0, 5,
                                            join(R"({"latency_ms": 100, "table_size_mb": 1600, "stream_mb_s": 100})"))),
                                  "random");
  for (const auto& n : old.nodes) EXPECT_FALSE(n.streaming.has_value());
  ASSERT_TRUE(old.tablets);
  EXPECT_GT(old.tablets->migrations_done, 0u);
}

TEST(TabletStreaming, Reproduces20921ExistingNodesAtFullCpuWhileStreaming) {
  // configs/tablets-streaming.json (scylladb/scylladb#20921), the join moved from 30 s to 3 s.
  // Published: the existing nodes at 100 % CPU on all shards while streaming; one migration at
  // 95,894.20 KiB/s (98.2 MB/s). lbsim: before the join about 42 % per shard; after it every
  // shard of n1-n3 sends two streams (tablet_streaming_read_concurrency_per_shard = 2), is 100 %
  // busy, and each stream gets half of what the requests leave of the 98.2 MB/s the derived CPU
  // cost allows.
  const std::string file = std::string(LBSIM_SOURCE_DIR) + "/configs/tablets-streaming.json";
  const RunResult before = run_first(
      load_scenario(file, {"changes.events.0.at_s=3", "workload.warmup_s=1", "workload.duration_s=1.5"}), "random");
  const RunResult during = run_first(
      load_scenario(file, {"changes.events.0.at_s=3", "workload.warmup_s=4.5", "workload.duration_s=1.5"}), "random");
  double u = 0;
  for (std::size_t n = 0; n < 3; ++n) u += before.nodes[n].utilization / 3;
  EXPECT_GT(u, 0.35);
  EXPECT_LT(u, 0.5);
  const double published_mb_s = 95894.20 * 1024 / 1e6;
  const double expected_per_stream = (1 - u) * published_mb_s / 2;
  for (std::size_t n = 0; n < 3; ++n) {
    SCOPED_TRACE(during.nodes[n].id);
    for (const auto& sh : during.nodes[n].shards) EXPECT_GT(sh.utilization, 0.99);
    const NodeStreaming& st = streaming(during, n);
    EXPECT_NEAR(st.seconds, 1.5, 1e-6);
    // 7 shards x 2 streams
    EXPECT_NEAR(st.sent_mb / st.seconds / 14, expected_per_stream, 0.05 * expected_per_stream);
  }
  for (std::size_t n = 3; n < 6; ++n) EXPECT_LT(during.nodes[n].utilization, 0.1) << during.nodes[n].id;
  std::printf("#20921: shards of n1-n3 %.0f %% busy before, 100 %% while streaming; per stream %.1f MB/s (published "
              "%.1f MB/s)\n",
              100 * u, streaming(during, 0).sent_mb / 1.5 / 14, published_mb_s);
}

}  // namespace lbsim::tablet_streaming_test
