// Real, unmodified drivers against `lbsim serve` (issue 46), on configs/serve.json (5 nodes, 3
// racks, RF 3): the DataStax Python driver 3.25 (Debian's python3-cassandra,
// tests/serve/python_client.py) and the Node.js driver 4.10.0 (npm cassandra-driver,
// tests/serve/nodejs_client.js), each with its token-aware default policy, and gocql 1.3.2
// (Debian's golang-github-gocql-gocql-dev, tests/serve/gocql_client.go, built offline in GOPATH
// mode) with TokenAwareHostPolicy(RoundRobinHostPolicy()). For each:
// - it discovers the five nodes (their racks too) and the keyspace from the first one alone;
// - every request's coordinator is a replica of its key (by the driver's own token map; for gocql,
//   which keeps its map private, by the ring);
// - the server's per-node counts of data requests equal what the driver says it sent, and the
//   model's coordinator counts equal both;
// - over 20,000 requests, the per-node coordinator counts and those of lbsim's model of that
//   driver's policy on the same scenario (20,000 operations of `lbsim run configs/serve.json
//   --policy python|go|nodejs`, the Node.js one as a closed loop of one thread like its client)
//   are one distribution: a chi-square test of homogeneity on the 2 x 5 table, at 0.1 % (critical
//   value 18.467 for 4 degrees of freedom).
// A driver that is not installed skips its test with a message (scripts/deps.sh test installs them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nodejs/oracle.hpp"
#include "serve_test_util.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/serve/cql_wire.hpp"
#include "sim_test_util.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

using nlohmann::json;
const std::string kServeScenario = std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json";
constexpr int kRequests = 20000;

// The chi-square statistic of homogeneity of two count vectors (a 2 x k table).
double chi_square_two_samples(const std::vector<double>& a, const std::vector<double>& b) {
  double na = 0, nb = 0;
  for (double x : a) na += x;
  for (double x : b) nb += x;
  double chi = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double col = a[k] + b[k];
    if (col == 0) continue;
    const double ea = col * na / (na + nb), eb = col * nb / (na + nb);
    chi += (a[k] - ea) * (a[k] - ea) / ea + (b[k] - eb) * (b[k] - eb) / eb;
  }
  return chi;
}

// What every driver must see and do; `client` is the driver's JSON (python_client.py's layout).
void check_driver(const json& client, const nlohmann::ordered_json& report, const Scenario& sc,
                  const std::string& model_policy, const std::string& base, const std::vector<std::string>& model_sets) {
  const std::uint32_t b = *cql::parse_ipv4(base);
  std::vector<std::string> addresses;
  for (std::uint32_t k = 0; k < 5; ++k) addresses.push_back(cql::ipv4_text(b + k));
  EXPECT_EQ(client["hosts"].get<std::vector<std::string>>(), addresses);
  for (std::size_t k = 0; k < 5; ++k)
    EXPECT_EQ(client["racks"][addresses[k]].get<std::string>(), sc.topology().nodes[k].rack) << addresses[k];
  const auto ks = client["keyspaces"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(ks.begin(), ks.end(), "lbsim"), ks.end());
  EXPECT_EQ(client["failures"].get<int>(), 0);
  EXPECT_EQ(client["non_replica"].get<int>(), 0) << "a request went to a node that is not a replica of its key";

  // The server's count of data requests per node equals the driver's.
  std::vector<double> driver(5, 0), served(5, 0);
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    driver[k] = client["sent"].value(addresses[k], 0);
    served[k] = report["serve"]["data_requests"][k]["data_requests"].get<double>();
    EXPECT_EQ(served[k], driver[k]) << addresses[k];
    EXPECT_EQ(report["nodes"][k]["address"].get<std::string>(), addresses[k]);
    total += static_cast<std::uint64_t>(driver[k]);
  }
  EXPECT_EQ(total, static_cast<std::uint64_t>(kRequests));
  EXPECT_EQ(report["serve"]["answered"].get<std::uint64_t>(), static_cast<std::uint64_t>(kRequests));
  // The model ran every request (no loader of its own: its coordinator counts are the driver's).
  for (std::size_t k = 0; k < 5; ++k)
    EXPECT_EQ(report["nodes"][k]["coordinator_ops"].get<double>(), driver[k]) << addresses[k];

  // lbsim's model of the driver's policy on the same scenario, over as many operations.
  std::vector<std::string> sets = model_sets;
  sets.push_back(fmt::format("workload.ops={}", kRequests));
  const Scenario model_sc = load_scenario(kServeScenario, sets);
  const RunResult r = testing::run_first(model_sc, model_policy);
  std::vector<double> model(5, 0);
  for (std::size_t k = 0; k < 5; ++k) model[k] = static_cast<double>(r.nodes[k].coordinator_ops);
  const double chi = chi_square_two_samples(driver, model);
  ::testing::Test::RecordProperty("chi_square", fmt::format("{:.3f}", chi));
  EXPECT_LT(chi, 18.467) << fmt::format("driver {} against model {}", fmt::join(driver, ","), fmt::join(model, ","));
  // And the shares are not uniform (so that the test could tell policies apart): with 16 random
  // vnodes per node the primary ranges differ by tens of percent.
  std::printf("coordinator counts: driver %s, model %s, chi-square %.3f\n", fmt::format("{}", fmt::join(driver, ",")).c_str(),
              fmt::format("{}", fmt::join(model, ",")).c_str(), chi);
}

