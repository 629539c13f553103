// The drivers' default retry policies (retry.policy, sim/engine/retry_policy.hpp, which cites each
// driver's source) and cassandra-stress's own re-executions (client.stress_retries, -errors
// retries=N): the decision table per driver, then runs that count retries and where they go.
#include <gtest/gtest.h>

#include <string>

#include "sim/config/stress.hpp"
#include "sim/engine/retry_policy.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using enum RetryDecision;
using K = RetryPolicyKind;

RetrySpec spec(K kind, bool idempotent = false, std::uint32_t num_retries = 3) {
  RetrySpec r;
  r.kind = kind;
  r.idempotent = idempotent;
  r.num_retries = num_retries;
  return r;
}

RetryDecision decide(K kind, ErrorKind e, std::uint32_t retries, bool idempotent = false, bool no_data = false,
                     bool lwt = false) {
  return retry_decision(spec(kind, idempotent), RetryInput{e, retries, lwt, no_data});
}

constexpr K kDefaults[] = {K::Java3, K::Java4, K::Python, K::Rust, K::Nodejs};

TEST(RetryPolicyDecision, ReadTimeoutIsRetriedOnceOnTheSameHostWhenEnoughAnsweredButNotTheData) {
  for (K k : kDefaults) {
    EXPECT_EQ(decide(k, ErrorKind::ReadTimeout, 0, false, true), SameHost) << static_cast<int>(k);
    EXPECT_EQ(decide(k, ErrorKind::ReadTimeout, 1, false, true), Rethrow) << static_cast<int>(k);
    EXPECT_EQ(decide(k, ErrorKind::ReadTimeout, 0, true, false), Rethrow) << "too few answered";
  }
  // gocql's SimpleRetryPolicy does not look at the error: next host while Attempts() <= NumRetries.
  EXPECT_EQ(decide(K::GocqlSimple, ErrorKind::ReadTimeout, 0), NextHost);
  EXPECT_EQ(decide(K::GocqlSimple, ErrorKind::ReadTimeout, 2), NextHost);
  EXPECT_EQ(decide(K::GocqlSimple, ErrorKind::ReadTimeout, 3), Rethrow);
  EXPECT_EQ(retry_decision(spec(K::GocqlSimple, false, 1), {ErrorKind::ReadTimeout, 1, false, false}), Rethrow);
}

TEST(RetryPolicyDecision, WriteTimeoutsOfSingleWritesAreRetriedOnlyByGocql) {
  for (K k : kDefaults) {
    EXPECT_EQ(decide(k, ErrorKind::WriteTimeout, 0, true), Rethrow) << static_cast<int>(k);  // SIMPLE, not BATCH_LOG
  }
  EXPECT_EQ(decide(K::GocqlSimple, ErrorKind::WriteTimeout, 0), NextHost);
}

TEST(RetryPolicyDecision, UnavailableTriesTheNextHostOnce) {
  for (K k : kDefaults) {
    EXPECT_EQ(decide(k, ErrorKind::Unavailable, 0), NextHost) << static_cast<int>(k);
    EXPECT_EQ(decide(k, ErrorKind::Unavailable, 1), Rethrow) << static_cast<int>(k);
  }
}

TEST(RetryPolicyDecision, OverloadedGoesToTheNextHostForIdempotentStatementsPythonForAll) {
  for (K k : {K::Java3, K::Java4, K::Rust, K::Nodejs}) {
    EXPECT_EQ(decide(k, ErrorKind::Overloaded, 0, false), Rethrow) << static_cast<int>(k);
    EXPECT_EQ(decide(k, ErrorKind::Overloaded, 0, true), NextHost) << static_cast<int>(k);
    EXPECT_EQ(decide(k, ErrorKind::Overloaded, 7, true), NextHost) << "onRequestError has no count";
    EXPECT_EQ(decide(k, ErrorKind::Overloaded, 0, true, false, true), Rethrow) << "an LWT is not idempotent";
  }
  EXPECT_EQ(decide(K::Python, ErrorKind::Overloaded, 0, false), NextHost);
  EXPECT_EQ(decide(K::Python, ErrorKind::Overloaded, 5, false), NextHost);
}

