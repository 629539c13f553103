// Requests after a ring change in a vnode keyspace: a decommissioned node shuts its client
// servers down when it has left (apache/cassandra 3.11 StorageService.decommission: finishLeaving
// runs shutdownClientServers() after leaveRing()), so the driver's connections to it close, the
// requests in flight on them fail at once and are retried, and the host goes down at once (its
// last connection failed). A removed node was dead, and seen down, before the removal started
// (Cassandra's StorageService.removeNode and ScyllaDB's storage_service::removenode refuse a live
// node: "is alive and owns this ID. Use decommission command to remove it from the ring"). Before,
// both left the node silently dead with the driver still sending to it for
// faults.driver_detection_ms: each such request waited for the 12 s client timeout, so a closed
// loop stopped as soon as every thread had picked the node (the timeline ended at the switch and
// the run at switch + 12 s).
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "sim/config/scenario.hpp"
#include "sim_test_util.hpp"

namespace lbsim::vnode_change_test {

using testing::build;
using testing::run_first;

// 6 nodes in 3 racks, RF 3, 16 vnodes; 3 s of load (closed loop of `threads`, or open loop at
// `rate`), the timeline in 100 ms steps; `action` on n6 at 0.2 s, streaming 0.1 s.
jsonin::Json change_doc(const std::string& action, const std::string& load, const std::string& policy,
                        const std::string& shards = "1") {
  return jsonin::Json::parse(fmt::format(R"({{
    "name": "vnode-change", "seed": 1,
    "cluster": {{"datacenters": [{{"name": "dc1", "racks": 3, "nodes": 6}}], "num_tokens": 16, "shards": {3},
                "service": {{"coordinator": {{"dist": "exponential", "mean_us": 20}},
                             "read": {{"dist": "exponential", "mean_us": 100}},
                             "write": {{"dist": "exponential", "mean_us": 50}}}}}},
    "keyspace": {{"class": "NetworkTopologyStrategy", "rf": {{"dc1": 3}}}},
    "network": {{"same_rack": {{"dist": "exponential", "mean_us": 50}},
                 "same_dc": {{"dist": "exponential", "mean_us": 100}}}},
    "client": {{"dc": "dc1", {1}, "cores": 0, "driver_cost": 0}},
    "workload": {{"duration_s": 3, "mix": {{"read": 1, "write": 1}},
                  "consistency": {{"read": "ONE", "write": "ONE"}}, "keys": {{"count": 100000}}}},
    "changes": {{"events": [{{"at_s": 0.2, "action": "{0}", "node": "n6"}}], "streaming_s": 0.1}},
    "report": {{"timeline_interval_s": 0.1}},
    "policies": [{{"name": "p", "policy": {2}}}]
  }})",
                                         action, load, policy, shards));
}

// The timeline step from which n6 coordinates nothing: a decommissioned node is dropped by the
// driver faults.driver_detection_ms (1 s) after the switch at 0.3 s; a removed node at once (0.2 s).
constexpr std::size_t kDecommissionGone = 14, kRemovedGone = 3;

constexpr const char* kRoundRobin = R"({"type": "RoundRobin"})";
constexpr const char* kTokenAware =
    R"({"type": "TokenAware", "ordering": "RANDOM", "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}})";

std::uint64_t ops_between(const RunResult& r, double from_s, double to_s) {
  std::uint64_t n = 0;
  const double step = to_sec(r.timeline.interval());
  const auto pts = r.timeline.points();
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double t = static_cast<double>(i) * step;
    if (t >= from_s - 1e-9 && t < to_s - 1e-9) n += pts[i].ops;
  }
  return n;
}

