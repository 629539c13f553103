// A scenario's faults as a real driver sees them through `lbsim serve` (issue 46): the Python
// driver 3.25 (tests/serve/python_timeline.py, TokenAwarePolicy over DCAwareRoundRobinPolicy,
// unshuffled: a key's requests go to its first replica while it is up) sends a read every 2 ms on
// configs/serve.json. The times are the steady clock's (serve.json's started_steady_ns is the
// simulation's time 0), so the driver's log and the fault line up to the microsecond.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nodejs/oracle.hpp"
#include "serve_test_util.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/serve/cql_wire.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

using nlohmann::json;
const std::string kServeFile = std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json";

struct Request {
  double sent_s, done_s;  // since the simulation's start
  bool affected;          // the driver may send the key to n2 (its first replica, or any replica)
  NodeId host;            // who answered (kNoNode: it failed)
};

// kill n2 at 3 s for 3 s: the driver sees its connections close at 3 s and the node refuse new
// ones until 6 s. It must stop sending to n2 at once (n2's keys go to another replica), and take
// n2 back after it returns (its reconnection policy: exponential from 1 s in both drivers, or the
// other nodes' STATUS_CHANGE UP a second after the return). `command` runs the driver's timeline
// client (a read every 2 ms for 9 s) against ADDRESS and PORT; `any_replica`: the driver spreads a
// key over its replicas (Node.js shuffles them), else it sends it to the first (Python).
// The last line of a client's output that is a JSON object (the clients print one at the end).
std::string last_json_line(const std::string& out) {
  std::size_t end = out.size();
  while (end > 0) {
    const std::size_t begin = out.rfind('\n', end - 1);
    const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
    if (from < out.size() && out[from] == '{') return out.substr(from, end - from);
    if (begin == std::string::npos) break;
    end = begin;
  }
  return "";
}

void kill_and_return(const std::string& name, const std::string& command, const std::string& address, int port,
                     bool any_replica, double back_within_s = 4, bool reports_changes = true) {
  const Scenario sc =
      load_scenario(kServeFile, {R"(faults.events=[{"at_s": 3, "node": "n2", "kind": "kill", "duration_s": 3}])"});
  serve::ServeOptions opt;
  opt.address = address;
  opt.port = static_cast<std::uint16_t>(port);
  testing::ServeThread server(sc, "python", opt);
  const std::string out = testing::capture(fmt::format(fmt::runtime(command), opt.address, opt.port));
  const auto& report = server.stop();
  const std::string line = last_json_line(out);
  ASSERT_FALSE(line.empty()) << "the " << name << " client failed:\n" << out;
  const json client = json::parse(line);
  const double origin = report["serve"]["started_steady_ns"].get<double>();
  const std::uint32_t base = *cql::parse_ipv4(opt.address);
  const TokenRing& ring = sc.placement();
  constexpr NodeId n2 = 1;
  std::vector<Request> reqs;
  for (const auto& r : client["requests"]) {
    const std::string hex = r["key"].get<std::string>();
    cql::Bytes key;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
      key.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    Request q;
    q.sent_s = (r["sent"].get<double>() - origin) / 1e9;
    q.done_s = (r["done"].get<double>() - origin) / 1e9;
    const Token t = murmur3_token(key);
    if (any_replica) {
      const auto reps = ring.replicas_at(ring.range_index(t), ReplicaOrder::Server);
      q.affected = std::find(reps.begin(), reps.end(), n2) != reps.end();
    } else {
      q.affected = ring.owner(t) == n2;
    }
    const std::string h = r["host"].get<std::string>();
    q.host = h.empty() ? kNoNode : static_cast<NodeId>(*cql::parse_ipv4(h) - base);
    reqs.push_back(q);
  }
  ASSERT_GT(reqs.size(), 3000u);
  int before = 0, during = 0, failed = 0, elsewhere = 0, after = 0;
  double first_elsewhere = std::numeric_limits<double>::infinity(), back = first_elsewhere;
  for (const Request& q : reqs) {
    if (q.host == kNoNode) {
      ++failed;
      continue;
    }
    if (!q.affected) continue;
    if (q.done_s < 3) before += q.host == n2;
    if (q.sent_s > 3.001 && q.sent_s < 6) during += q.host == n2;
    if (q.sent_s > 3 && q.sent_s < 6 && q.host != n2) {
      ++elsewhere;
      first_elsewhere = std::min(first_elsewhere, q.done_s);
    }
    if (q.sent_s > 6 && q.host == n2) {
      ++after;
      back = std::min(back, q.done_s);
    }
  }
  double down_at = -1;
  for (const auto& c : client["changes"])
    if (c[1].get<std::string>() == cql::ipv4_text(base + n2) && c[2].get<std::string>() == "down" && down_at < 0)
      down_at = (c[0].get<double>() - origin) / 1e9;
  std::printf("%s, n2's keys: %d answered by n2 before the kill, %d during it, %d elsewhere during it (the first %.1f ms "
              "after the kill); the driver marked n2 down %.1f ms after the kill; n2 back %.3f s after its return (%d "
              "after it); %d failed of %zu\n",
              name.c_str(), before, during, elsewhere, (first_elsewhere - 3) * 1e3, (down_at - 3) * 1e3, back - 6, after,
              failed, reqs.size());
  ::testing::Test::RecordProperty("first_request_elsewhere_ms", fmt::format("{:.1f}", (first_elsewhere - 3) * 1e3));
  ::testing::Test::RecordProperty("back_after_return_s", fmt::format("{:.3f}", back - 6));
  EXPECT_GT(before, 100);
  EXPECT_EQ(during, 0) << "the driver sent to the killed node";
  EXPECT_GT(elsewhere, 100);
  EXPECT_LT(first_elsewhere - 3, 0.1) << "the driver should leave a node whose sockets closed at once";
  if (back_within_s > 0) {  // < 0: the driver is not expected back within the run
    EXPECT_GT(after, 0) << "the driver never took n2 back";
    EXPECT_LT(back - 6, back_within_s) << "the driver took n2 back too late";
  }
  // The requests in flight on n2's connections at the kill may fail; nothing else does.
  EXPECT_LE(failed, 5);
  EXPECT_GT(report["serve"]["connections"]["closed_by_faults"].get<int>(), 0);
  if (reports_changes) {
    EXPECT_GE(down_at, 3) << "the driver's own listener never saw n2 go down";
    EXPECT_LT(down_at, 3.1);
  }
}