TEST(RetryPolicyDecision, ClientTimeoutsAreRetriedByJava3NodejsAndGocqlForIdempotentStatementsOnly) {
  for (K k : {K::Java3, K::Nodejs, K::GocqlSimple}) {
    EXPECT_EQ(decide(k, ErrorKind::ClientTimeout, 0, false), Rethrow) << static_cast<int>(k);
    EXPECT_EQ(decide(k, ErrorKind::ClientTimeout, 0, true), NextHost) << static_cast<int>(k);
  }
  for (K k : {K::Java4, K::Python, K::Rust}) EXPECT_EQ(decide(k, ErrorKind::ClientTimeout, 0, true), Rethrow);
  // gocql retries an LWT's server error on the same host (GetRetryTypeLWT).
  EXPECT_EQ(decide(K::GocqlSimple, ErrorKind::WriteTimeout, 0, false, false, true), SameHost);
  EXPECT_EQ(decide(K::Never, ErrorKind::Unavailable, 0), Rethrow);
}

// 4 nodes, RF 3, one node down from the start (known to drivers and servers at once): a CL ALL
// request whose range has that node is Unavailable at every coordinator.
jsonin::Json unavailable_doc(const std::string& policy) {
  auto doc = jsonin::Json::parse(R"({
    "name": "unavailable", "seed": 5,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 1, "nodes": 4}], "num_tokens": 8, "shards": 1,
                "service": {"coordinator": 0, "read": {"dist": "constant", "us": 20}, "write": {"dist": "constant", "us": 20}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "network": {"same_rack": 50, "same_dc": 50, "cross_dc": 50},
    "client": {"dc": "dc1", "threads": 4, "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0},
    "workload": {"ops": 2000, "warmup_ops": 0, "mix": {"write": 1}, "consistency": {"write": "ALL"}},
    "faults": {"driver_detection_ms": 0, "server_detection_ms": 0, "events": [{"at_s": 0, "node": "n4", "kind": "down"}]},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["retry"] = {{"policy", policy}};
  return doc;
}

std::uint64_t err(const RunResult& r, ErrorKind e) {
  std::uint64_t n = 0;
  for (const auto& s : r.by_op) n += s.errors[static_cast<std::size_t>(e)];
  return n;
}

TEST(RetryPolicyRun, UnavailableIsRetriedOnceOnAnotherHostByTheDriversDefaults) {
  for (const char* p : {"java3-default", "java4-default", "python-default", "rust-default", "nodejs-default"}) {
    const RunResult r = testing::run_first(testing::build(unavailable_doc(p)));
    const std::uint64_t un = err(r, ErrorKind::Unavailable);
    // The ranges that have n4 among their 3 replicas (4 nodes, RF 3, 8 random tokens each): 1,911
    // of 2,000 operations with this seed. The counters run past the window by the operations in
    // flight when it closes (at most the 4 threads').
    EXPECT_GT(un, 1300u) << p;
    EXPECT_NEAR(static_cast<double>(r.measured_ops() + un), 2000.0, 4.0) << p;
    EXPECT_NEAR(static_cast<double>(r.client.retries), static_cast<double>(un), 4.0) << p << ": one retry each";
    // Every attempt reached a live coordinator, a different one the second time (RoundRobin plan).
    EXPECT_NEAR(static_cast<double>(r.coordinator_total), 2000.0 + static_cast<double>(un), 4.0) << p;
  }
}

TEST(RetryPolicyRun, GocqlSimpleRetriesUnavailableNumRetriesTimesOnTheNextHosts) {
  auto doc = unavailable_doc("gocql-simple");
  doc["retry"]["num_retries"] = 2;
  const RunResult r = testing::run_first(testing::build(doc));
  const std::uint64_t un = err(r, ErrorKind::Unavailable);
  EXPECT_GT(un, 1300u);
  EXPECT_NEAR(static_cast<double>(r.client.retries), 2.0 * static_cast<double>(un), 8.0);
  EXPECT_NEAR(static_cast<double>(r.coordinator_total), 2000.0 + 2.0 * static_cast<double>(un), 8.0);
  // The default 3 retries: the third finds the plan of the 3 live hosts used up (NoHostAvailable).
  const RunResult r3 = testing::run_first(testing::build(unavailable_doc("gocql-simple")));
  const std::uint64_t nh = err(r3, ErrorKind::NoHostAvailable);
  EXPECT_EQ(err(r3, ErrorKind::Unavailable), 0u);
  EXPECT_GT(nh, 1300u);
  EXPECT_NEAR(static_cast<double>(r3.client.retries), 3.0 * static_cast<double>(nh), 12.0);
  EXPECT_NEAR(static_cast<double>(r3.coordinator_total), 2000.0 + 2.0 * static_cast<double>(nh), 12.0);
}

// 3 nodes, RF 3, a 10 us client timeout against 100 us of service: every attempt times out.
jsonin::Json timeout_doc(const std::string& policy, bool idempotent) {
  auto doc = jsonin::Json::parse(R"({
    "name": "client-timeout", "seed": 5,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 1, "nodes": 3}], "num_tokens": 8, "shards": 1,
                "service": {"coordinator": 0, "read": {"dist": "constant", "us": 100}, "write": {"dist": "constant", "us": 100}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "network": {"same_rack": 50, "same_dc": 50, "cross_dc": 50},
    "timeouts": {"client_ms": 0.01},
    "client": {"dc": "dc1", "threads": 2, "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0},
    "workload": {"ops": 300, "warmup_ops": 0, "mix": {"write": 1}, "consistency": {"write": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["retry"] = {{"policy", policy}};
  if (policy != "default") doc["retry"]["idempotent"] = idempotent;
  return doc;
}

TEST(RetryPolicyRun, ClientTimeoutsFollowEachDriversIdempotenceRule) {
  // Java 3.x / Node.js: the next host for idempotent statements until the plan runs out (3 hosts;
  // the third retry finds none: NoHostAvailable).
  for (const char* p : {"java3-default", "nodejs-default"}) {
    const RunResult idem = testing::run_first(testing::build(timeout_doc(p, true)));
    EXPECT_EQ(idem.client.retries, 900u) << p;
    EXPECT_NEAR(static_cast<double>(idem.coordinator_total), 900.0, 8.0) << p;  // the last ones arrive late
    EXPECT_EQ(err(idem, ErrorKind::NoHostAvailable), 300u) << p;
    const RunResult plain = testing::run_first(testing::build(timeout_doc(p, false)));
    EXPECT_EQ(plain.client.retries, 0u) << p;
    EXPECT_EQ(err(plain, ErrorKind::ClientTimeout), 300u) << p;
  }
  // Java 4.x, Python and Rust end the request at their timeout.
  for (const char* p : {"java4-default", "python-default", "rust-default"}) {
    const RunResult r = testing::run_first(testing::build(timeout_doc(p, true)));
    EXPECT_EQ(r.client.retries, 0u) << p;
    EXPECT_EQ(err(r, ErrorKind::ClientTimeout), 300u) << p;
  }
  // gocql: NumRetries 1 on idempotent statements.
  auto g = timeout_doc("gocql-simple", true);
  g["retry"]["num_retries"] = 1;
  const RunResult r = testing::run_first(testing::build(g));
  EXPECT_EQ(r.client.retries, 300u);
  EXPECT_EQ(err(r, ErrorKind::ClientTimeout), 300u);
  // lbsim's default rule is unchanged: error_retries 2.
  const RunResult d = testing::run_first(testing::build(timeout_doc("default", true)));
  EXPECT_EQ(d.client.retries, 600u);
  EXPECT_EQ(err(d, ErrorKind::ClientTimeout), 300u);
}

TEST(RetryPolicyRun, OverloadedIsRetriedByPythonForAnyStatementAndByJava3ForIdempotentOnes) {
  // One request per shard at a time, 16 client threads on 3 nodes: most requests are shed OVERLOADED.
  auto doc = timeout_doc("java3-default", false);
  doc["timeouts"] = jsonin::Json::object();
  doc["cluster"]["max_concurrent_requests_per_shard"] = 1;
  doc["client"]["threads"] = 16;
  const RunResult java3 = testing::run_first(testing::build(doc));
  EXPECT_EQ(java3.client.retries, 0u);
  const std::uint64_t shed = err(java3, ErrorKind::Overloaded);
  EXPECT_GT(shed, 30u);
  doc["retry"] = {{"policy", "python-default"}};
  const RunResult python = testing::run_first(testing::build(doc));
  EXPECT_GT(python.client.retries, shed / 2);
  EXPECT_LT(err(python, ErrorKind::Overloaded), shed);
  doc["retry"] = {{"policy", "java3-default"}, {"idempotent", true}};
  const RunResult idem = testing::run_first(testing::build(doc));
  EXPECT_GT(idem.client.retries, shed / 2);
  EXPECT_LT(err(idem, ErrorKind::Overloaded), shed);
}

TEST(RetryPolicyRun, ServerReadTimeoutsWithTooFewAnswersAreNotRetriedButGocqlRetriesThem) {
  // QUORUM reads, RF 3, n1 1000x slower: a read whose two targets include n1 times out at the
  // coordinator with one answer of two (received < required): the default policies rethrow.
  auto doc = timeout_doc("java3-default", false);
  doc["timeouts"] = {{"read_ms", 5}};
  doc["workload"]["mix"] = {{"read", 1}};
  doc["workload"]["consistency"] = {{"read", "QUORUM"}};
  doc["faults"] = {{"events", jsonin::Json::array({{{"at_s", 0}, {"node", "n1"}, {"kind", "slow"}, {"factor", 1000},
                                                     {"duration_s", 100}}})}};
  const RunResult java3 = testing::run_first(testing::build(doc));
  const std::uint64_t rt = err(java3, ErrorKind::ReadTimeout);
  EXPECT_GT(rt, 20u);
  EXPECT_EQ(java3.client.retries, 0u);
  doc["retry"] = {{"policy", "gocql-simple"}};
  const RunResult go = testing::run_first(testing::build(doc));
  EXPECT_GT(go.client.retries, 20u);
}

TEST(RetryPolicyRun, StressRetriesRunAFailedOperationAgainThroughTheDriver) {
  // Every attempt times out; lbsim's default policy tries 3 hosts per execution, and
  // cassandra-stress runs each operation 1 + 9 times.
  auto doc = timeout_doc("default", true);
  doc["client"]["stress_retries"] = 9;
  const RunResult r = testing::run_first(testing::build(doc));
  EXPECT_EQ(r.client.stress_retries, 9u * 300u);
  EXPECT_EQ(r.client.retries, 10u * 2u * 300u);
  EXPECT_EQ(err(r, ErrorKind::ClientTimeout), 300u);
  EXPECT_NEAR(static_cast<double>(r.coordinator_total), 30.0 * 300.0, 16.0);  // the last attempts arrive late
  // A transient failure: Unavailable while n4 is down; with retries the tool hides it only when a
  // re-execution finds the node back. Here it stays down: every try fails, 10 tries each.
  auto u = unavailable_doc("never");
  u["client"]["stress_retries"] = 2;
  const RunResult ru = testing::run_first(testing::build(u));
  const std::uint64_t un = err(ru, ErrorKind::Unavailable);
  EXPECT_GT(un, 1300u);
  EXPECT_NEAR(static_cast<double>(ru.client.stress_retries), 2.0 * static_cast<double>(un), 8.0);
  EXPECT_NEAR(static_cast<double>(ru.coordinator_total), 2000.0 + 2.0 * static_cast<double>(un), 8.0);
}

TEST(RetryPolicyStress, ErrorsRetriesMapToClientStressRetries) {
  const auto t = translate_stress({"write", "n=100", "-errors", "retries=3", "ignore"}, 3);
  EXPECT_EQ(t.scenario["client"]["stress_retries"], 3);
  const auto d = translate_stress({"write", "n=100"}, 3);
  EXPECT_EQ(d.scenario["client"]["stress_retries"], 9);  // SettingsErrors' default retries=9
  const auto z = translate_stress({"write", "n=100", "-errors", "retries=0"}, 3);
  EXPECT_EQ(z.scenario["client"]["stress_retries"], 0);
}

}  // namespace
}  // namespace lbsim