// Operations keep completing after the change at the rate of the five remaining nodes, nothing
// waits for the client timeout, and the run ends with the window (plus the drain of the last
// operations, well under a millisecond here).
void expect_traffic_carries_on(const RunResult& r, bool open_loop, std::size_t gone_from_step) {
  const std::uint64_t first = ops_between(r, 0, 1);
  const std::uint64_t last = ops_between(r, 2, 3);
  std::printf("first second %llu ops, last second %llu ops, end %.6f s, errors %llu, retries %llu, max %.3f ms\n",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last), to_sec(r.end),
              static_cast<unsigned long long>(r.measured_errors()), static_cast<unsigned long long>(r.client.retries),
              to_ms(r.latency.max()));
  ASSERT_GT(first, 1000u);
  // A closed loop of 8 threads gets within 15 % of the first second's throughput (the cluster
  // lost a sixth of its nodes, the latency-bound loop barely notices); an open loop keeps its rate.
  EXPECT_GT(static_cast<double>(last), (open_loop ? 0.97 : 0.85) * static_cast<double>(first));
  EXPECT_LT(static_cast<double>(last), 1.03 * static_cast<double>(first) + (open_loop ? 0 : 0.2 * static_cast<double>(first)));
  // Every 100 ms step after the switch (0.3 s) completes operations.
  const auto pts = r.timeline.points();
  ASSERT_EQ(pts.size(), 30u);
  for (std::size_t i = 3; i < pts.size(); ++i) EXPECT_GT(pts[i].ops, first / 20) << "step " << i;
  // The run ends with the window: nothing hangs for the 12 s client timeout.
  EXPECT_NEAR(to_sec(r.end), 3.0, 0.01);
  EXPECT_EQ(r.issued, r.completed + r.failed);
  // No operation waited for the client timeout (12 s), counted or not.
  EXPECT_LT(r.latency.max(), 100 * kMs);
  EXPECT_EQ(r.measured_errors(), r.by_op[0].errors[static_cast<std::size_t>(ErrorKind::ClientTimeout)] +
                                     r.by_op[1].errors[static_cast<std::size_t>(ErrorKind::ClientTimeout)] +
                                     r.by_op[0].errors[static_cast<std::size_t>(ErrorKind::ReadTimeout)] +
                                     r.by_op[1].errors[static_cast<std::size_t>(ErrorKind::WriteTimeout)]);
  // At most the operations in flight on the node when it went away were retried or failed.
  EXPECT_LE(r.client.retries + r.measured_errors(), open_loop ? 40u : 16u);
  for (const auto& w : r.warnings)  // no operation hung past the window (free streaming may be warned of)
    EXPECT_EQ(w.find("ended after it"), std::string::npos) << w;
  // n6 coordinates nothing once the driver has dropped it.
  for (std::size_t i = gone_from_step; i < pts.size(); ++i) EXPECT_EQ(r.timeline.node_ops(i)[5], 0u) << "step " << i;
}

TEST(VnodeChange, DecommissionUnderAClosedLoopKeepsCompletingOperations) {
  for (const char* policy : {kRoundRobin, kTokenAware}) {
    SCOPED_TRACE(policy);
    expect_traffic_carries_on(run_first(build(change_doc("decommission", R"("threads": 8)", policy))), false, kDecommissionGone);
  }
  // More threads and shards change nothing.
  expect_traffic_carries_on(run_first(build(change_doc("decommission", R"("threads": 32)", kRoundRobin, "4"))), false,
                            kDecommissionGone);
}

TEST(VnodeChange, RemoveNodeUnderAClosedLoopKeepsCompletingOperations) {
  for (const char* policy : {kRoundRobin, kTokenAware}) {
    SCOPED_TRACE(policy);
    expect_traffic_carries_on(run_first(build(change_doc("remove_node", R"("threads": 8)", policy))), false, kRemovedGone);
  }
}

TEST(VnodeChange, DecommissionAndRemoveNodeUnderAnOpenLoopEndWithTheWindow) {
  for (const char* action : {"decommission", "remove_node"}) {
    SCOPED_TRACE(action);
    const RunResult r = run_first(build(change_doc(action, R"("rate_ops_s": 5000, "arrivals": "constant")", kRoundRobin)));
    expect_traffic_carries_on(r, true, std::string(action) == "decommission" ? kDecommissionGone : kRemovedGone);
    // 5,000 op/s x 3 s, all answered in the window but the last few (issued in its last
    // milliseconds, they end after it).
    EXPECT_GE(r.measured_ops(), 14990u);
    EXPECT_LE(r.measured_ops(), 15000u);
  }
}

TEST(VnodeChange, ADecommissionedNodeShutsDownARingDelayAfterTheSwitchAndItsRequestsAreRetriedAtOnce) {
  // The driver learns nothing for 60 s, so it still sends to n6 when n6 shuts its client
  // servers down 30 s (RING_DELAY) after the switch at 0.3 s: its connections close and the
  // requests in flight on them are retried on the next host at once, instead of waiting 12 s for
  // an answer that never comes; the driver marks it down then. Until then n6 coordinates (it still
  // runs), owning no range.
  jsonin::Json doc = change_doc("decommission", R"("threads": 8)", kRoundRobin);
  doc["workload"]["duration_s"] = 32;
  doc["report"]["timeline_interval_s"] = 1;
  doc["faults"] = jsonin::Json::parse(R"({"driver_detection_ms": 60000})");
  const RunResult r = run_first(build(std::move(doc)));
  EXPECT_NEAR(to_sec(r.end), 32.0, 0.01);
  EXPECT_GE(r.client.retries, 1u);
  EXPECT_LE(r.client.retries, 8u);  // at most one request per thread was in flight on n6
  EXPECT_EQ(r.measured_errors(), 0u);
  EXPECT_LT(r.latency.max(), 100 * kMs);
  const auto pts = r.timeline.points();
  ASSERT_EQ(pts.size(), 32u);
  EXPECT_GT(r.timeline.node_ops(29)[5], 1000u);  // 29-30 s: n6 still coordinates
  EXPECT_EQ(r.timeline.node_ops(31)[5], 0u);     // 31-32 s: gone
  EXPECT_GT(static_cast<double>(pts[31].ops), 0.85 * static_cast<double>(pts[0].ops));
}

