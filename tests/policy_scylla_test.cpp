// Scylla-only policies (issue 10): RandomTwoChoice with the vector of the Scylla Java driver's
// own RandomTwoChoicePolicyTest, plus its tie rule and its use of per-shard in-flight counts.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace lbsim::policy