TEST(ServePythonDriverFaults, AKilledNodeIsLeftAtOnceAndTakenBackAfterItReturns) {
  if (const std::string why = testing::python_driver_missing(); !why.empty()) GTEST_SKIP() << why;
  kill_and_return("Python", "/usr/bin/python3 '" + std::string(LBSIM_SOURCE_DIR) + "/tests/serve/python_timeline.py' {} {} 9 2 11 2>&1",
                  "127.0.9.1", 19642, false);
}

// gocql 1.3.2: no public host listener, so no down time. It takes n2 back only 11 s after the
// other nodes' STATUS_CHANGE UP at 7 s, beyond this run: its event debounce (1 s), then
// cassVersion.nodeUpDelay (host_source.go), 10 s unless Major >= 2 && Minor >= 2, which
// release_version 4.1.0 fails (measured in a longer run: back at 18.06 s; docs/fidelity.md).
TEST(ServeGocqlDriverFaults, AKilledNodeIsLeftAtOnceAndTakenBackAfterItReturns) {
  const testing::GoClient go("gocql_timeline");
  if (!go.missing.empty()) GTEST_SKIP() << go.missing;
  ASSERT_TRUE(go.error.empty()) << go.error;
  const std::string bin = go.binary;
  kill_and_return("gocql", "'" + bin + "' {} {} 9 2 11 2>&1", "127.0.14.1", 19682, false, -1, false);
}

TEST(ServeNodeJsDriverFaults, AKilledNodeIsLeftAtOnceAndTakenBackAfterItReturns) {
  const auto env = policy::nodejs_test::oracle_env();
  if (!env.skip_reason.empty()) GTEST_SKIP() << env.skip_reason;
  kill_and_return("Node.js",
                  "node '" + std::string(LBSIM_SOURCE_DIR) + "/tests/serve/nodejs_timeline.js' '" + env.driver +
                      "' {} {} 9 2 11 2>&1",
                  "127.0.13.1", 19662, true);
}