TEST(ServePythonDriver, DiscoversTheClusterRoutesToReplicasAndMatchesTheModelsShares) {
  if (const std::string why = testing::python_driver_missing(); !why.empty()) GTEST_SKIP() << why;
  const Scenario sc = load_scenario(kServeScenario);
  serve::ServeOptions opt;
  opt.address = "127.0.3.1";
  opt.port = 19142;
  testing::ServeThread server(sc, "python", opt);
  const std::string out = testing::capture(fmt::format("/usr/bin/python3 '{}/tests/serve/python_client.py' {} {} {} 7 2>&1",
                                                  LBSIM_SOURCE_DIR, opt.address, opt.port, kRequests));
  const nlohmann::ordered_json& report = server.stop();
  const auto brace = out.find("{\"hosts\"");
  ASSERT_NE(brace, std::string::npos) << "the Python client failed:\n" << out;
  // The driver's plan starts with the key's first replica whatever the load: the model's open loop.
  check_driver(json::parse(out.substr(brace)), report, sc, "python", opt.address, {});
}

TEST(ServeNodeJsDriver, DiscoversTheClusterRoutesToReplicasAndMatchesTheModelsShares) {
  const auto env = policy::nodejs_test::oracle_env();
  if (!env.skip_reason.empty()) GTEST_SKIP() << env.skip_reason;
  const Scenario sc = load_scenario(kServeScenario);
  serve::ServeOptions opt;
  opt.address = "127.0.4.1";
  opt.port = 19242;
  testing::ServeThread server(sc, "nodejs", opt);
  const std::string out = testing::capture(fmt::format("node '{}/tests/serve/nodejs_client.js' '{}' {} {} {} 7 1 2>&1", LBSIM_SOURCE_DIR,
                                                  env.driver, opt.address, opt.port, kRequests));
  const nlohmann::ordered_json& report = server.stop();
  const auto brace = out.find("{\"hosts\"");
  ASSERT_NE(brace, std::string::npos) << "the Node.js client failed:\n" << out;
  // One request at a time, so that no host has one in flight when the next plan is made: the
  // policy's power of two choices then never swaps, as in the model's closed loop of one thread.
  // (With 64 in flight the two differ: docs/fidelity.md.)
  check_driver(json::parse(out.substr(brace)), report, sc, "nodejs", opt.address, {"client.threads=1"});
}

// gocql keeps its token map private: every request's host is checked against the ring instead (a
// replica by the server's placement; gocql's unshuffled plan starts with the key's first replica,
// which its own map always lists, bug or not).
TEST(ServeGocqlDriver, DiscoversTheClusterRoutesToReplicasAndMatchesTheModelsShares) {
  const testing::GoClient go("gocql_client");
  if (!go.missing.empty()) GTEST_SKIP() << go.missing;
  ASSERT_TRUE(go.error.empty()) << go.error;
  const std::string& bin = go.binary;
  const Scenario sc = load_scenario(kServeScenario);
  serve::ServeOptions opt;
  opt.address = "127.0.8.1";
  opt.port = 19542;
  testing::ServeThread server(sc, "go", opt);
  const std::string out = testing::capture(fmt::format("'{}' {} {} {} 7 64 2>&1", bin, opt.address, opt.port, kRequests));
  const nlohmann::ordered_json& report = server.stop();
  const auto brace = out.find("{\"failures\"");
  ASSERT_NE(brace, std::string::npos) << "the gocql client failed:\n" << out;
  json client = json::parse(out.substr(brace));
  const TokenRing& ring = sc.placement();
  const std::uint32_t base = *cql::parse_ipv4(opt.address);
  int non_replica = 0;
  for (const auto& r : client["requests"]) {
    const std::string hex = r[0].get<std::string>();
    cql::Bytes key;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) key.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    const NodeId host = static_cast<NodeId>(*cql::parse_ipv4(r[1].get<std::string>()) - base);
    const auto reps = ring.replicas_at(ring.range_index(murmur3_token(key)), ReplicaOrder::Server);
    non_replica += std::find(reps.begin(), reps.end(), host) == reps.end() ? 1 : 0;
  }
  client["non_replica"] = non_replica;
  check_driver(client, report, sc, "go", opt.address, {});
}

}  // namespace
}  // namespace lbsim
