// Several loaders in one scenario (`clients`, issue 36): per-loader accounting against the
// combined report, each loader's own place and policy, determinism, the analytic model's
// "not modelled", and the rack-aware placement of scylladb/scylla-rust-driver#1425.
#include <cmath>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "sim/analysis/scenario_model.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/report_text.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

// One DC, 3 racks, one node per rack, RF 3: every node is a replica of every key, so a
// rack-aware token-aware policy's coordinator is decided by its rack alone.
jsonin::Json three_rack_doc() {
  return jsonin::Json::parse(R"({
    "name": "loaders", "seed": 5,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}], "num_tokens": 16, "shards": 2,
                "service": {"coordinator": {"dist": "exponential", "mean_us": 20},
                            "read": {"dist": "exponential", "mean_us": 100},
                            "write": {"dist": "exponential", "mean_us": 50}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "clients": [
      {"name": "in-r1", "dc": "dc1", "rack": "r1", "threads": 8, "cores": 2,
       "policy": {"type": "RustDefault", "preferred_dc": "dc1", "preferred_rack": "r1"}},
      {"name": "in-r2", "dc": "dc1", "rack": "r2", "rate_ops_s": 5000,
       "policy": {"type": "RustDefault", "preferred_dc": "dc1", "preferred_rack": "r2"}},
      {"name": "compared", "dc": "dc1", "rack": "r3", "threads": 4}
    ],
    "workload": {"ops": 30000, "warmup_ops": 1000, "mix": {"read": 1, "write": 1},
                 "consistency": {"read": "LOCAL_ONE", "write": "LOCAL_ONE"}, "keys": {"count": 100000}},
    "policies": [
      {"name": "rr", "policy": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}},
      {"name": "ta", "policy": {"type": "TokenAware", "ordering": "RANDOM",
                                "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}
    ]
  })");
}

RunResult run_policy(const Scenario& sc, const std::string& name, std::uint64_t seed = 0) {
  return run_simulation(sc, *sc.find_policy(name), seed ? seed : sc.seed);
}

// Every measured operation, error and coordinator attempt belongs to exactly one loader.
TEST(Loaders, PerLoaderAccountingSumsToTheCombinedReport) {
  const Scenario sc = testing::build(three_rack_doc());
  ASSERT_EQ(sc.loaders.size(), 3u);
  const RunResult r = run_policy(sc, "rr");
  ASSERT_EQ(r.loaders.size(), 3u);
  std::uint64_t ops = 0, errors = 0, lat = 0;
  std::vector<std::uint64_t> coord(r.nodes.size(), 0);
  for (const LoaderResult& l : r.loaders) {
    EXPECT_GT(l.ops(), 1000u) << l.name;
    ops += l.ops();
    errors += l.errors();
    lat += l.latency.count();
    ASSERT_EQ(l.coordinator_ops.size(), r.nodes.size());
    for (std::size_t n = 0; n < coord.size(); ++n) coord[n] += l.coordinator_ops[n];
  }
  EXPECT_EQ(ops, r.measured_ops());
  EXPECT_EQ(errors, r.measured_errors());
  EXPECT_EQ(lat, r.latency.count());
  for (std::size_t k = 0; k < kOpKinds; ++k) {
    std::uint64_t s = 0;
    for (const LoaderResult& l : r.loaders) s += l.by_op[k].ops;
    EXPECT_EQ(s, r.by_op[k].ops) << k;
  }
  for (std::size_t n = 0; n < coord.size(); ++n) EXPECT_EQ(coord[n], r.nodes[n].coordinator_ops) << n;
  // The combined load: 12 closed-loop threads and 5,000 op/s open loop.
  EXPECT_EQ(r.client.threads, 12u);
  EXPECT_DOUBLE_EQ(r.client.rate_ops_s, 5000);
  // The JSON and text reports carry the section; a one-client report has none.
  const auto j = report_json_stable(r);
  ASSERT_TRUE(j.contains("loaders"));
  EXPECT_EQ(j["loaders"].size(), 3u);
  EXPECT_EQ(j["loaders"][1]["name"].get<std::string>(), "in-r2");
  EXPECT_EQ(j["loaders"][1]["ops"].get<std::uint64_t>(), r.loaders[1].ops());
  std::ostringstream text;
  print_run(text, r);
  EXPECT_NE(text.str().find("in-r1"), std::string::npos);
  const RunResult one = run_simulation(testing::build(testing::cluster_doc(3, 8, 2000)),
                                       testing::build(testing::cluster_doc(3, 8, 2000)).policies[0], 11);
  EXPECT_TRUE(one.loaders.empty());
  EXPECT_FALSE(report_json_stable(one).contains("loaders"));
}

