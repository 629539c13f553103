// Conservation of operations and the fault, retry, detection, timeout and speculative paths.
#include <gtest/gtest.h>

#include <cstdio>

#include "sim/report/report_json.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::cluster_doc;
using testing::run_first;

std::uint64_t errors_of(const RunResult& r, ErrorKind k) {
  return r.by_op[0].errors[static_cast<std::size_t>(k)] + r.by_op[1].errors[static_cast<std::size_t>(k)];
}

TEST(EngineConservation, EveryOperationCompletesOrFailsAndCountsAddUp) {
  // No warm-up: the window covers the whole run, so every coordinator visit is counted.
  const Scenario sc = build(cluster_doc(6, 32, 30000), {"workload.warmup_ops=0"});
  for (const auto& p : sc.policies) {
    const RunResult r = run_simulation(sc, p, sc.seed);
    EXPECT_EQ(r.issued, 30000u) << p.name;
    EXPECT_EQ(r.completed + r.failed, r.issued) << p.name;
    EXPECT_EQ(r.measured_ops() + r.measured_errors(), 30000u);
    std::uint64_t coord = 0, reads = 0, writes = 0;
    for (const auto& n : r.nodes) {
      coord += n.coordinator_ops;
      reads += n.replica_reads;
      writes += n.replica_writes;
    }
    EXPECT_EQ(coord, r.issued) << "one coordinator visit per operation without retries";
    EXPECT_EQ(reads, r.by_op[0].ops) << "LOCAL_ONE read: one replica read each";
    // Writes reach all 3 replicas; the last few may still be queued when the run ends.
    EXPECT_LE(writes, 3 * r.by_op[1].ops);
    EXPECT_GE(writes + 3 * 32, 3 * r.by_op[1].ops);
  }
}

TEST(EngineConservation, TokenAwareCoordinatorIsAlwaysAReplica) {
  // With token awareness, RF 3 of 6 nodes and a LOCAL_ONE read, the coordinator reads locally:
  // replica reads per node equal its coordinator reads (within the in-flight boundary).
  const Scenario sc = build(cluster_doc(6, 16, 20000), {"workload.mix={\"read\": 1}", "workload.warmup_ops=0"});
  const RunResult r = run_first(sc, "ta");
  for (const auto& n : r.nodes) EXPECT_EQ(n.replica_reads, n.coordinator_ops) << n.id;
}

// n1 goes down at 0.2 s for good; the driver notices after 0.3 s. Meanwhile attempts sent to n1
// time out on the client (50 ms) and are retried on the next host: no operation fails.
TEST(EngineFaults, DownNodeCostsClientTimeoutsAndRetriesUntilDetected) {
  const std::vector<std::string> sets = {
      "workload.ops=60000", "timeouts={\"client_ms\": 50}",
      "faults={\"driver_detection_ms\": 300, \"server_detection_ms\": 100, \"events\": [{\"at_s\": 0.2, \"node\": "
      "\"n1\", \"kind\": \"down\"}]}"};
  const RunResult r = run_first(build(cluster_doc(6, 32, 60000), sets), "rr");
  EXPECT_GT(r.client.retries, 0u);
  EXPECT_EQ(r.measured_errors(), 0u);
  EXPECT_GE(r.latency.max(), 50 * kMs);  // an operation that waited for a client timeout
  EXPECT_LT(r.latency.max(), 110 * kMs);
  // After detection n1 gets nothing: its coordinator share is far below the others'.
  EXPECT_LT(r.nodes[0].coordinator_ops * 3, r.nodes[1].coordinator_ops);
  EXPECT_EQ(r.completed + r.failed, r.issued);

  // The same without retries: the attempts that hit n1 fail with client timeouts.
  auto no_retry = sets;
  no_retry.emplace_back("retry={\"policy\": \"never\"}");
  const RunResult f = run_first(build(cluster_doc(6, 32, 60000), no_retry), "rr");
  EXPECT_GT(errors_of(f, ErrorKind::ClientTimeout), 0u);
  EXPECT_EQ(f.client.retries, 0u);
}

