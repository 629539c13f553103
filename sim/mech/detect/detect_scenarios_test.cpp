// faults.driver_detection "driver" (sim/mech/detect/detect.cpp): when each driver marks a silently
// dead node down, by its own mechanism and defaults, and when it comes back; the `kill` fault's
// closed connections; a slow node that the heartbeat never marks down. Every expected time is
// the driver's rule from its source (cited in detect.cpp) applied to the scenario's times.
#include <cstdio>

#include <gtest/gtest.h>

#include "sim/report/report_json.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// 3 nodes, RF 3, an open loop of 2,000 op/s (Poisson), LOCAL_ONE reads; n1 dies silently at 10 s.
jsonin::Json doc(const std::string& policy, double duration_s = 100) {
  auto d = jsonin::Json::parse(R"({
    "name": "detect", "seed": 5,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}], "num_tokens": 16,
                "service": {"coordinator": {"dist": "exponential", "mean_us": 20},
                            "read": {"dist": "exponential", "mean_us": 100},
                            "write": {"dist": "exponential", "mean_us": 50}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "client": {"dc": "dc1", "rate_ops_s": 2000},
    "workload": {"duration_s": 100, "mix": {"read": 1}, "keys": {"count": 100000}},
    "faults": {"driver_detection": "driver", "server_detection_ms": 20000,
               "events": [{"at_s": 10, "node": "n1", "kind": "down"}]},
    "policies": []
  })");
  d["workload"]["duration_s"] = duration_s;
  d["policies"].push_back({{"name", "p"}, {"policy", jsonin::Json::parse(policy)}});
  return d;
}

const char* kJava3 = R"({"type": "TokenAware", "ordering": "RANDOM", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}})";
const char* kJava4 = R"({"type": "Default4x", "local_dc": "dc1"})";

// The detection events of a run (faults.driver_detection "driver").
std::vector<DetectionEvent> events_of(const RunResult& r) {
  EXPECT_TRUE(r.detection.has_value());
  return r.detection ? r.detection->events : std::vector<DetectionEvent>{};
}

// n1's last answer reaches the client within a few milliseconds of 10 s (before it, or just after
// for answers already on the wire): detection times are checked to 10 ms.
constexpr double kSlack = 0.01;

TEST(DriverDetection, Java3HeartbeatAfterReaderIdlePlusReadTimeout) {
  // Java 3.x: reader idle 30 s after the last read, then the OPTIONS times out after
  // readTimeoutMillis (12 s): 10 + 30 + 12 = 52 s. The DOWN event at 30 s is ignored (open
  // connections).
  const RunResult r = run_first(build(doc(kJava3)));
  ASSERT_EQ(r.detection->driver, "java3");
  EXPECT_DOUBLE_EQ(r.detection->interval_ms, 30000);
  EXPECT_DOUBLE_EQ(r.detection->timeout_ms, 12000);
  const auto ev = events_of(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].node, "n1");
  EXPECT_FALSE(ev[0].up);
  EXPECT_EQ(ev[0].by, "heartbeat");
  EXPECT_NEAR(ev[0].at_s, 52.0, kSlack);
  // The heartbeat timeout follows timeouts.client_ms, Java 3.x's readTimeoutMillis.
  const RunResult t = run_first(build(doc(kJava3), {"timeouts.client_ms=2000"}));
  ASSERT_EQ(events_of(t).size(), 1u);
  EXPECT_NEAR(events_of(t)[0].at_s, 42.0, kSlack);
}

TEST(DriverDetection, Java4HeartbeatTimeoutIsTheInitQueryTimeout) {
  // Java 4.x: 30 s reader idle + advanced.heartbeat.timeout = init-query-timeout 5 s: 45 s.
  const auto ev = events_of(run_first(build(doc(kJava4))));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].by, "heartbeat");
  EXPECT_NEAR(ev[0].at_s, 45.0, kSlack);
}