// A rack-aware token-aware loader coordinates on its own rack's replica (scylla-rust-driver
// DefaultPolicy pick(): the preferred rack's replicas first, scylla/src/policies/load_balancing/
// default.rs); the loader without a policy of its own runs the policy under comparison:
// round-robin over the DC's three nodes, a third each.
TEST(Loaders, RackAwareLoadersSendToTheirOwnRack) {
  const Scenario sc = testing::build(three_rack_doc());
  const RunResult r = run_policy(sc, "rr");
  const LoaderResult& r1 = r.loaders[0];
  const LoaderResult& r2 = r.loaders[1];
  const LoaderResult& cmp = r.loaders[2];
  EXPECT_EQ(r1.policy, "inline");
  EXPECT_EQ(cmp.policy, "rr");
  ASSERT_EQ(r.nodes[0].rack, "r1");
  ASSERT_EQ(r.nodes[1].rack, "r2");
  // Every attempt of in-r1 went to n1, every one of in-r2 to n2 (no errors, so no retries).
  EXPECT_EQ(r.measured_errors(), 0u);
  EXPECT_GT(r1.coordinator_ops[0], 1000u);
  EXPECT_EQ(r1.coordinator_ops[1] + r1.coordinator_ops[2], 0u);
  EXPECT_GT(r2.coordinator_ops[1], 1000u);
  EXPECT_EQ(r2.coordinator_ops[0] + r2.coordinator_ops[2], 0u);
  double total = 0;
  for (auto v : cmp.coordinator_ops) total += static_cast<double>(v);
  for (auto v : cmp.coordinator_ops) EXPECT_NEAR(static_cast<double>(v) / total, 1.0 / 3, 0.02);
  // The open-loop loader offered 5,000 op/s and got them (below saturation).
  EXPECT_NEAR(static_cast<double>(r2.ops()) / to_sec(r.window), 5000, 250);
  // A loader naming a `policies` entry runs it whatever policy is compared.
  auto doc = three_rack_doc();
  doc["clients"][2]["policy"] = "ta";
  const RunResult named = run_policy(testing::build(doc), "rr");
  EXPECT_EQ(named.loaders[2].policy, "ta");
}

// Same scenario and seed: the same report, byte for byte; another seed: another run.
TEST(Loaders, Deterministic) {
  const Scenario sc = testing::build(three_rack_doc());
  const std::string a = report_json_stable(run_policy(sc, "ta")).dump();
  const std::string b = report_json_stable(run_policy(sc, "ta")).dump();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, report_json_stable(run_policy(sc, "ta", 99)).dump());
}

// Loader streams are per loader: two identical loaders split the work about evenly, and one
// loader of `clients` behaves as the same `client` block would up to its streams (loader 0 keeps
// the one-client streams, so the runs are identical).
TEST(Loaders, OneLoaderIsTheClient) {
  auto doc = testing::cluster_doc(6, 16, 5000);
  const Scenario plain = testing::build(doc);
  auto entry = doc["client"];
  entry["name"] = "only";
  doc.erase("client");
  doc["clients"] = jsonin::Json::array({entry});
  const Scenario one = testing::build(doc);
  const RunResult a = run_simulation(plain, plain.policies[0], 3);
  const RunResult b = run_simulation(one, one.policies[0], 3);
  EXPECT_EQ(a.measured_ops(), b.measured_ops());
  EXPECT_EQ(a.latency.percentile(99), b.latency.percentile(99));
  for (std::size_t n = 0; n < a.nodes.size(); ++n) EXPECT_EQ(a.nodes[n].coordinator_ops, b.nodes[n].coordinator_ops);
  ASSERT_EQ(b.loaders.size(), 1u);
  EXPECT_EQ(b.loaders[0].ops(), b.measured_ops());
  // Two halves of the same loader.
  entry["threads"] = 8;
  auto second = entry;
  second["name"] = "other";
  doc["clients"] = jsonin::Json::array({entry, second});
  const RunResult two = run_simulation(testing::build(doc), one.policies[0], 3);
  const double share = static_cast<double>(two.loaders[0].ops()) / static_cast<double>(two.measured_ops());
  EXPECT_NEAR(share, 0.5, 0.03);
}