TEST(EngineFaults, UnavailableWhenTooFewReplicasAreAliveAndRetriedOnce) {
  // CL ALL with one node down and known to gossip: every write touching it is Unavailable,
  // retried once on the next host, then fails.
  const RunResult r = run_first(
      build(cluster_doc(6, 16, 20000),
            {"workload.mix={\"write\": 1}", "workload.consistency={\"write\": \"ALL\"}",
             "faults={\"driver_detection_ms\": 0, \"server_detection_ms\": 0, \"events\": [{\"at_s\": 0, \"node\": "
             "\"n2\", \"kind\": \"down\"}]}"}),
      "rr");
  const std::uint64_t unavailable = errors_of(r, ErrorKind::Unavailable);
  // n2 holds half of the ranges (RF 3 of 6): about half the writes fail.
  EXPECT_GT(unavailable, 20000u * 35 / 100);
  EXPECT_LT(unavailable, 20000u * 65 / 100);
  EXPECT_GE(r.client.retries, unavailable);  // one retry each (plus none for the others)
  EXPECT_EQ(r.nodes[1].coordinator_ops, 0u);  // the driver knows n2 is down
}

TEST(EngineFaults, WriteTimeoutWhenGossipHasNotNoticedTheDeadReplica) {
  const RunResult r = run_first(
      build(cluster_doc(6, 16, 5000),
            {"workload.mix={\"write\": 1}", "workload.consistency={\"write\": \"ALL\"}", "workload.warmup_ops=0",
             "timeouts={\"write_ms\": 20}",
             "faults={\"driver_detection_ms\": 0, \"server_detection_ms\": 100000, \"events\": [{\"at_s\": 0, "
             "\"node\": \"n2\", \"kind\": \"down\"}]}"}),
      "rr");
  EXPECT_GT(errors_of(r, ErrorKind::WriteTimeout), 1000u);
  EXPECT_EQ(errors_of(r, ErrorKind::Unavailable), 0u);
  EXPECT_EQ(r.completed + r.failed, r.issued);
}

TEST(EngineFaults, NoHostAvailableWhenTheWholeLocalDcIsDown) {
  std::string events = "[";
  for (int i = 1; i <= 6; ++i)
    events += std::string(i > 1 ? "," : "") + "{\"at_s\": 0, \"node\": \"n" + std::to_string(i) + "\", \"kind\": \"down\"}";
  events += "]";
  const RunResult r = run_first(build(cluster_doc(6, 4, 1000), {"workload.warmup_ops=0",
                                                                "faults={\"driver_detection_ms\": 0, \"events\": " + events + "}"}),
                                "rr");
  // The first 4 operations start at t=0 before the faults fire: they are sent, lost, time out on
  // the client and then find no host either; every operation fails.
  EXPECT_EQ(r.measured_errors(), 1000u);
  EXPECT_GE(errors_of(r, ErrorKind::NoHostAvailable), 996u);
}

// The Node.js driver keeps a timed-out request's stream id until an answer frees it, so the request
// stays in its host's in-flight count (datastax/nodejs-driver lib/connection.js getInFlight, which
// lib/policies/load-balancing.js compares). Measured through lbsim serve against cassandra-driver
// 4.10 (tests/serve_faults_test.cpp): for a node silent from 3 s, with heartbeat and read timeout at
// 1 s, the driver stopped writing to it once its requests hung, so its write-idle heartbeat fired
// and the driver marked it down at 5.05 to 5.30 s. Before lbsim kept timed-out requests in flight,
// its model went back to the node and never marked it down.
TEST(EngineFaults, NodeJsTimedOutRequestsStayInFlightSoASilentNodesHeartbeatFires) {
  const Scenario sc = load_scenario(
      std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json",
      {R"(faults.events=[{"at_s": 3, "node": "n2", "kind": "down", "duration_s": 5}])", "faults.driver_detection=driver",
       R"(faults.heartbeat={"interval_ms": 1000, "timeout_ms": 1000})", "timeouts.client_ms=1000",
       "client.rate_ops_s=500", R"(workload.mix={"read": 1})", "workload.ops=3500"});
  const RunResult r = run_simulation(sc, *sc.find_policy("nodejs"), sc.seed);
  ASSERT_TRUE(r.detection.has_value());
  double down = -1;
  std::string by;
  for (const auto& e : r.detection->events)
    if (e.node == "n2" && !e.up && down < 0) down = e.at_s, by = e.by;
  EXPECT_EQ(by, "heartbeat");
  // The last write to n2 just after 3 s, the idle heartbeat 1 s later, its timeout 1 s after that.
  EXPECT_GE(down, 5.0);
  EXPECT_LE(down, 5.5);
  std::printf("Node.js model, silent n2 from 3 s: marked down at %.3f s by %s (cassandra-driver 4.10: 5.05-5.30 s)\n",
              down, by.c_str());
}

