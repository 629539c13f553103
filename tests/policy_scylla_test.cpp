// Scylla-only policies (issue 10): RandomTwoChoice with the vector of the Scylla Java driver's
// own RandomTwoChoicePolicyTest, plus its tie rule and its use of per-shard in-flight counts.
#include <gtest/gtest.h>

#include <map>

#include "policy_test_util.hpp"

namespace lbsim::policy {
namespace {

using namespace testing;
using Names = std::vector<std::string>;

constexpr const char* kTwoChoiceOverTopological =
    R"({"type": "RandomTwoChoice", "child": {"type": "TokenAware", "ordering": "TOPOLOGICAL",
        "child": {"type": "RoundRobin"}}})";

// RandomTwoChoicePolicyTest.should_prefer_host_with_less_inflight_requests: replicas
// [host1, host2, host3], every token on shard 0, in flight 6, 2, 4 -> host2, host1, host3.
TEST(RandomTwoChoice, PrefersTheHostWithFewerInFlightRequestsOnTheTokensShard) {
  Harness h(scassandra({3}), simple(1), kTwoChoiceOverTopological);
  h.view().set_sharding({1, 12});
  h.view().set_in_flight_on_shard(0, 0, 6);
  h.view().set_in_flight_on_shard(1, 0, 2);
  h.view().set_in_flight_on_shard(2, 0, 4);
  EXPECT_EQ(h.plan_names(h.with_replicas({0, 1, 2})), (Names{"1:2", "1:1", "1:3"}));
}

TEST(RandomTwoChoice, ATieAndAnUnroutedRequest) {
  Harness h(scassandra({3}), simple(1), kTwoChoiceOverTopological);
  h.view().set_sharding({1, 12});
  // Equal counts: `host1 < host2` is false, so the driver puts host2 first.
  h.view().set_in_flight_on_shard(0, 0, 3);
  h.view().set_in_flight_on_shard(1, 0, 3);
  EXPECT_EQ(h.plan_names(h.with_replicas({0, 1, 2})), (Names{"1:2", "1:1", "1:3"}));
  // Strictly fewer on host1: host1 stays first.
  h.view().set_in_flight_on_shard(0, 0, 2);
  EXPECT_EQ(h.plan_names(h.with_replicas({0, 1, 2})), (Names{"1:1", "1:2", "1:3"}));
  // No routing key: the child plan (RoundRobin) unchanged, all three hosts once.
  const auto p = h.plan(h.unrouted());
  EXPECT_EQ(p.size(), 3u);
}

TEST(RandomTwoChoice, ComparesTheTokensShardNotTheHostTotal) {
  // 4 shards: the token's shard decides, whatever the other shards carry.
  Harness h(scassandra({3}), simple(1), kTwoChoiceOverTopological);
  h.view().set_sharding({4, 12});
  const Request req = h.with_replicas({0, 1, 2});
  const std::uint32_t s = shard_of(req.token, {4, 12});
  for (std::uint32_t k = 0; k < 4; ++k) h.view().set_in_flight_on_shard(0, k, k == s ? 1 : 100);
  for (std::uint32_t k = 0; k < 4; ++k) h.view().set_in_flight_on_shard(1, k, k == s ? 5 : 0);
  EXPECT_EQ(h.plan_names(req), (Names{"1:1", "1:2", "1:3"}));
}

// Scylla 4.x local rack (scylladb/java-driver scylla-4.x BasicLoadBalancingPolicy): replicas of
// the local rack first, then the other replicas, each block shuffled on its own; then the rest.
TEST(Scylla4xLocalRack, LocalRackReplicasComeFirstAndEachBlockIsShuffledSeparately) {
  // dc1: 1:1, 1:3, 1:5 in rack a; 1:2, 1:4, 1:6 in rack b.
  const auto topo = scassandra({6}, {{"a", "b", "a", "b", "a", "b"}});
  for (const char* type : {"Basic4x", "Default4x"}) {
    Harness h(topo, simple(1),
              std::string(R"({"type": ")") + type + R"(", "local_dc": "dc1", "local_rack": "a"})");
    std::map<std::string, int> first, third;
    for (int i = 0; i < 2000; ++i) {
      // Replicas 1:1, 1:2, 1:3, 1:4: two in rack a, two in rack b.
      const auto p = h.plan_names(h.with_replicas({0, 1, 2, 3}));
      ASSERT_EQ(p.size(), 6u);
      EXPECT_TRUE((p[0] == "1:1" || p[0] == "1:3") && (p[1] == "1:1" || p[1] == "1:3") && p[0] != p[1]) << type;
      EXPECT_TRUE((p[2] == "1:2" || p[2] == "1:4") && (p[3] == "1:2" || p[3] == "1:4") && p[2] != p[3]) << type;
      EXPECT_TRUE((p[4] == "1:5" || p[4] == "1:6") && p[4] != p[5]) << type;
      ++first[p[0]];
      ++third[p[2]];
    }
    // Both orders of each block occur, about evenly (binomial sd 22 at n = 2000).
    EXPECT_NEAR(first["1:1"], 1000, 110) << type;
    EXPECT_NEAR(third["1:2"], 1000, 110) << type;
  }
}

TEST(Scylla4xLocalRack, WithoutALocalRackReplicaTheWholeBlockIsShuffled) {
  const auto topo = scassandra({6}, {{"a", "b", "a", "b", "a", "b"}});
  Harness h(topo, simple(1), R"({"type": "Basic4x", "local_dc": "dc1", "local_rack": "a"})");
  std::map<std::string, int> first;
  for (int i = 0; i < 3000; ++i) ++first[h.plan_names(h.with_replicas({1, 3, 5}))[0]];
  EXPECT_EQ(first.size(), 3u);
  for (const auto& [name, n] : first) EXPECT_NEAR(n, 1000, 110) << name;
}

}  // namespace
}  // namespace lbsim::policy
