// Java 4.x BasicLoadBalancingPolicyQueryPlanTest / DefaultLoadBalancingPolicyQueryPlanTest
// (apache/cassandra-java-driver), shuffle disabled like the driver's tests: nodes n1..n5 in dc1
// are "1:1".."1:5" here; "now" is T1 = 100 ns and T0 = Long.MIN_VALUE.
#include <gtest/gtest.h>

#include <limits>

#include "policy_test_util.hpp"

namespace lbsim::policy {
namespace {

using namespace testing;
using Names = std::vector<std::string>;
constexpr SimTime T0 = std::numeric_limits<SimTime>::min();
constexpr SimTime T1 = 100, T2 = 200, T3 = 300;

constexpr const char* kBasic = R"({"type":"Basic4x","local_dc":"dc1","shuffle_replicas":false})";
constexpr const char* kDefault = R"({"type":"Default4x","local_dc":"dc1","shuffle_replicas":false})";

Names n(std::initializer_list<int> ids) {
  Names out;
  for (int i : ids) out.push_back("1:" + std::to_string(i));
  return out;
}

TEST(PolicyVectors4x, WithoutRoutingInformationPlansRotateByOneFromZero) {
  for (const char* spec : {kBasic, kDefault}) {
    Harness h(scassandra({5}), simple(1), spec);
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(h.plan_names(h.unrouted()), n({1, 2, 3, 4, 5}));
      EXPECT_EQ(h.plan_names(h.unrouted()), n({2, 3, 4, 5, 1}));
      EXPECT_EQ(h.plan_names(h.unrouted()), n({3, 4, 5, 1, 2}));
      EXPECT_EQ(h.plan_names(h.unrouted()), n({4, 5, 1, 2, 3}));
      EXPECT_EQ(h.plan_names(h.unrouted()), n({5, 1, 2, 3, 4}));
    }
  }
}

TEST(PolicyVectors4x, ASingleReplicaComesFirstAndTheRestRoundRobins) {
  for (const char* spec : {kBasic, kDefault}) {
    Harness h(scassandra({5}), simple(1), spec);
    const Request req = h.with_replicas({2});
    EXPECT_EQ(h.plan_names(req), n({3, 1, 2, 4, 5}));
    EXPECT_EQ(h.plan_names(req), n({3, 2, 4, 5, 1}));
    EXPECT_EQ(h.plan_names(req), n({3, 4, 5, 1, 2}));
    EXPECT_EQ(h.plan_names(req), n({3, 5, 1, 2, 4}));
    EXPECT_EQ(h.rnd.thread_local_draws, 0u);
  }
}

TEST(PolicyVectors4x, TwoReplicasComeFirstWithoutInFlightLookups) {
  for (const char* spec : {kBasic, kDefault}) {
    Harness h(scassandra({5}), simple(1), spec);
    h.view().set_in_flight(2, 50);  // would swap 3 and 5 if the power of two choices ran
    const Request req = h.with_replicas({2, 4});
    EXPECT_EQ(h.plan_names(req), n({3, 5, 1, 2, 4}));
    EXPECT_EQ(h.plan_names(req), n({3, 5, 2, 4, 1}));
    EXPECT_EQ(h.plan_names(req), n({3, 5, 4, 1, 2}));
  }
}

TEST(PolicyVectors4x, ShuffledReplicasDrawFromTheThreadLocalGenerator) {
  Harness h(scassandra({5}), simple(1), R"({"type":"Basic4x","local_dc":"dc1"})");
  h.plan(h.with_replicas({0, 2, 4}));
  EXPECT_EQ(h.rnd.thread_local_draws, 2u);
  EXPECT_EQ(h.rnd.shared_draws, 0u);
}

class Default4xCase : public ::testing::Test {
 protected:
  Harness h{scassandra({5}), simple(1), kDefault};
  Request req = h.with_replicas({0, 2, 4}, T1);
  void up_time(int node, SimTime t) {
    HostState s;
    s.up_time = t;
    h.policy().restore_state(static_cast<HostId>(node - 1), s);
  }
  void responses(int node, SimTime a, SimTime b) {
    HostState s;
    s.response_count = 2;
    s.response_times = {a, b};
    h.policy().restore_state(static_cast<HostId>(node - 1), s);
  }
  void in_flight(int node, std::int32_t v) { h.view().set_in_flight(static_cast<HostId>(node - 1), v); }
  // Makes the next two 1d4 rolls equal (or not equal) to 1 by choosing the generator's seed.
  void dice(bool one) {
    for (std::uint64_t seed = 1;; ++seed) {
      Rng r(seed);
      const bool a = r.below(4) == 1, b = r.below(4) == 1;
      if (a == one && b == one) {
        h.rng = Rng(seed);
        return;
      }
    }
  }
};

TEST_F(Default4xCase, AllHealthyAndAllNewlyUpWithTheNewestThirdKeepsTheOrder) {
  up_time(1, T1);
  up_time(3, T2);
  up_time(5, T3);
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 4, 2}));
  EXPECT_EQ(h.rnd.thread_local_draws, 0u) << "no 1d4 roll when the newest replica is third";
}