// A late answer frees the in-flight place of its timed-out request: n2 pauses for 1.5 s (its
// requests time out on the client after 300 ms and stay in flight, so the power of two choices
// leaves it), then answers them all; from then on it takes its share again. Were the places not
// freed, n2 would stay at 64 in flight and get almost nothing after the pause.
TEST(EngineFaults, NodeJsLateAnswersFreeTheirInFlightPlaces) {
  const Scenario sc = load_scenario(
      std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json",
      {R"(faults.events=[{"at_s": 2, "node": "n2", "kind": "pause", "duration_s": 1.5}])", "timeouts.client_ms=300",
       "client.rate_ops_s=2000", R"(workload.mix={"read": 1})", "workload.ops=12000", "report.timeline_interval_s=0.5"});
  const RunResult r = run_simulation(sc, *sc.find_policy("nodejs"), sc.seed);
  const double iv = to_sec(r.timeline.interval());
  ASSERT_DOUBLE_EQ(iv, 0.5);
  const double origin = to_sec(r.window_start);
  double during = 0, during_all = 0, after = 0, after_all = 0;
  for (std::size_t i = 0; i < r.timeline.points().size(); ++i) {
    const double t = origin + static_cast<double>(i) * iv;
    double all = 0;
    for (std::uint64_t v : r.timeline.node_ops(i)) all += static_cast<double>(v);
    const double n2 = static_cast<double>(r.timeline.node_ops(i)[1]);
    if (t >= 2.5 && t + iv <= 3.5) during += n2, during_all += all;
    if (t >= 4.0 && t + iv <= 5.5) after += n2, after_all += all;
  }
  ASSERT_GT(during_all, 0);
  ASSERT_GT(after_all, 0);
  std::printf("n2's share of coordinators: %.4f while paused, %.4f after it\n", during / during_all, after / after_all);
  EXPECT_LT(during / during_all, 0.02);  // hung: out of the choices
  EXPECT_GT(after / after_all, 0.10);    // back (one of five coordinators: 0.2 by symmetry)
}

TEST(EngineFaults, PauseStallsTheNodeForItsDuration) {
  const RunResult r = run_first(
      build(cluster_doc(6, 16, 40000),
            {"faults={\"events\": [{\"at_s\": 0.2, \"node\": \"n3\", \"kind\": \"pause\", \"duration_s\": 0.08}]}"}),
      "ta");
  EXPECT_GE(r.latency.max(), 75 * kMs);  // an operation caught by the whole pause
  EXPECT_LT(r.latency.max(), 95 * kMs);
  EXPECT_EQ(r.measured_errors(), 0u);
}

TEST(EngineFaults, SlowNodeIsBusierAndSpeculativeExecutionCutsTheTail) {
  const std::vector<std::string> slow = {
      "faults={\"events\": [{\"at_s\": 0, \"node\": \"n4\", \"kind\": \"slow\", \"factor\": 8, \"duration_s\": 1000}]}",
      "workload.mix={\"read\": 1}", "client.threads=8"};
  const RunResult plain = run_first(build(cluster_doc(6, 8, 20000), slow), "rr");
  double others = 0;
  for (std::size_t i = 0; i < plain.nodes.size(); ++i)
    if (i != 3) others = std::max(others, plain.nodes[i].utilization);
  EXPECT_GT(plain.nodes[3].utilization, 2 * others);

  auto spec = slow;
  spec.emplace_back("speculative={\"delay_ms\": 0.5, \"max_speculative\": 1}");
  const RunResult fast = run_first(build(cluster_doc(6, 8, 20000), spec), "rr");
  EXPECT_GT(fast.client.speculative, 0u);
  EXPECT_LT(fast.latency.percentile(99), plain.latency.percentile(99) * 8 / 10);
  EXPECT_EQ(fast.completed + fast.failed, fast.issued);
}

