// cluster.server (issue 35): each release's deadline, shedding and abort rules
// (sim/engine/model_spec.hpp, server_rules; configs/README.md, "cluster.server"). Small scenarios
// built in memory, fixed seeds; each tolerance is stated next to its assertion.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::mm1d_goodput;
using testing::queue_doc;
using testing::run_first;

const std::vector<std::string> kReleases{"unspecified",   "cassandra-3.11", "cassandra-4.1", "cassandra-5.0",
                                         "scylla-2024.1", "scylla-2025.1",  "scylla-2025.2", "scylla-2026.1"};

std::uint64_t errors_of(const RunResult& r, ErrorKind k) {
  std::uint64_t n = 0;
  for (const auto& s : r.by_op) n += s.errors[static_cast<std::size_t>(k)];
  return n;
}

// One line of the test's output: overloaded errors and the slowest success.
void print_overload(const std::string& what, const RunResult& r) {
  std::printf("%s: overloaded %llu, max %.1f ms\n", what.c_str(),
              static_cast<unsigned long long>(errors_of(r, ErrorKind::Overloaded)),
              static_cast<double>(r.latency.max()) / 1e6);
}

// The issue's coordinator-bound overload: one node, one shard, coordinator work exponential 1 ms,
// replica write 1 us, no network or client cost, Poisson writes at 1,200/s (1.2 x capacity),
// write timeout 2 s, client timeout 3 s, no retries; 30,000 operations (25 s, a queue wait that
// grows past 4 s without shedding).
jsonin::Json coordinator_overload(const std::string& server) {
  auto doc = queue_doc(1200, 1, 30'000);
  doc["cluster"]["server"] = server;
  doc["cluster"]["service"]["coordinator"] = {{"dist", "exponential"}, {"mean_us", 1000}};
  doc["cluster"]["service"]["write"] = 1;
  doc["workload"]["warmup_ops"] = 0;
  doc["timeouts"] = {{"write_ms", 2000}, {"client_ms", 3000}};
  doc["retry"] = {{"policy", "never"}};
  return doc;
}

// Finding 1: a success outlived its timeout twice over (4,007 ms with a 2 s timeout) because the
// replica's deadline restarted when the coordinator's work ended. The deadline is now fixed once.
// With lbsim's unspecified rules (clock at arrival) every success is within the write timeout.
// Releases that start the clock at dequeue (every real one) let the queue wait come on top: the
// client timeout (3 s) bounds them, and successes beyond 2 s show the rule.
TEST(ServerRelease, NoSuccessOutlivesItsTimeout) {
  for (const auto& server : kReleases) {
    const RunResult r = run_first(build(coordinator_overload(server)));
    std::printf("%s: %llu successes, max %.1f ms, write timeouts %llu, client timeouts %llu\n", server.c_str(),
                static_cast<unsigned long long>(r.measured_ops()), static_cast<double>(r.latency.max()) / 1e6,
                static_cast<unsigned long long>(errors_of(r, ErrorKind::WriteTimeout)),
                static_cast<unsigned long long>(errors_of(r, ErrorKind::ClientTimeout)));
    EXPECT_GT(r.measured_ops(), 5'000u) << server;
    if (server == "unspecified") {
      EXPECT_LE(r.latency.max(), 2 * kSec) << server;  // the write timeout, from arrival
    } else {
      EXPECT_LE(r.latency.max(), 3 * kSec) << server;  // the client timeout
      EXPECT_GT(r.latency.max(), 2 * kSec) << server;  // the coordinator's queue wait is not counted
    }
  }
}

// A deadline fixed at arrival and a timer armed when the coordinator's work ends reached the
// timer FIFO out of order by the spread of queue waits, and the FIFO delayed the earlier ones:
// with four shards at 1.2 x capacity each and a client timeout 50 ms above the write timeout,
// 15,421 of 100,000 operations saw the client's timeout instead of the coordinator's. Now every
// timeout error comes from the coordinator, on time.
TEST(ServerRelease, TimeoutErrorsAreNotDelayed) {
  const RunResult r = run_first(build(coordinator_overload("unspecified"),
                                      {"cluster.shards=4", "client.rate_ops_s=4800", "timeouts.client_ms=2050",
                                       "workload.ops=100000"}));
  std::printf("four shards: write timeouts %llu, client timeouts %llu\n",
              static_cast<unsigned long long>(errors_of(r, ErrorKind::WriteTimeout)),
              static_cast<unsigned long long>(errors_of(r, ErrorKind::ClientTimeout)));
  EXPECT_GT(errors_of(r, ErrorKind::WriteTimeout), 50'000u);
  EXPECT_EQ(errors_of(r, ErrorKind::ClientTimeout), 0u);
  EXPECT_LE(r.latency.max(), 2 * kSec);
}

// Finding 3: M/M/1 reads (exponential 1 ms, RF 1, one node, no coordinator work) at rho 1.2 with a
// 200 ms read timeout; warm-up 2,400 operations (2 s, twice D / (rho - 1) = 1 s), then 24,000
// (20 s). Cassandra cancels a read running at its deadline, so the server never spends time on a
// read that cannot succeed: goodput at least 95 % of capacity. Without that abort (ScyllaDB rows,
// lbsim's unspecified rules) goodput is M/M/1+D's, about capacity / rho, within 3 %.
TEST(ServerRelease, CassandraAbortsReadsAtTheirDeadline) {
  const double mu = 1000, lambda = 1200, t = 0.2;
  const double theory = mm1d_goodput(lambda, mu, t);
  for (const auto& server : kReleases) {
    auto doc = queue_doc(lambda, 1000, 26'400);
    doc["cluster"]["server"] = server;
    doc["workload"]["warmup_ops"] = 2400;
    doc["workload"]["mix"] = {{"read", 1}};
    doc["workload"]["consistency"] = {{"read", "ONE"}};
    doc["timeouts"] = {{"read_ms", 200}};
    const RunResult r = run_first(build(doc));
    const bool aborts = server.starts_with("cassandra");
    std::printf("%s: goodput %.1f op/s (capacity %.0f, M/M/1+D %.1f), dropped reads %llu\n", server.c_str(),
                r.throughput(), mu, theory, static_cast<unsigned long long>(r.nodes[0].dropped_reads));
    if (aborts) EXPECT_GE(r.throughput(), 0.95 * mu) << server;           // 95 % of capacity
    else EXPECT_NEAR(r.throughput() / theory, 1.0, 0.03) << server;       // 3 %
    EXPECT_LE(r.latency.max(), 200 * kMs) << server;
  }
  EXPECT_NEAR(theory / (mu / 1.2), 1.0, 0.03);  // M/M/1+D here is capacity / rho within 3 %
}

// A release's own overload protection (`set`) in the overload above, against `plain` without it:
// the excess, 1 - 1 / 1.2 = 16.7 % of the 30,000 arrivals, is answered overloaded (at least
// 3,000) and no success takes longer than `max_success`; without it nothing is overloaded and
// successes wait past 2 s.
RunResult check_shedding(const std::string& server, const std::string& set, const std::string& plain,
                         SimTime max_success) {
  const RunResult r = run_first(build(coordinator_overload(server), {set}));
  const RunResult p = run_first(build(coordinator_overload(plain)));
  print_overload(server + ", " + set, r);
  print_overload(plain, p);
  EXPECT_GT(errors_of(r, ErrorKind::Overloaded), 3000u) << server;
  EXPECT_LE(r.latency.max(), max_success) << server;
  EXPECT_GT(r.throughput(), 950) << server;  // the admitted ones keep the server busy
  EXPECT_EQ(errors_of(p, ErrorKind::Overloaded), 0u) << plain;
  EXPECT_GT(p.latency.max(), 2 * kSec) << plain;
  return r;
}

// Finding 2, Cassandra 5.0 (CASSANDRA-19534): a request that waited longer than
// native_transport_timeout is answered OverloadedException when dequeued. With 500 ms the queue
// wait stays under about 500 ms (coordinator) + 500 ms (its replica write queued behind as much),
// so no success exceeds 1.1 s; cassandra-4.1 never drops at the coordinator.
TEST(ServerRelease, Cassandra50ShedsAfterNativeTransportTimeout) {
  check_shedding("cassandra-5.0", "timeouts.native_transport_ms=500", "cassandra-4.1", 1100 * kMs);
}

// Finding 2, ScyllaDB: max_concurrent_requests_per_shard admits that many requests per shard and
// answers OVERLOADED on arrival. At 50, the queue holds at most 50 requests (about 50 ms of
// work): no success beyond 200 ms. Unlimited by default.
TEST(ServerRelease, ScyllaAdmissionLimitAnswersOverloaded) {
  const std::string limit = "cluster.max_concurrent_requests_per_shard=50";
  check_shedding("scylla-2025.1", limit, "scylla-2025.1", 200 * kMs);
  // The default retry policy tries the next host after OVERLOADED (Java driver DefaultRetryPolicy
  // onRequestError): with one node the plan then runs out.
  auto retried = coordinator_overload("scylla-2025.1");
  retried.erase("retry");
  const RunResult rr = run_first(build(retried, {limit}));
  EXPECT_EQ(errors_of(rr, ErrorKind::Overloaded), 0u);
  EXPECT_GT(errors_of(rr, ErrorKind::NoHostAvailable), 3000u);
  EXPECT_GT(rr.client.retries, 3000u);
}

// Replica expiry: Cassandra 4.1 counts it from the message's creation on the coordinator
// (internode_timeout: true), 3.11 from its receipt (cross_node_timeout: false). Two nodes, RF 1,
// round-robin coordinators, 150 ms one way between them, reads of 100 ms, a 200 ms read timeout,
// light load (5 reads/s). A remote read arrives 150 ms after it was sent: under 4.1 it expires
// 50 ms into its service and is aborted (about half the reads are remote), under 3.11 it has
// 200 ms from its receipt and completes (its answer is late for the coordinator either way).
TEST(ServerRelease, ReplicaExpiryFromSenderOrReceipt) {
  auto run = [](const std::string& server) {
    auto doc = jsonin::Json::parse(R"({
      "name": "expiry", "seed": 3,
      "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"}],
                  "num_tokens": 8, "shards": 1,
                  "service": {"coordinator": 0, "read": 100000, "write": 1}},
      "keyspace": {"class": "SimpleStrategy", "rf": 1},
      "network": {"same_rack": 150000, "same_dc": 150000, "cross_dc": 150000},
      "client": {"dc": "dc1", "rate_ops_s": 5, "cores": 0, "driver_cost": 0, "max_in_flight": 1000},
      "workload": {"ops": 400, "warmup_ops": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
      "timeouts": {"read_ms": 200},
      "retry": {"policy": "never"},
      "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
    })");
    doc["cluster"]["server"] = server;
    return run_first(build(doc));
  };
  const RunResult c41 = run("cassandra-4.1"), c311 = run("cassandra-3.11");
  auto dropped = [](const RunResult& r) { return r.nodes[0].dropped_reads + r.nodes[1].dropped_reads; };
  std::printf("dropped reads of 400: cassandra-4.1 %llu, cassandra-3.11 %llu\n",
              static_cast<unsigned long long>(dropped(c41)), static_cast<unsigned long long>(dropped(c311)));
  EXPECT_GE(dropped(c41), 140u);  // about 200 remote reads; at least 35 % of 400
  EXPECT_LE(dropped(c311), 20u);  // only reads that queued over 100 ms behind another: at most 5 %
}

// Bad values name the JSON path and the allowed values.
TEST(ServerRelease, BadValuesAreConfigErrors) {
  auto expect_error = [](jsonin::Json doc, const std::string& fragment) {
    try {
      build(std::move(doc));
      ADD_FAILURE() << "no error, expected " << fragment;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  auto doc = queue_doc(100, 100, 100);
  doc["cluster"]["server"] = "cassandra-4.0";
  expect_error(doc, "/cluster/server: unknown value 'cassandra-4.0'; valid: unspecified, cassandra-3.11, "
                    "cassandra-4.1, cassandra-5.0, scylla-2024.1, scylla-2025.1, scylla-2025.2, scylla-2026.1");
  doc["cluster"]["server"] = "cassandra-4.1";
  doc["cluster"]["max_concurrent_requests_per_shard"] = 10;
  expect_error(doc, "/cluster/max_concurrent_requests_per_shard: is a ScyllaDB option");
  doc["cluster"].erase("max_concurrent_requests_per_shard");
  doc["timeouts"] = {{"native_transport_ms", 100}};
  expect_error(doc, "/timeouts/native_transport_ms: applies to cluster.server 'cassandra-5.0' only");
}

}  // namespace
}  // namespace lbsim