TEST(VnodeChange, TabletKeyspacesLoseNoRequestWhenANodeLeavesEither) {
  // The same leave in a tablet keyspace: a decommissioned node leaves once drained (here within a
  // few tens of milliseconds), a removed one at once; both went silent before, with the same stop
  // of the closed loop until the client timeout.
  for (const char* action : {"decommission", "remove_node"}) {
    SCOPED_TRACE(action);
    jsonin::Json doc = change_doc(action, R"("threads": 8)", kRoundRobin);
    doc["keyspace"]["tablets"] = jsonin::Json::parse(R"({"initial": 16})");
    doc["changes"].erase("streaming_s");
    doc["changes"]["migration"] = jsonin::Json::parse(R"({"latency_ms": 10, "table_size_mb": 16, "stream_mb_s": 100})");
    const RunResult r = run_first(build(std::move(doc)));
    ASSERT_TRUE(r.tablets);
    EXPECT_EQ(r.tablets->node_replicas[5], 0u);
    expect_traffic_carries_on(r, false, 10);
  }
}

TEST(VnodeChange, EveryLoaderDropsARemovedNodeAtOnce) {
  // Two loaders (`clients`), each with its own driver: both see the removed node down at once.
  jsonin::Json doc = change_doc("remove_node", R"("threads": 8)", kRoundRobin);
  doc.erase("client");
  doc["clients"] = jsonin::Json::parse(R"([
    {"name": "a", "dc": "dc1", "threads": 4, "cores": 0, "driver_cost": 0, "policy": {"type": "RoundRobin"}},
    {"name": "b", "dc": "dc1", "threads": 4, "cores": 0, "driver_cost": 0, "policy": {"type": "RoundRobin"}}])");
  const RunResult r = run_first(build(std::move(doc)));
  ASSERT_EQ(r.loaders.size(), 2u);
  expect_traffic_carries_on(r, false, kRemovedGone);
}

TEST(VnodeChange, ClientTimeoutsOfASilentNodeAreCountedAsErrorsInTheWindow) {
  // The `down` fault is a silent death: requests to the node wait for the client timeout (here
  // 50 ms) until the driver marks it down (1 s). Without retries each such request is a
  // client_timeout error, counted in the window; with the default retry it succeeds on the next
  // host, its latency above the timeout.
  jsonin::Json doc = change_doc("decommission", R"("threads": 8)", kRoundRobin);
  doc.erase("changes");
  doc["faults"] = jsonin::Json::parse(R"({"events": [{"at_s": 0.2, "kind": "down", "node": "n6"}]})");
  doc["timeouts"] = jsonin::Json::parse(R"({"client_ms": 50})");
  {
    jsonin::Json none = doc;
    none["retry"] = jsonin::Json::parse(R"({"policy": "never"})");
    const RunResult r = run_first(build(std::move(none)));
    const std::uint64_t timeouts = r.by_op[0].errors[static_cast<std::size_t>(ErrorKind::ClientTimeout)] +
                                   r.by_op[1].errors[static_cast<std::size_t>(ErrorKind::ClientTimeout)];
    EXPECT_GE(timeouts, 8u);  // every thread hits n6 within the detection second, many times
    EXPECT_EQ(r.measured_errors(), timeouts);
    EXPECT_EQ(r.client.retries, 0u);
    EXPECT_LT(r.latency.max(), 50 * kMs);  // successes never exceed the timeout
    EXPECT_EQ(r.issued, r.completed + r.failed);
  }
  const RunResult r = run_first(build(std::move(doc)));
  EXPECT_EQ(r.measured_errors(), 0u);
  EXPECT_GE(r.client.retries, 8u);
  EXPECT_GE(r.latency.max(), 50 * kMs);
  EXPECT_TRUE(r.warnings.empty());  // every timeout fell inside the window
}

TEST(VnodeChange, OperationsThatWaitForTheClientTimeoutAndEndAfterTheWindowAreReported) {
  // A silent death at 0.2 s with the default 12 s client timeout: every closed-loop thread is
  // stuck on n6 within milliseconds. Six retry after the client timeout and succeed at 12.2 s; two
  // waited for reads that n6 never answered and fail by the coordinator's 5 s read timeout. All
  // end after the 3 s window, so they are in neither the latency nor the errors; the run says so
  // for those that waited for the client timeout: 6 operations, the longest 12 s.
  jsonin::Json doc = change_doc("decommission", R"("threads": 8)", kRoundRobin);
  doc.erase("changes");
  doc["faults"] = jsonin::Json::parse(R"({"events": [{"at_s": 0.2, "kind": "down", "node": "n6"}]})");
  const RunResult r = run_first(build(std::move(doc)));
  EXPECT_GT(to_sec(r.end), 12.0);
  EXPECT_EQ(r.measured_errors(), 0u);
  EXPECT_EQ(r.failed, 2u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "6 operations started in the measurement window ended after it, each after at least the client "
            "timeout (12000 ms; the longest 12.000 s): they count in neither the latency nor the errors (requests "
            "that waited for a node that never answered: see faults.driver_detection_ms)");
}

}  // namespace lbsim::vnode_change_test