// A slow fault may name one shard: shard-pinned background work (scylladb/scylladb#3156, gossip
// and batchlog replay pinned to one shard) takes a share u of that shard's CPU, so its requests
// are served at 1 - u of the speed, factor 1 / (1 - u). Only that shard's service times grow; the
// other shards' queues see the same arrivals and do exactly the same work.
TEST(EngineFaults, SlowFaultOnOneShardSlowsOnlyThatShard) {
  const std::vector<std::string> shards = {"cluster.shards=4", "cluster.discipline=per_shard", "cluster.num_tokens=64",
                                           "workload.keys={\"count\": 100000}"};
  auto with = shards;
  with.emplace_back(
      "faults={\"events\": [{\"at_s\": 0, \"node\": \"a\", \"kind\": \"slow\", \"shard\": 2, \"factor\": 3, "
      "\"duration_s\": 1000}]}");
  const RunResult base = run_first(build(testing::queue_doc(8000, 100, 60000), shards));
  const RunResult slow = run_first(build(testing::queue_doc(8000, 100, 60000), with));
  ASSERT_EQ(base.nodes.at(0).shards.size(), 4u);
  ASSERT_EQ(slow.nodes.at(0).shards.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    const double b = base.nodes[0].shards[k].utilization, f = slow.nodes[0].shards[k].utilization;
    ASSERT_GT(b, 0.05) << "shard " << k;
    if (k == 2) EXPECT_NEAR(f / b, 3.0, 0.06) << "the slowed shard works 3x as long per request";
    else EXPECT_NEAR(f / b, 1.0, 1e-3) << "shard " << k << " is not slowed (the window ends a little later)";
    EXPECT_EQ(slow.nodes[0].shards[k].replica_ops, base.nodes[0].shards[k].replica_ops);
  }
  // The report names the shard; a whole-node slow fault has no "shard" (reports unchanged).
  const auto doc = nlohmann::json::parse(report_json_stable(slow).dump());
  EXPECT_EQ(doc.at("timeline").at("events").at(0).at("shard").get<int>(), 2);
  auto node = shards;
  node.emplace_back("faults={\"events\": [{\"at_s\": 0, \"node\": \"a\", \"kind\": \"slow\", \"factor\": 3, \"duration_s\": 1000}]}");
  const RunResult whole = run_first(build(testing::queue_doc(8000, 100, 60000), node));
  const auto wdoc = nlohmann::json::parse(report_json_stable(whole).dump());
  EXPECT_FALSE(wdoc.at("timeline").at("events").at(0).contains("shard"));
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_NEAR(whole.nodes[0].shards[k].utilization / base.nodes[0].shards[k].utilization, 3.0, 0.06);
}

}  // namespace
}  // namespace lbsim

namespace lbsim::answer_skip_test {

using testing::build;
using testing::cluster_doc;
using testing::run_first;

// Without faults or topology changes the engine schedules no event for a replica answer that
// earlier scheduled answers make useless (issue 14). A pause far after the end of the run makes
// the run "with faults" without changing anything in it: both runs must then agree on everything
// but the event count, which must drop by the useless answers (LOCAL_ONE writes to RF 3: at most
// one answer of three counts).
TEST(EngineAnswers, UselessAnswersCostNoEventAndChangeNothingElse) {
  const std::string late_pause =
      "faults={\"events\": [{\"at_s\": 1000, \"node\": \"n1\", \"kind\": \"pause\", \"duration_s\": 0.01}]}";
  for (const char* cl : {"ONE", "QUORUM", "ALL"}) {
    const std::vector<std::string> sets = {"workload.mix={\"write\": 3, \"read\": 1}",
                                           std::string("workload.consistency={\"write\": \"") + cl +
                                               "\", \"read\": \"" + cl + "\"}"};
    auto with_pause = sets;
    with_pause.push_back(late_pause);
    const RunResult fast = run_first(build(cluster_doc(6, 32, 20000), sets), "ta");
    const RunResult full = run_first(build(cluster_doc(6, 32, 20000), with_pause), "ta");
    nlohmann::ordered_json a = report_json_stable(fast), b = report_json_stable(full);
    for (const char* key : {"faults", "scenario"}) {  // the pause, and the scenario's hash
      a.erase(key);
      b.erase(key);
    }
    EXPECT_TRUE(a == b) << cl;
    // Writes are 3 in 4: ONE skips 0.62 events per operation, QUORUM 0.35 (of at most 1.5 and
    // 0.75 useless answers; some were already dropped when their replica started), ALL none.
    const double saved = static_cast<double>(full.engine.events - fast.engine.events) / static_cast<double>(full.issued);
    if (std::string(cl) == "ALL") EXPECT_EQ(saved, 0.0);
    else if (std::string(cl) == "QUORUM") EXPECT_GT(saved, 0.25) << cl;
    else EXPECT_GT(saved, 0.5) << cl;
  }
}

}  // namespace lbsim::answer_skip_test