TEST(DriverDetection, PythonSweepNeedsAWholeIdleIntervalThenTheTimeout) {
  // Python: sweeps at 30, 60, 90 s. At 30 s n1's connection had read since the sweep before
  // (until 10 s): not idle. At 60 s it is idle: OPTIONS, defunct after idle_heartbeat_timeout
  // (30 s): 90 s.
  const RunResult r = run_first(build(doc(kJava3), {"faults.heartbeat={\"driver\": \"python\"}"}));
  EXPECT_EQ(r.detection->driver, "python");
  const auto ev = events_of(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_DOUBLE_EQ(ev[0].at_s, 90.0);
  // n1 dying at 35 s (after the 30 s sweep) waits for the 90 s sweep: 120 s.
  const auto late = events_of(run_first(build(doc(kJava3, 130), {"faults.heartbeat={\"driver\": \"python\"}",
                                                                    "faults.events=[{\"at_s\": 35, \"node\": \"n1\", \"kind\": \"down\"}]"})));
  ASSERT_EQ(late.size(), 1u);
  EXPECT_DOUBLE_EQ(late[0].at_s, 120.0);
}

TEST(DriverDetection, GocqlTakesTheClusterDownEvent) {
  // gocql marks the host down on the STATUS_CHANGE DOWN event (handleNodeDown) after its 1 s
  // debounce: gossip at 10 + 20 s, the driver at 31 s; its own heartbeat (6 failures of 60 s)
  // would take minutes.
  const auto ev = events_of(run_first(build(doc(kJava3), {"faults.heartbeat={\"driver\": \"go\"}"})));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].by, "event");
  EXPECT_DOUBLE_EQ(ev[0].at_s, 31.0);
  // Without the event in time (gossip after 15 min), the heartbeat: ticks at 1 + 30k s, the first
  // after the death at 31 s, closed after 6 x 60 s + 5 x 30 s, then the refill's dial fails after
  // 60 s: 31 + 570 = 601 s.
  const auto hb = events_of(run_first(build(doc(kJava3, 620), {"faults.heartbeat={\"driver\": \"go\"}",
                                                                  "faults.server_detection_ms=900000",
                                                                  "client.rate_ops_s=200"})));
  ASSERT_EQ(hb.size(), 1u);
  EXPECT_EQ(hb[0].by, "heartbeat");
  EXPECT_DOUBLE_EQ(hb[0].at_s, 601.0);
}

TEST(DriverDetection, RustProbesOnTheDownEventOrAtItsPeriodicKeepalive) {
  // Rust: a DOWN event (gossip at 10 + 5 s) makes the keepaliver probe at once; no answer within
  // keepalive_timeout (30 s): 45 s.
  const auto ev = events_of(run_first(build(doc(kJava3), {"faults.heartbeat={\"driver\": \"rust\"}",
                                                           "faults.server_detection_ms=5000"})));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].by, "heartbeat");
  EXPECT_DOUBLE_EQ(ev[0].at_s, 45.0);
  // With gossip later (20 s): the periodic keepalive at 30 s comes first: 60 s.
  const auto p = events_of(run_first(build(doc(kJava3), {"faults.heartbeat={\"driver\": \"rust\"}"})));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_DOUBLE_EQ(p[0].at_s, 60.0);
}

TEST(DriverDetection, NodejsRemovesAConnectionWithMoreThan64TimedOutRequests) {
  // Node.js: requests keep being written to n1, so its idle timer never fires; each times out
  // after readTimeout (12 s) and stays unanswered; the 65th removes the connection. At about
  // 2,000/3 requests a second to n1 that is 10 s + 65 / 667 s + 12 s, about 22.1 s.
  const auto ev = events_of(run_first(build(doc(kJava3), {"faults.heartbeat={\"driver\": \"nodejs\"}"})));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].by, "timeouts");
  EXPECT_GT(ev[0].at_s, 22.0);
  EXPECT_LT(ev[0].at_s, 22.3);
  // At 2 op/s a request still goes to n1 every 1.5 s or so, and each write restarts the idle
  // timer, so the heartbeat never fires: only the 65th timeout, about 10 + 65 x 1.5 + 12 s later.
  const auto slow = events_of(run_first(build(doc(kJava3, 200), {"faults.heartbeat={\"driver\": \"nodejs\"}",
                                                                  "client.rate_ops_s=2"})));
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].by, "timeouts");
  EXPECT_GT(slow[0].at_s, 90.0);
  EXPECT_LT(slow[0].at_s, 160.0);
}