// down n2 at 3 s for 5 s with both heartbeats shortened to 1 s (the driver's idle_heartbeat_interval
// and idle_heartbeat_timeout; lbsim's faults.heartbeat): the sockets stay open and nothing answers.
// lbsim's model of the Python driver (sim/mech/detect/detect.cpp: a sweep every interval, an OPTIONS
// on a connection that read nothing since the last one, down when it is not answered within the
// timeout) puts the detection between r + I + T and r + 2I + T, r the last answer (about 3 s): the
// sweep's phase decides where. The model's sweeps are at multiples of I from time 0, the driver's
// from its connect, so the two can differ by up to I; the test requires the driver inside the
// model's window (with 10 % of the window's width either side) and reports both (docs/fidelity.md).
TEST(ServePythonDriverFaults, ASilentNodeIsDetectedByTheHeartbeatWhereTheModelSays) {
  if (const std::string why = testing::python_driver_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::string fault = R"(faults.events=[{"at_s": 3, "node": "n2", "kind": "down", "duration_s": 5}])";
  const Scenario sc = load_scenario(kServeFile, {fault});
  serve::ServeOptions opt;
  opt.address = "127.0.10.1";
  opt.port = 19742;
  testing::ServeThread server(sc, "python", opt);
  const std::string out = testing::capture(fmt::format("/usr/bin/python3 '{}/tests/serve/python_timeline.py' {} {} 7 2 13 1 2>&1",
                                              LBSIM_SOURCE_DIR, opt.address, opt.port));
  const auto& report = server.stop();
  const auto brace = out.find("{\"requests\"");
  ASSERT_NE(brace, std::string::npos) << "the Python client failed:\n" << out;
  const json client = json::parse(out.substr(brace));
  const double origin = report["serve"]["started_steady_ns"].get<double>();
  const std::string n2 = cql::ipv4_text(*cql::parse_ipv4(opt.address) + 1);
  double down_at = -1, last_answer = 0;
  for (const auto& c : client["changes"])
    if (c[1].get<std::string>() == n2 && c[2].get<std::string>() == "down" && down_at < 0)
      down_at = (c[0].get<double>() - origin) / 1e9;
  for (const auto& r : client["requests"])
    if (r["host"].get<std::string>() == n2 && (r["done"].get<double>() - origin) / 1e9 < 3.5)
      last_answer = std::max(last_answer, (r["done"].get<double>() - origin) / 1e9);
  ASSERT_GT(down_at, 0) << "the driver never marked the silent node down";

  // lbsim's model of the same: the Python policy, the same fault and heartbeat, reads at 500/s.
  const Scenario model_sc = load_scenario(
      kServeFile, {fault, "faults.driver_detection=driver", R"(faults.heartbeat={"interval_ms": 1000, "timeout_ms": 1000})",
                   "client.rate_ops_s=500", R"(workload.mix={"read": 1})", "workload.ops=4500"});
  const RunResult r = run_simulation(model_sc, *model_sc.find_policy("python"), model_sc.seed);
  double model_down = -1;
  ASSERT_TRUE(r.detection);
  for (const auto& e : r.detection->events)
    if (e.node == "n2" && !e.up && model_down < 0) model_down = e.at_s;
  ASSERT_GT(model_down, 0);
  std::printf("silent n2 from 3 s (last answer %.3f s): the driver marked it down at %.3f s, lbsim's model at %.3f s; "
              "the model's window [%.3f, %.3f] s\n",
              last_answer, down_at, model_down, last_answer + 2, last_answer + 3);
  ::testing::Test::RecordProperty("driver_down_s", fmt::format("{:.3f}", down_at));
  ::testing::Test::RecordProperty("model_down_s", fmt::format("{:.3f}", model_down));
  EXPECT_GE(down_at, last_answer + 2 - 0.1);
  EXPECT_LE(down_at, last_answer + 3 + 0.1);
  EXPECT_GE(model_down, 3 + 2 - 0.1);
  EXPECT_LE(model_down, 3 + 3 + 0.1);
  EXPECT_EQ(report["serve"]["unanswered"]["node_down"].get<int>() > 0, true);
}

// down n2 at 3 s for the Node.js driver with its heartbeat and read timeout at 1 s: its power of two
// choices stops writing to n2 once n2's requests hang (a timed-out request keeps its stream id,
// so it counts as in flight until an answer comes: lib/connection.js getInFlight, freeStreamId),
// so the write-idle heartbeat fires an interval after the last write and the OPTIONS times out a
// read timeout later: down at about 3 + 1 + 1 s. lbsim's model keeps a Node.js request in flight
// after its client timeout too (Loader::lingers, sim/engine/sim_impl.hpp), and marks n2 down by
// the same heartbeat: both must fall in the driver's window, within one heartbeat interval of
// each other (their write phases differ).
TEST(ServeNodeJsDriverFaults, ASilentNodeIsDetectedByTheWriteIdleHeartbeat) {
  const auto env = policy::nodejs_test::oracle_env();
  if (!env.skip_reason.empty()) GTEST_SKIP() << env.skip_reason;
  const std::string fault = R"(faults.events=[{"at_s": 3, "node": "n2", "kind": "down", "duration_s": 5}])";
  const Scenario sc = load_scenario(kServeFile, {fault});
  serve::ServeOptions opt;
  opt.address = "127.0.15.1";
  opt.port = 19702;
  testing::ServeThread server(sc, "nodejs", opt);
  const std::string out = testing::capture(fmt::format("node '{}/tests/serve/nodejs_timeline.js' '{}' {} {} 8 2 13 1000 1000 2>&1",
                                              LBSIM_SOURCE_DIR, env.driver, opt.address, opt.port));
  const auto& report = server.stop();
  const std::string line = last_json_line(out);
  ASSERT_FALSE(line.empty()) << "the Node.js client failed:\n" << out;
  const json client = json::parse(line);
  const double origin = report["serve"]["started_steady_ns"].get<double>();
  const std::string n2 = cql::ipv4_text(*cql::parse_ipv4(opt.address) + 1);
  double down_at = -1;
  for (const auto& c : client["changes"])
    if (c[1].get<std::string>() == n2 && c[2].get<std::string>() == "down" && down_at < 0)
      down_at = (c[0].get<double>() - origin) / 1e9;
  const Scenario model_sc = load_scenario(
      kServeFile, {fault, "faults.driver_detection=driver", R"(faults.heartbeat={"interval_ms": 1000, "timeout_ms": 1000})",
                   "timeouts.client_ms=1000", "client.rate_ops_s=500", R"(workload.mix={"read": 1})", "workload.ops=3500"});
  const RunResult r = run_simulation(model_sc, *model_sc.find_policy("nodejs"), model_sc.seed);
  double model_down = -1;
  if (r.detection)
    for (const auto& e : r.detection->events)
      if (e.node == "n2" && !e.up && model_down < 0) model_down = e.at_s;
  std::printf("Node.js, silent n2 from 3 s: the driver marked it down at %.3f s; lbsim's model %s\n", down_at,
              model_down < 0 ? "never did" : fmt::format("at {:.3f} s", model_down).c_str());
  ::testing::Test::RecordProperty("driver_down_s", fmt::format("{:.3f}", down_at));
  // The last write to n2 comes a little after 3 s, later on a loaded machine (its timers and event
  // loop drift): measured 5.05 to 5.30 s alone.
  EXPECT_GE(down_at, 4.9) << "the driver marked n2 down before its heartbeat could have fired";
  EXPECT_LE(down_at, 6.8) << "the driver did not mark n2 down within 3.8 s of the fault";
  EXPECT_GE(model_down, 4.9) << "lbsim's model marked n2 down before its heartbeat could have fired";
  EXPECT_LE(model_down, 6.8) << "lbsim's model did not mark n2 down within 3.8 s of the fault";
  EXPECT_LE(std::abs(model_down - down_at), 1.0) << "more than one heartbeat interval between driver and model";
}

// down n2 at 3 s for gocql 1.3.2, which heeds the cluster's STATUS_CHANGE DOWN (events.go
// handleNodeDown: the host leaves the policy and the pool), after its 1 s event debounce
// (eventDebounceTime). lbsim serve sends it faults.server_detection (1 s) after the fault, so the
// driver leaves n2 at about 5 s; its own heartbeat (conn.go heartBeat: an OPTIONS every 5 s, the
// connection closed after 6 failures) would take far longer. gocql has no public host listener:
// the time it left n2 is its last request sent to n2. lbsim's model of gocql (sim/mech/detect, the
// DOWN event with the 1 s debounce) marks n2 down "by event" at 3 + 1 + 1 s.
TEST(ServeGocqlDriverFaults, ASilentNodeIsLeftAtTheClustersDownEventAsTheModelSays) {
  const testing::GoClient go("gocql_timeline");
  if (!go.missing.empty()) GTEST_SKIP() << go.missing;
  ASSERT_TRUE(go.error.empty()) << go.error;
  const std::string fault = R"(faults.events=[{"at_s": 3, "node": "n2", "kind": "down", "duration_s": 5}])";
  const Scenario sc = load_scenario(kServeFile, {fault});
  serve::ServeOptions opt;
  opt.address = "127.0.20.1";
  opt.port = 19872;
  testing::ServeThread server(sc, "go", opt);
  const std::string out =
      testing::capture(fmt::format("'{}' {} {} 7 2 13 1000 2>&1", go.binary, opt.address, opt.port));
  const auto& report = server.stop();
  const std::string line = last_json_line(out);
  ASSERT_FALSE(line.empty()) << "the gocql client failed:\n" << out;
  const json client = json::parse(line);
  const double origin = report["serve"]["started_steady_ns"].get<double>();
  const std::string n2 = cql::ipv4_text(*cql::parse_ipv4(opt.address) + 1);
  double last_to_n2 = -1;
  int to_n2_before = 0;
  for (const auto& r : client["requests"]) {
    if (r["tried"].get<std::string>() != n2) continue;
    const double sent = (r["sent"].get<double>() - origin) / 1e9;
    if (sent < 3) ++to_n2_before;
    if (sent < 8) last_to_n2 = std::max(last_to_n2, sent);
  }
  const Scenario model_sc = load_scenario(kServeFile, {fault, "faults.driver_detection=driver", "client.rate_ops_s=500",
                                                       R"(workload.mix={"read": 1})", "workload.ops=3500"});
  const RunResult r = run_simulation(model_sc, *model_sc.find_policy("go"), model_sc.seed);
  double model_down = -1;
  std::string by;
  if (r.detection)
    for (const auto& e : r.detection->events)
      if (e.node == "n2" && !e.up && model_down < 0) model_down = e.at_s, by = e.by;
  std::printf("gocql, silent n2 from 3 s: its last request to n2 sent at %.3f s (%d before the fault); lbsim's model "
              "marked n2 down at %.3f s by %s\n",
              last_to_n2, to_n2_before, model_down, by.c_str());
  ::testing::Test::RecordProperty("driver_left_s", fmt::format("{:.3f}", last_to_n2));
  EXPECT_GT(to_n2_before, 100);
  EXPECT_GE(last_to_n2, 4.9) << "the driver left n2 before the DOWN event and its debounce";
  EXPECT_LE(last_to_n2, 5.5) << "the driver kept sending to n2 after the DOWN event";
  EXPECT_EQ(by, "event");
  EXPECT_NEAR(model_down, 5.0, 0.05);
  EXPECT_LE(std::abs(model_down - last_to_n2), 0.5);
}

// Topology changes: n6 joins (add_node at 1 s, 1 s of streaming: NORMAL at 2 s) and n2 leaves
// (decommission at 4 s: left at 5 s) on a ScyllaDB release's vnode keyspace. n6 listens only once
// it is NORMAL; the other nodes' registered connections hear NEW_NODE a server_detection (1 s)
// later and REMOVED_NODE for n2 at 6 s, and their system.peers follows. The Python driver (its
// refresh windows at 0.1 s) adds n6 and routes its keys to it from then on, and drops n2.
TEST(ServePythonDriverFaults, ANodeThatJoinsIsUsedOnceAnnouncedAndOneThatLeftIsDropped) {
  if (const std::string why = testing::python_driver_missing(); !why.empty()) GTEST_SKIP() << why;
  const Scenario sc = load_scenario(
      kServeFile, {"cluster.server=scylla-2025.1",
                   R"(changes={"events": [{"at_s": 1, "action": "add_node", "nodes": [{"dc": "dc1", "rack": "r3"}]},
                               {"at_s": 4, "action": "decommission", "node": "n2"}], "streaming_s": 1})"});
  serve::ServeOptions opt;
  opt.address = "127.0.12.1";
  opt.port = 19942;
  testing::ServeThread server(sc, "python", opt);
  const std::string out = testing::capture(fmt::format(
      "/usr/bin/python3 '{}/tests/serve/python_timeline.py' {} {} 8 2 5 0 0.1 2>&1", LBSIM_SOURCE_DIR, opt.address, opt.port));
  const auto& report = server.stop();
  const auto brace = out.find("{\"requests\"");
  ASSERT_NE(brace, std::string::npos) << "the Python client failed:\n" << out;
  const json client = json::parse(out.substr(brace));
  const double origin = report["serve"]["started_steady_ns"].get<double>();
  const std::uint32_t base = *cql::parse_ipv4(opt.address);
  const std::string n2 = cql::ipv4_text(base + 1), n6 = cql::ipv4_text(base + 5);
  double first_n6 = 1e9, last_n2 = 0, added_n6 = -1, removed_n2 = -1;
  int to_n6 = 0, failed = 0;
  for (const auto& r : client["requests"]) {
    const double sent = (r["sent"].get<double>() - origin) / 1e9;
    const std::string h = r["host"].get<std::string>();
    failed += h.empty() ? 1 : 0;
    if (h == n6) {
      ++to_n6;
      first_n6 = std::min(first_n6, sent);
    }
    if (h == n2) last_n2 = std::max(last_n2, sent);
  }
  for (const auto& c : client["changes"]) {
    const double at = (c[0].get<double>() - origin) / 1e9;
    if (c[1] == n6 && c[2] == "add" && added_n6 < 0) added_n6 = at;
    if (c[1] == n2 && c[2] == "remove" && removed_n2 < 0) removed_n2 = at;
  }
  std::printf("n6 NORMAL at 2 s: the driver added it at %.3f s, first sent to it at %.3f s (%d requests); n2 left at "
              "5 s: removed at %.3f s, last sent to it at %.3f s; %d failed\n",
              added_n6, first_n6, to_n6, removed_n2, last_n2, failed);
  EXPECT_GE(added_n6, 3.0) << "NEW_NODE goes out a server_detection after NORMAL";
  EXPECT_LT(added_n6, 3.6);
  EXPECT_GE(first_n6, added_n6);
  EXPECT_GT(to_n6, 100);
  EXPECT_GE(removed_n2, 6.0);
  EXPECT_LT(removed_n2, 6.6);
  EXPECT_LT(last_n2, removed_n2 + 0.05) << "the driver kept sending to a removed node";
  EXPECT_GT(last_n2, 4.5) << "n2 coordinates until it is removed (it shuts down RING_DELAY after it left)";
  const auto hosts = client["hosts"].get<std::vector<std::string>>();
  EXPECT_EQ(std::count(hosts.begin(), hosts.end(), n6), 1);
  EXPECT_EQ(std::count(hosts.begin(), hosts.end(), n2), 0);
  EXPECT_EQ(failed, 0);
}

