// The drivers' speculative executions (speculative.host: gocql before
// apache/cassandra-gocql-driver#1531). Issue 36, mechanism 2. Small scenarios built in memory,
// fixed seeds; each tolerance is stated next to its assertion. The coordinators' speculative
// retry (mechanism 1), which this file also held, is sim/mech/spec_retry/'s (its
// spec_retry_scenarios_test.cpp); the file keeps its name, which shipped configs cite.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using testing::build;
using testing::run_first;

// Three nodes a, b, c in one rack, RF 3, reads at CL ONE only, coordinator cost 0, no network
// latency, no client cost; replica reads take a constant 1 ms, node b's 20 ms (speed 0.05). An
// open loop of `rate` reads/s, RoundRobin, so each node coordinates a third of the reads and, being
// a replica of every key, reads locally (closest first).
jsonin::Json three_nodes(const std::string& spec_retry, double rate = 60, std::uint64_t ops = 3000) {
  auto doc = jsonin::Json::parse(R"({
    "name": "spec", "seed": 5,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}, {"id": "b", "dc": "dc1", "rack": "r1"},
                          {"id": "c", "dc": "dc1", "rack": "r1"}],
                "num_tokens": 4, "shards": 1,
                "service": {"coordinator": 0, "read": 1000, "write": 1000},
                "speed": {"b": 0.05}},
    "keyspace": {"class": "SimpleStrategy", "rf": 3},
    "network": {"same_rack": 0, "same_dc": 0, "cross_dc": 0},
    "client": {"dc": "dc1", "cores": 0, "driver_cost": 0, "plan_ns": 0, "plan_host_ns": 0,
               "thread_local_draw_ns": 0, "shared_draw_ns": 0, "line_transfer_ns": 0, "max_in_flight": 1000000},
    "workload": {"ops": 3000, "warmup_ops": 0, "mix": {"read": 1}, "consistency": {"read": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
  doc["client"]["rate_ops_s"] = rate;
  doc["workload"]["ops"] = ops;
  if (!spec_retry.empty()) doc["cluster"]["speculative_retry"] = spec_retry;
  return doc;
}

// The drivers' speculative executions: a token-aware plan without shuffling puts the same replica
// first in every plan. Through the shared plan (Java, gocql after #1531) the speculative execution
// goes to the next host; with gocql before the fix (speculative.host = new_plan) it starts a plan of
// its own and lands on the same host every time. With shuffle_replicas (RF 3) a third of the time.
TEST(DriverSpeculation, GocqlBeforeTheFixHitsTheSameHost) {
  auto doc = three_nodes("", 60, 1500);
  doc["speculative"] = {{"enabled", true}, {"delay_ms", 5}, {"max_speculative", 1}};
  auto policy = [](bool shuffle) {
    return jsonin::Json::parse(std::string(R"([{"name": "go", "policy": {"type": "GoTokenAware", "shuffle_replicas": )") +
                               (shuffle ? "true" : "false") + R"(, "child": {"type": "GoRoundRobin"}}}])");
  };
  struct Case {
    const char* host;
    bool shuffle;
    double same;  // expected share of speculative executions on the first execution's host
    double tol;
  };
  for (const Case k : {Case{"plan", false, 0.0, 0.0}, Case{"new_plan", false, 1.0, 0.0}, Case{"new_plan", true, 1.0 / 3, 0.06}}) {
    doc["policies"] = policy(k.shuffle);
    doc["speculative"]["host"] = k.host;
    const RunResult r = run_first(build(doc));
    ASSERT_TRUE(r.client.speculative_same_host.has_value());
    const double share = static_cast<double>(*r.client.speculative_same_host) / static_cast<double>(r.client.speculative);
    std::printf("host %s, shuffle %d: %llu speculative executions, same host %.3f\n", k.host, k.shuffle,
                static_cast<unsigned long long>(r.client.speculative), share);
    // Only the operations whose first replica is b (20 ms) outlast the 5 ms delay: about a third.
    EXPECT_GT(r.client.speculative, 300u);
    // Binomial sd at about 500 speculative executions with p = 1/3: 0.021; 0.06 is nearly three.
    EXPECT_NEAR(share, k.same, k.tol) << k.host;
  }
}

}  // namespace
}  // namespace lbsim