TEST(DriverDetection, ExponentialReconnectionAfterTheNodeReturns) {
  // Java 3.x: down at 52 s; ExponentialReconnectionPolicy(1 s, 10 min) tries at 53, 55, 59, 67 s.
  // n1 is back at 60 s; gossip's UP event is far away (600 s): the attempt at 67 s succeeds.
  const RunResult r = run_first(build(doc(kJava3), {"faults.server_detection_ms=600000",
                                                    "faults.events=[{\"at_s\": 10, \"node\": \"n1\", \"kind\": "
                                                    "\"down\", \"duration_s\": 50}]"}));
  const auto ev = events_of(r);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_TRUE(ev[1].up);
  EXPECT_EQ(ev[1].by, "reconnect");
  EXPECT_NEAR(ev[0].at_s, 52.0, kSlack);
  EXPECT_NEAR(ev[1].at_s, 67.0, kSlack);
  // The UP event (gossip 1 s after the return) makes the driver try at once: up at 61 s.
  const auto up = events_of(run_first(build(doc(kJava3), {"faults.server_detection_ms=1000",
                                                          "faults.events=[{\"at_s\": 10, \"node\": \"n1\", \"kind\": "
                                                          "\"down\", \"duration_s\": 50}]"})));
  ASSERT_EQ(up.size(), 2u);
  EXPECT_DOUBLE_EQ(up[1].at_s, 61.0);  // the UP event, an attempt at once
  // Java 4.x caps the delays at 60 s, gocql retries every 60 s (ReconnectInterval).
  const auto go = events_of(run_first(build(doc(kJava3), {"faults.server_detection_ms=600000",
                                                          "faults.heartbeat={\"driver\": \"go\"}",
                                                          "faults.events=[{\"at_s\": 10, \"node\": \"n1\", \"kind\": "
                                                          "\"down\", \"duration_s\": 50}]"})));
  // No DOWN event either (gossip at 610 s): heartbeat at 31 s + 570 s = 601 s, beyond the run.
  EXPECT_TRUE(go.empty());
}

TEST(DriverDetection, KillClosesTheConnectionsAtOnce) {
  // kill -9: the kernel closes the sockets; the driver marks n1 down at 10 s exactly and retries
  // what was in flight on the next host at once. The silent `down` costs a 12 s client timeout.
  const std::vector<std::string> kill = {"faults.events=[{\"at_s\": 10, \"node\": \"n1\", \"kind\": \"kill\"}]"};
  const RunResult k = run_first(build(doc(kJava3, 30), kill));
  const auto ev = events_of(k);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].by, "connection");
  EXPECT_DOUBLE_EQ(ev[0].at_s, 10.0);
  EXPECT_EQ(k.measured_errors(), 0u);
  EXPECT_LT(k.latency.max(), 50 * kMs);
  EXPECT_GT(k.client.retries, 0u);
  const RunResult d = run_first(build(doc(kJava3, 30)));
  EXPECT_GE(d.latency.max(), 12 * kSec);
  // The same with the fixed rule: a kill is still seen at once, `down` after driver_detection_ms.
  const RunResult kf = run_first(build(doc(kJava3, 30), {"faults.driver_detection=\"fixed\"",
                                                         "faults.events=[{\"at_s\": 10, \"node\": \"n1\", \"kind\": \"kill\"}]"}));
  EXPECT_FALSE(kf.detection.has_value());
  EXPECT_LT(kf.latency.max(), 50 * kMs);
  EXPECT_EQ(kf.measured_errors(), 0u);
}

TEST(DriverDetection, APauseLongerThanTheHeartbeatTimeoutMarksTheNodeDown) {
  // A 40 s stop-the-world pause from 10 s: the heartbeat at 40 s is answered at 50 s. Java 3.x
  // waits 12 s: answered, n1 stays up. Java 4.x waits 5 s: down at 45 s; its reconnection at
  // 46 s connects but the handshake waits for the pause's end: up at 50 s.
  const std::vector<std::string> pause = {"faults.events=[{\"at_s\": 10, \"node\": \"n1\", \"kind\": \"pause\", "
                                          "\"duration_s\": 40}]", "faults.server_detection_ms=600000"};
  EXPECT_TRUE(events_of(run_first(build(doc(kJava3), pause))).empty());
  auto java4 = pause;
  java4.emplace_back("faults.heartbeat={\"driver\": \"java4\"}");
  const auto ev = events_of(run_first(build(doc(kJava3), java4)));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_NEAR(ev[0].at_s, 45.0, kSlack);
  EXPECT_TRUE(ev[1].up);
  EXPECT_DOUBLE_EQ(ev[1].at_s, 50.0);
}