// Overload: a ScyllaDB release whose admission limit (2 requests per shard, 2 shards) sheds the
// Python client's windows of 64 reads and writes (1 ms service), so that about half the answers
// are Overloaded. The driver's retry rule is lbsim's python-default (configs/README.md,
// "retry.policy"): Overloaded goes to the plan's next host, for any statement, with no count, so a
// request fails only when all 5 hosts of its plan shed it. From the server's counts alone, then:
// data requests = requests + Overloaded answers - failures, and failures <= Overloaded / 5. lbsim's
// model with that rule obeys the same identity on the same scenario. How many are shed is not
// compared: it depends on the client's arrival pattern (docs/fidelity.md).
TEST(ServePythonDriverFaults, OverloadedAnswersAreRetriedOnTheNextHostAsTheModelsRuleSays) {
  if (const std::string why = testing::python_driver_missing(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::string> overload{"cluster.server=scylla-2025.1", "cluster.max_concurrent_requests_per_shard=2",
                                          "cluster.service.read.mean_us=1000", "cluster.service.read.p99_us=4000",
                                          "cluster.service.write.mean_us=1000", "cluster.service.write.p99_us=4000"};
  const Scenario sc = load_scenario(kServeFile, overload);
  serve::ServeOptions opt;
  opt.address = "127.0.11.1";
  opt.port = 19842;
  testing::ServeThread server(sc, "python", opt);
  constexpr int kN = 3000;
  const std::string out = testing::capture(fmt::format("/usr/bin/python3 '{}/tests/serve/python_client.py' {} {} {} 3 2>&1",
                                              LBSIM_SOURCE_DIR, opt.address, opt.port, kN));
  const auto& report = server.stop();
  const auto brace = out.find("{\"hosts\"");
  ASSERT_NE(brace, std::string::npos) << "the Python client failed:\n" << out;
  const json client = json::parse(out.substr(brace));
  std::int64_t data = 0;
  for (const auto& d : report["serve"]["data_requests"]) data += d["data_requests"].get<std::int64_t>();
  const std::int64_t overloaded = report["serve"]["errors_sent"].value("overloaded", std::int64_t{0});
  const std::int64_t failures = client["failures"].get<std::int64_t>();
  std::printf("Python under overload: %d requests, %lld data requests at the server, %lld Overloaded answers, %lld "
              "failed\n",
              kN, static_cast<long long>(data), static_cast<long long>(overloaded), static_cast<long long>(failures));
  EXPECT_GT(overloaded, kN / 10) << "the scenario should shed";
  EXPECT_EQ(data, kN + overloaded - failures) << "an Overloaded answer was not retried, or retried more than once";
  EXPECT_LE(failures * 5, overloaded);

  // The model, python-default, as a closed loop of 64: the same identity.
  std::vector<std::string> model_sets = overload;
  for (const char* x : {"retry.policy=python-default", "client.threads=64", "workload.ops=3000"}) model_sets.push_back(x);
  const Scenario model_sc = load_scenario(kServeFile, model_sets);
  const RunResult r = run_simulation(model_sc, *model_sc.find_policy("python"), model_sc.seed);
  std::uint64_t attempts = 0, failed = 0, no_host = 0;
  for (const auto& n : r.nodes) attempts += n.coordinator_ops;
  for (const auto& k : r.by_op) {
    failed += k.error_total();
    no_host += k.errors[static_cast<std::size_t>(ErrorKind::NoHostAvailable)];
  }
  // The model counts each decision to retry; a failed request's last finds no host and sends nothing.
  EXPECT_EQ(attempts + no_host, r.issued + r.client.retries);
  EXPECT_EQ(failed, no_host) << "the model failed a request other than by exhausting its plan";
  std::printf("the model as a closed loop of 64: %llu attempts for %llu operations, %llu failed\n",
              static_cast<unsigned long long>(attempts), static_cast<unsigned long long>(r.issued),
              static_cast<unsigned long long>(failed));
}

// The same overload for the Node.js driver (cassandra-driver 4.10, 64 in flight), whose rule is
// lbsim's nodejs-default (sim/engine/retry_policy.hpp, lib/request-execution.js): an Overloaded
// answer goes to the retry policy's onRequestError only for an idempotent request, which then
// tries the plan's next host, with no count. By default (isIdempotent false) no request is
// retried: data requests = requests and failures = Overloaded answers. With every statement
// idempotent: the Python identity, data requests = requests + Overloaded answers - failures. The
// model with nodejs-default obeys the same, by its own counts.
TEST(ServeNodeJsDriverFaults, OverloadedAnswersAreRetriedOnlyForIdempotentRequestsAsTheModelsRuleSays) {
  const auto env = policy::nodejs_test::oracle_env();
  if (!env.skip_reason.empty()) GTEST_SKIP() << env.skip_reason;
  const std::vector<std::string> overload{"cluster.server=scylla-2025.1", "cluster.max_concurrent_requests_per_shard=2",
                                          "cluster.service.read.mean_us=1000", "cluster.service.read.p99_us=4000",
                                          "cluster.service.write.mean_us=1000", "cluster.service.write.p99_us=4000"};
  const Scenario sc = load_scenario(kServeFile, overload);
  constexpr int kN = 3000;
  for (const bool idempotent : {false, true}) {
    serve::ServeOptions opt;
    opt.address = idempotent ? "127.0.17.1" : "127.0.16.1";
    opt.port = idempotent ? 19852 : 19851;
    testing::ServeThread server(sc, "nodejs", opt);
    const std::string out = testing::capture(fmt::format("node '{}/tests/serve/nodejs_client.js' '{}' {} {} {} 5 64 {} 2>&1",
                                                LBSIM_SOURCE_DIR, env.driver, opt.address, opt.port, kN,
                                                idempotent ? 1 : 0));
    const auto& report = server.stop();
    const std::string line = last_json_line(out);
    ASSERT_FALSE(line.empty()) << "the Node.js client failed:\n" << out;
    const json client = json::parse(line);
    std::int64_t data = 0;
    for (const auto& d : report["serve"]["data_requests"]) data += d["data_requests"].get<std::int64_t>();
    const std::int64_t overloaded = report["serve"]["errors_sent"].value("overloaded", std::int64_t{0});
    const std::int64_t failures = client["failures"].get<std::int64_t>();
    std::printf("Node.js under overload, idempotent %d: %d requests, %lld data requests at the server, %lld Overloaded "
                "answers, %lld failed\n",
                idempotent ? 1 : 0, kN, static_cast<long long>(data), static_cast<long long>(overloaded),
                static_cast<long long>(failures));
    EXPECT_GT(overloaded, kN / 10) << "the scenario should shed";
    if (!idempotent) {
      EXPECT_EQ(data, kN) << "a non-idempotent request was retried";
      EXPECT_EQ(failures, overloaded) << "an Overloaded answer did not fail its request";
    } else {
      EXPECT_EQ(data, kN + overloaded - failures) << "an Overloaded answer was not retried, or retried more than once";
      EXPECT_LE(failures * 5, overloaded);
    }

    // The model, nodejs-default, as a closed loop of 64.
    std::vector<std::string> model_sets = overload;
    for (const char* x : {"retry.policy=nodejs-default", "client.threads=64", "workload.ops=3000"}) model_sets.push_back(x);
    model_sets.push_back(idempotent ? "retry.idempotent=true" : "retry.idempotent=false");
    const Scenario model_sc = load_scenario(kServeFile, model_sets);
    const RunResult r = run_simulation(model_sc, *model_sc.find_policy("nodejs"), model_sc.seed);
    std::uint64_t attempts = 0, failed = 0, no_host = 0, shed = 0;
    for (const auto& n : r.nodes) attempts += n.coordinator_ops;
    for (const auto& k : r.by_op) {
      failed += k.error_total();
      no_host += k.errors[static_cast<std::size_t>(ErrorKind::NoHostAvailable)];
      shed += k.errors[static_cast<std::size_t>(ErrorKind::Overloaded)];
    }
    std::printf("the model: %llu attempts for %llu operations, %llu failed (%llu Overloaded)\n",
                static_cast<unsigned long long>(attempts), static_cast<unsigned long long>(r.issued),
                static_cast<unsigned long long>(failed), static_cast<unsigned long long>(shed));
    if (!idempotent) {
      EXPECT_EQ(attempts, r.issued) << "the model retried a non-idempotent request";
      EXPECT_EQ(failed, shed) << "the model failed a request other than by an Overloaded answer";
      EXPECT_GT(shed, 0u);
    } else {
      EXPECT_EQ(attempts + no_host, r.issued + r.client.retries);
      EXPECT_EQ(failed, no_host) << "the model failed a request other than by exhausting its plan";
    }
  }
}

// The same overload for gocql 1.3.2 (64 in flight). Its NewCluster sets no RetryPolicy
// (/usr/share/gocode/src/github.com/gocql/gocql/cluster.go; query_executor.go returns at once when
// the policy is nil), so by default no query is retried: data requests = requests and failures =
// Overloaded answers, lbsim's "never". With SimpleRetryPolicy{NumRetries: 3} (the scylladb/gocql
// fork's default, lbsim's gocql-simple) every error goes to the next host, at most 3 times: data
// requests = requests + Overloaded answers - failures, and each failure took 4 Overloaded answers.
// The model with each rule obeys the same, by its own counts.
TEST(ServeGocqlDriverFaults, OverloadedAnswersAreRetriedOnlyWithARetryPolicyAsTheModelsRulesSay) {
  const testing::GoClient go("gocql_client");
  if (!go.missing.empty()) GTEST_SKIP() << go.missing;
  ASSERT_TRUE(go.error.empty()) << go.error;
  const std::vector<std::string> overload{"cluster.server=scylla-2025.1", "cluster.max_concurrent_requests_per_shard=2",
                                          "cluster.service.read.mean_us=1000", "cluster.service.read.p99_us=4000",
                                          "cluster.service.write.mean_us=1000", "cluster.service.write.p99_us=4000"};
  const Scenario sc = load_scenario(kServeFile, overload);
  constexpr int kN = 3000;
  for (const bool retries : {false, true}) {
    serve::ServeOptions opt;
    opt.address = retries ? "127.0.19.1" : "127.0.18.1";
    opt.port = retries ? 19862 : 19861;
    testing::ServeThread server(sc, "go", opt);
    const std::string out = testing::capture(fmt::format("'{}' {} {} {} 5 64{} 2>&1", go.binary, opt.address, opt.port,
                                                kN, retries ? " 3" : ""));
    const auto& report = server.stop();
    const auto brace = out.find("{\"failures\"");
    ASSERT_NE(brace, std::string::npos) << "the gocql client failed:\n" << out;
    const json client = json::parse(out.substr(brace));
    std::int64_t data = 0;
    for (const auto& d : report["serve"]["data_requests"]) data += d["data_requests"].get<std::int64_t>();
    const std::int64_t overloaded = report["serve"]["errors_sent"].value("overloaded", std::int64_t{0});
    const std::int64_t failures = client["failures"].get<std::int64_t>();
    std::printf("gocql under overload, %s: %d requests, %lld data requests at the server, %lld Overloaded answers, "
                "%lld failed\n",
                retries ? "SimpleRetryPolicy{3}" : "no retry policy", kN, static_cast<long long>(data),
                static_cast<long long>(overloaded), static_cast<long long>(failures));
    EXPECT_GT(overloaded, kN / 10) << "the scenario should shed";
    if (!retries) {
      EXPECT_EQ(data, kN) << "a query was retried without a retry policy";
      EXPECT_EQ(failures, overloaded) << "an Overloaded answer did not fail its query";
    } else {
      EXPECT_EQ(data, kN + overloaded - failures) << "an Overloaded answer was not retried, or retried more than once";
      EXPECT_LE(failures * 4, overloaded);
    }

    std::vector<std::string> model_sets = overload;
    for (const char* x : {"client.threads=64", "workload.ops=3000"}) model_sets.push_back(x);
    model_sets.push_back(retries ? "retry.policy=gocql-simple" : "retry.policy=never");
    const Scenario model_sc = load_scenario(kServeFile, model_sets);
    const RunResult r = run_simulation(model_sc, *model_sc.find_policy("go"), model_sc.seed);
    std::uint64_t attempts = 0, failed = 0, shed = 0;
    for (const auto& n : r.nodes) attempts += n.coordinator_ops;
    for (const auto& k : r.by_op) {
      failed += k.error_total();
      shed += k.errors[static_cast<std::size_t>(ErrorKind::Overloaded)];
    }
    std::printf("the model: %llu attempts for %llu operations, %llu retries, %llu failed (%llu Overloaded)\n",
                static_cast<unsigned long long>(attempts), static_cast<unsigned long long>(r.issued),
                static_cast<unsigned long long>(r.client.retries), static_cast<unsigned long long>(failed),
                static_cast<unsigned long long>(shed));
    EXPECT_EQ(attempts, r.issued + r.client.retries);
    EXPECT_EQ(failed, shed) << "the model failed a query other than by an Overloaded answer";
    EXPECT_GT(shed, 0u);
    if (!retries) {
      EXPECT_EQ(r.client.retries, 0u);
    }
  }
}

}  // namespace
}  // namespace lbsim