// The analytic model routes one client's operations: with `clients` it says so.
TEST(Loaders, AnalyticModelSaysNotModelled) {
  const Scenario sc = testing::build(three_rack_doc());
  const ScenarioModel m = analyze_scenario(sc);
  ASSERT_EQ(m.policies.size(), 2u);
  for (const auto& p : m.policies) {
    EXPECT_FALSE(p.model.modelled);
    EXPECT_NE(p.model.reason.find("not modelled"), std::string::npos);
  }
}

TEST(Loaders, Validation) {
  auto doc = three_rack_doc();
  doc["clients"][1]["dc"] = "dc9";
  EXPECT_THROW(testing::build(doc), ConfigError);
  doc = three_rack_doc();
  doc["clients"][1]["connections"] = "shard_aware";
  doc["cluster"]["discipline"] = "per_shard";
  EXPECT_THROW(testing::build(doc), ConfigError);  // one connection model for every loader
  doc = three_rack_doc();
  doc["clients"] = jsonin::Json::array();
  EXPECT_THROW(testing::build(doc), ConfigError);
}

// scylladb/scylla-rust-driver#1425's setup (configs/incidents/rust-driver-1425.json, shortened):
// with the loaders 2, 2 and 1 per DC1 rack and each preferring its own rack, DC1's nodes get
// 2:2:1 of the requests, the thread's expectation; each other DC's loader stays on its r1 node.
TEST(Loaders, RustDriver1425ExpectedProportions) {
  const std::string file = std::string(LBSIM_SOURCE_DIR) + "/configs/incidents/rust-driver-1425.json";
  const Scenario sc0 = load_scenario(file);
  const Scenario sc = load_scenario(file, sc0.reproduces->test_set);
  const RunResult r = run_simulation(sc, sc.policies[0], sc.seed);
  const double n1 = static_cast<double>(r.nodes[0].coordinator_ops);
  const double n2 = static_cast<double>(r.nodes[1].coordinator_ops);
  const double n3 = static_cast<double>(r.nodes[2].coordinator_ops);
  EXPECT_NEAR(n1 / n3, 2.0, 0.15);
  EXPECT_NEAR(n2 / n3, 2.0, 0.15);
  for (std::size_t d = 1; d < 5; ++d) {
    EXPECT_GT(r.nodes[3 * d].coordinator_ops, 0u) << d;
    EXPECT_EQ(r.nodes[3 * d + 1].coordinator_ops + r.nodes[3 * d + 2].coordinator_ops, 0u) << d;
  }
  // Every DC1 loader given the same rack: 1:0:0 (the other nodes get nothing), which the thread
  // does not report as its placement.
  std::vector<std::string> sets = sc0.reproduces->test_set;
  for (int l = 2; l < 5; ++l) {
    sets.push_back("clients." + std::to_string(l) + ".rack=r1");
    sets.push_back("clients." + std::to_string(l) + ".policy.preferred_rack=r1");
  }
  const RunResult same = run_simulation(load_scenario(file, sets), sc.policies[0], sc.seed);
  EXPECT_GT(same.nodes[0].coordinator_ops, 10000u);
  EXPECT_EQ(same.nodes[1].coordinator_ops + same.nodes[2].coordinator_ops, 0u);
}

}  // namespace
}  // namespace lbsim