// A node that answers slowly as coordinator is never marked down (it answers, so its connections
// are never idle, and it would answer a heartbeat): a policy without latency awareness keeps
// sending it its share, and its requests time out on the client.
TEST(DriverDetection, ASlowCoordinatorKeepsItsShareAndIsNeverMarkedDown) {
  auto d = doc(kJava3, 60);
  d["faults"]["events"] = jsonin::Json::parse(R"([{"at_s": 10, "node": "n1", "kind": "slow", "factor": 500, "duration_s": 50}])");
  d["timeouts"] = {{"client_ms", 2000}};
  d["report"] = {{"timeline_interval_s", 10}};
  const RunResult r = run_first(build(d));
  EXPECT_TRUE(events_of(r).empty());
  // The requests n1 coordinates over 20-60 s: a third of the operations, as before it slowed
  // down (the retries of its timed-out requests go to n2 and n3, on top).
  const auto j = nlohmann::json::parse(report_json_stable(r).dump());
  double n1 = 0, others = 0, operations = 0;
  for (const auto& p : j["timeline"]["points"]) {
    if (p["t_s"].get<double>() < 20) continue;
    n1 += p["coordinator_ops"][0].get<double>();
    others += p["coordinator_ops"][1].get<double>() + p["coordinator_ops"][2].get<double>();
    operations += p["ops"].get<double>() + p["errors"].get<double>();
  }
  ASSERT_GT(operations, 0);
  EXPECT_NEAR(n1 / operations, 1.0 / 3, 0.02);
  EXPECT_GT(others, 2 * n1);
  // The contrast: Java 3.x LatencyAware (under TokenAware NEUTRAL) excludes the slow host from
  // the front of the plans, so it coordinates far fewer (the same failure detection: still up).
  auto la = d;
  la["policies"][0]["policy"] = jsonin::Json::parse(
      R"({"type": "TokenAware", "ordering": "NEUTRAL", "child": {"type": "LatencyAware", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}})");
  const RunResult l = run_first(build(la));
  EXPECT_TRUE(events_of(l).empty());
  const auto jl = nlohmann::json::parse(report_json_stable(l).dump());
  double ln1 = 0, lops = 0;
  for (const auto& p : jl["timeline"]["points"]) {
    if (p["t_s"].get<double>() < 20) continue;
    ln1 += p["coordinator_ops"][0].get<double>();
    lops += p["ops"].get<double>() + p["errors"].get<double>();
  }
  ASSERT_GT(lops, 0);
  EXPECT_LT(ln1 / lops, 0.1);
  std::printf("slow n1 coordinates %.3f of operations (RANDOM), %.3f (LatencyAware); retries %llu vs %llu\n", n1 / operations,
              ln1 / lops, static_cast<unsigned long long>(r.client.retries), static_cast<unsigned long long>(l.client.retries));
  // n1 at 500 x 120 us per read is far past saturation at a third of 2,000 op/s: requests time
  // out on the client (2 s) and are retried elsewhere.
  EXPECT_GT(r.client.retries, 1000u);
}

// heartbeat.driver "auto" takes the driver of the policy run (policies/registry.hpp).
TEST(DriverDetection, AutoTakesThePolicysDriver) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kJava3, "java3"},
      {kJava4, "java4"},
      {R"({"type": "PythonDCAwareRoundRobin", "local_dc": "dc1"})", "python"},
      {R"({"type": "GoRoundRobin"})", "go"},
      {R"({"type": "RustDefault"})", "rust"},
      {R"({"type": "NodeDCAwareRoundRobin", "local_dc": "dc1"})", "nodejs"},
  };
  for (const auto& [policy, driver] : cases) {
    const RunResult r = run_first(build(doc(policy, 1)));
    ASSERT_TRUE(r.detection.has_value()) << policy;
    EXPECT_EQ(r.detection->driver, driver) << policy;
  }
}

// Same scenario and seed, byte-identical reports (the detection block included).
TEST(DriverDetection, Deterministic) {
  const Scenario sc = build(doc(kJava3, 60), {"faults.heartbeat={\"driver\": \"nodejs\"}"});
  const std::string a = report_json_stable(run_first(sc)).dump();
  EXPECT_EQ(a, report_json_stable(run_first(sc)).dump());
  EXPECT_NE(a.find("\"by\":\"timeouts\""), std::string::npos);
}

// Scenarios without the field keep the fixed rule and report no driver_detection block.
TEST(DriverDetection, FixedIsTheDefault) {
  auto d = doc(kJava3, 20);
  d["faults"].erase("driver_detection");
  const RunResult r = run_first(build(d));
  EXPECT_FALSE(r.detection.has_value());
  EXPECT_FALSE(nlohmann::json::parse(report_json_stable(r).dump()).contains("driver_detection"));
}

}  // namespace
}  // namespace lbsim