TEST_F(Default4xCase, NewestUpReplicaFirstMovesToTheBackUnlessTheDieShowsOne) {
  up_time(1, T2);
  up_time(3, T1);
  dice(false);
  EXPECT_EQ(h.plan_names(req), n({3, 5, 1, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({3, 5, 1, 4, 2}));
  EXPECT_EQ(h.rnd.thread_local_draws, 2u);
}

TEST_F(Default4xCase, NewestUpReplicaFirstStaysWhenTheDieShowsOne) {
  up_time(1, T2);
  up_time(3, T1);
  dice(true);
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 4, 2}));
}

TEST_F(Default4xCase, BusyReplicaWithStaleResponsesBubblesDown) {
  in_flight(1, 100);
  responses(1, T0, T0);
  EXPECT_EQ(h.plan_names(req), n({3, 5, 1, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({3, 5, 1, 4, 2}));
}

TEST_F(Default4xCase, BusyReplicaWithRecentResponsesIsOnlySwappedByInFlight) {
  in_flight(1, 100);
  responses(1, T1, T1);
  EXPECT_EQ(h.plan_names(req), n({3, 1, 5, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({3, 1, 5, 4, 2}));
}

TEST_F(Default4xCase, UnhealthyLastReplicaIsANoOp) {
  in_flight(5, 100);
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 4, 2}));
}

TEST_F(Default4xCase, AMajorityOfUnhealthyReplicasIsANoOp) {
  in_flight(1, 100);
  in_flight(3, 100);
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({1, 3, 5, 4, 2}));
}

TEST_F(Default4xCase, FirstTwoReplicasAreSwappedWhenTheFirstHasMoreInFlight) {
  in_flight(1, 200);
  in_flight(3, 100);
  EXPECT_EQ(h.plan_names(req), n({3, 1, 5, 2, 4}));
  EXPECT_EQ(h.plan_names(req), n({3, 1, 5, 4, 2}));
}

TEST_F(Default4xCase, TwoResponsesWithin200MsMakeABusyReplicaHealthyButClientTimeoutsDoNotCount) {
  in_flight(1, 100);
  in_flight(3, 5);
  in_flight(5, 5);
  h.policy().on_response(0, T1 - 10, 5, ResponseKind::Success);
  h.policy().on_response(0, T1 - 5, 5, ResponseKind::ClientTimeout);
  EXPECT_EQ(h.plan_names(req), n({3, 5, 1, 2, 4})) << "one response only: still unhealthy, demoted";
  h.policy().on_response(0, T1 - 1, 5, ResponseKind::Timeout);
  EXPECT_EQ(h.plan_names(req), n({3, 1, 5, 4, 2})) << "two recent responses: healthy, then swapped by in-flight";
}

TEST_F(Default4xCase, OnUpDoesNotRecordAnUpTimeAsInOss4x) {
  h.down(2);
  h.up(2);  // node 3 comes back: the driver's onUp never writes upTimes
  EXPECT_EQ(h.plan_names(req), n({1, 5, 3, 2, 4})) << "node 3 re-appended to the live set, no newly-up demotion";
  EXPECT_EQ(h.rnd.thread_local_draws, 0u);
}

TEST(PolicyVectors4x, DcFailoverAppendsRemoteNodesOnlyForNonLocalConsistency) {
  Harness h(scassandra({2, 3}), simple(1),
            R"({"type":"Basic4x","local_dc":"dc1","max_nodes_per_remote_dc":2,"shuffle_replicas":false})");
  EXPECT_EQ(h.plan_names(h.unrouted(ConsistencyLevel::LocalQuorum)), (Names{"1:1", "1:2"}));
  EXPECT_EQ(h.plan_names(h.unrouted(ConsistencyLevel::Quorum)), (Names{"1:2", "1:1", "2:1", "2:2"}));
  EXPECT_EQ(h.policy().distance(h.id("2:2")), Distance::Remote);
  EXPECT_EQ(h.policy().distance(h.id("2:3")), Distance::Ignored);
}

}  // namespace
}  // namespace lbsim::policy
