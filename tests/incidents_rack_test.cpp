// The rack-aware incidents of the gallery (docs/incidents.md) beyond their one figure: each
// scenario's second policy, the fix or the setting the thread compares with, moves the
// coordinators where its source says. scylladb/java-driver#255 (fix: scylla-tools-java PR #367,
// NEUTRAL), scylladb/java-driver#369 (fix: scylladb/java-driver PR #588, distance REMOTE for the
// local DC's other racks), scylladb/python-driver#573 (fix: PR #574, 3.29.5-scylla: LOCAL_RACK
// replicas first), scylladb/scylla-cluster-tests#10402 (c-s without a rack: TokenAware RANDOM over
// DCAwareRoundRobin) and gocql's ShuffleReplicas over its replica map (issue 36: the correct map
// shares the key 00000001 between B and C).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/config/incident.hpp"
#include "sim/config/scenario.hpp"
#include "sim/engine/simulation.hpp"

namespace lbsim {
namespace {

const std::string kRackIncidentDir = std::string(LBSIM_SOURCE_DIR) + "/configs/incidents/";

// The share of coordinator attempts per node of `policy`, on the entry's quick run.
std::vector<double> coordinator_shares_of(const std::string& name, const std::string& policy) {
  Scenario sc = load_scenario(kRackIncidentDir + name + ".json");
  sc = load_scenario(kRackIncidentDir + name + ".json", sc.reproduces->test_set);
  const RunResult r = run_simulation(sc, *sc.find_policy(policy), sc.seed, RunOptions{});
  std::vector<double> out;
  for (const NodeResult& n : r.nodes) out.push_back(static_cast<double>(n.coordinator_ops) / static_cast<double>(r.coordinator_total));
  return out;
}

// #255: the NEUTRAL fix (PR #367) keeps every request in rack r1 (n1, n4: round robin over r1..r3),
// where RANDOM (the figure) sends 2/3 to r2 and r3.
TEST(IncidentRackAware, JavaDriver255NeutralKeepsTheLocalRack) {
  const auto s = coordinator_shares_of("java-driver-255", "cs-neutral-367");
  ASSERT_EQ(s.size(), 6u);
  EXPECT_DOUBLE_EQ(s[0] + s[3], 1.0);
  // The local rack's two nodes split its replicas by ownership (256 random vnodes each).
  EXPECT_NEAR(s[0], 0.5, 0.05);
}

// #369: with distance REMOTE for the other racks (PR #588) RANDOM returns the local-rack replica
// first for every key (RF 3 on 3 racks: it is a replica of each), where LOCAL gives it 1/3.
TEST(IncidentRackAware, JavaDriver369RemoteDistancePrefersTheLocalRack) {
  const auto s = coordinator_shares_of("java-driver-369", "random-588");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0], 1.0);
}

// #573: 3.29.5-scylla yields LOCAL_RACK replicas before LOCAL ones (PR #574): n1, in the client's
// rack, coordinates everything; 3.28.0 (the figure) gives it its primary ownership only.
TEST(IncidentRackAware, PythonDriver573FixYieldsTheLocalRackFirst) {
  const auto fixed = coordinator_shares_of("python-driver-573", "py-3.29.5");
  ASSERT_EQ(fixed.size(), 3u);
  EXPECT_DOUBLE_EQ(fixed[0], 1.0);
  const auto bug = coordinator_shares_of("python-driver-573", "py-3.28.0");
  EXPECT_LT(bug[0], 0.4);
  EXPECT_GT(bug[0], 0.28);
}

// #10402: without a rack (c-s 3.17: TokenAware RANDOM over DCAwareRoundRobin) all 6 nodes
// coordinate, each about a sixth; RACK1's two get about a third, not all.
TEST(IncidentRackAware, ScyllaClusterTests10402WithoutARackAllSixCoordinate) {
  const auto s = coordinator_shares_of("scylla-cluster-tests-10402", "cs-no-rack");
  ASSERT_EQ(s.size(), 6u);
  for (double x : s) EXPECT_NEAR(x, 1.0 / 6, 0.02);
  EXPECT_NEAR(s[0] + s[3], 1.0 / 3, 0.03);
}

// gocql: the correct map lists [B, C] for the key 00000001, so the shuffle gives each a half; the
// buggy map's [B, B] gives B all (the figure) and C, a real replica, nothing.
TEST(IncidentRackAware, GocqlCorrectMapSharesTheKeyBetweenBAndC) {
  const auto correct = coordinator_shares_of("gocql-replica-map-shuffle", "go-correct-map");
  ASSERT_EQ(correct.size(), 3u);
  EXPECT_EQ(correct[0], 0.0);
  EXPECT_NEAR(correct[1], 0.5, 0.03);  // 4,000 fair coin flips: sd 0.008
  const auto buggy = coordinator_shares_of("gocql-replica-map-shuffle", "go-gocql-map");
  EXPECT_EQ(buggy[2], 0.0);
}

}  // namespace
}  // namespace lbsim
