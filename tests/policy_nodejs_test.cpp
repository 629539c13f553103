// The Node.js driver's policies (cassandra-driver 4.10.0): NodeDCAwareRoundRobin, NodeTokenAware,
// NodeDefault, NodeAllowList and the driver's own replica map, first as deterministic and
// statistical unit cases, then against the real driver run by Node.js (tests/nodejs/), which
// is skipped when the package is not installed (scripts/deps.sh installs it).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "policies/nodejs/replicas.hpp"
#include "policies/plan_util.hpp"
#include "policy_test_util.hpp"
#include "sim/core/error.hpp"
#include "tests/nodejs/oracle_runs.hpp"

namespace lbsim::policy::nodejs_test {

using namespace lbsim::policy::testing;
using Names = std::vector<std::string>;
using Counts = std::map<std::string, int>;

constexpr const char* kDcAware = R"({"type":"NodeDCAwareRoundRobin","local_dc":"dc1"})";
constexpr const char* kDefault = R"({"type":"NodeDefault","local_dc":"dc1"})";
const std::string kTokenAware = R"({"type":"NodeTokenAware","child":)" + std::string(kDcAware) + "}";

void set_health(Harness& h, const std::string& node, std::int32_t in_flight, int responses, SimTime at,
                std::optional<SimTime> up_time = std::nullopt) {
  h.view().set_in_flight(h.id(node), in_flight);
  HostState s;
  s.response_count = responses;
  s.response_times = {at, at};
  s.up_time = up_time;
  h.policy().restore_state(h.id(node), s);
}

// ---- NodeDCAwareRoundRobin -------------------------------------------------------------------------

TEST(NodeJsDcAware, TheIndexStartsAtZeroAndStepsBeforeUseOverTheLocalDcOnly) {
  Harness h(scassandra({4, 2}), simple(1), kDcAware);
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:2", "1:3", "1:4", "1:1"}));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:3", "1:4", "1:1", "1:2"}));
  EXPECT_EQ(h.plan_names(h.routed(0, ConsistencyLevel::One)), (Names{"1:4", "1:1", "1:2", "1:3"}));
  EXPECT_EQ(h.plan_names(h.unrouted(ConsistencyLevel::Quorum)), (Names{"1:1", "1:2", "1:3", "1:4"}));
  EXPECT_EQ(h.policy().distance(h.id("1:1")), Distance::Local);
  EXPECT_EQ(h.policy().distance(h.id("2:1")), Distance::Ignored);
  EXPECT_EQ(h.rnd.thread_local_draws + h.rnd.shared_draws, 0u);
}

TEST(NodeJsDcAware, ADownHostKeepsItsSlotSoTheNextHostTakesItsTurns) {
  Harness h(scassandra({4}), simple(1), kDcAware);
  h.down(h.id("1:3"));
  EXPECT_EQ(first_counts(h, h.unrouted(), 400), (Counts{{"1:1", 100}, {"1:2", 100}, {"1:4", 200}}));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:2", "1:4", "1:1"}));
  h.up(h.id("1:3"));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:3", "1:4", "1:1", "1:2"}));
}

// ---- NodeTokenAware --------------------------------------------------------------------------------

TEST(NodeJsTokenAware, LocalReplicasAreRotatedFromARandomStartSoOnlyKOrdersOccur) {
  Harness h(scassandra({5}), simple(1), kTokenAware, 3);
  const Request req = h.with_replicas({0, 2, 4});
  std::map<std::vector<HostId>, int> orders;
  for (int i = 0; i < 3000; ++i) ++orders[plan_take(h, req, 3)];
  const std::vector<HostId> a{0, 2, 4}, b{2, 4, 0}, c{4, 0, 2};
  ASSERT_EQ(orders.size(), 3u);
  for (const auto& o : {a, b, c}) EXPECT_NEAR(orders[o], 1000, 120) << "each rotation about 1/3 (4.5 sigma)";
  EXPECT_EQ(h.rnd.thread_local_draws, 3000u) << "one Math.random per routed plan";
  EXPECT_EQ(h.rnd.shared_draws, 0u);
}

TEST(NodeJsTokenAware, TheChildPlanIsBuiltAtCreationAndFollowsMinusTheLocalReplicas) {
  Harness h(scassandra({5}), simple(1), kTokenAware);
  // Plan 1 takes child index 1 even though only the replica is used.
  EXPECT_EQ(plan_take(h, h.with_replicas({2}), 1), (std::vector<HostId>{2}));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:3", "1:4", "1:5", "1:1", "1:2"}));  // child index 2
  EXPECT_EQ(h.plan_names(h.with_replicas({2})), (Names{"1:3", "1:4", "1:5", "1:1", "1:2"}));
  EXPECT_EQ(h.plan_names(h.with_replicas({3})), (Names{"1:4", "1:5", "1:1", "1:2", "1:3"}));
  EXPECT_EQ(h.rnd.thread_local_draws, 3u) << "no draw for the unrouted plan";
}

TEST(NodeJsTokenAware, RemoteReplicasAreNotLocalAndNoLocalReplicaStillDrawsOnce) {
  Harness h(scassandra({3, 2}), simple(1), kTokenAware);
  const HostId remote = h.id("2:1");
  EXPECT_EQ(h.plan_names(h.with_replicas({remote, h.id("1:3")})), (Names{"1:3", "1:2", "1:1"}));
  EXPECT_EQ(h.plan_names(h.with_replicas({remote})), (Names{"1:3", "1:1", "1:2"}));
  EXPECT_EQ(h.rnd.thread_local_draws, 2u);
}

TEST(NodeJsTokenAware, ADownReplicaKeepsItsSlotSoTheNextReplicaComesFirstTwice) {
  Harness h(scassandra({5}), simple(1), kTokenAware, 9);
  h.down(h.id("1:3"));
  const Counts c = first_counts(h, h.with_replicas({0, 2, 4}), 6000);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_NEAR(c.at("1:5"), 4000, 170) << "start 1 (the down one) and start 2 both give 1:5 first";
  EXPECT_NEAR(c.at("1:1"), 2000, 170);
}

// ---- NodeDefault -----------------------------------------------------------------------------------

TEST(NodeJsDefault, LocalHostsRotateFromZeroAndTheIndexIsTakenOnlyWhenAPlanReachesThem) {
  Harness h(scassandra({5, 2}), simple(1), kDefault);
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:1", "1:2", "1:3", "1:4", "1:5"}));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:2", "1:3", "1:4", "1:5", "1:1"}));
  const Request req = h.with_replicas({0, 2, 4});
  for (int i = 0; i < 5; ++i) plan_take(h, req, 3);  // the replicas only: no index taken
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:3", "1:4", "1:5", "1:1", "1:2"}));
  const Names full = h.plan_names(req);  // index 3: 1:4, 1:5, 1:1, 1:2, 1:3 minus the replicas
  ASSERT_EQ(full.size(), 5u);
  EXPECT_EQ(std::set<std::string>(full.begin(), full.begin() + 3), (std::set<std::string>{"1:1", "1:3", "1:5"}));
  EXPECT_EQ(Names(full.begin() + 3, full.end()), (Names{"1:4", "1:2"}));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:5", "1:1", "1:2", "1:3", "1:4"}));
  EXPECT_EQ(h.policy().distance(h.id("2:1")), Distance::Ignored);
  EXPECT_TRUE(h.policy().adaptive());
  EXPECT_TRUE(h.policy().reads_in_flight());
}

TEST(NodeJsDefault, ReplicasAreShuffledWithNMinusOneDrawsAndRemoteOrDownOnesLeftOut) {
  Harness h(scassandra({5, 2}), simple(1), kDefault);
  h.down(h.id("1:2"));
  const Request req = h.with_replicas({h.id("2:1"), 0, 1, 2, 4});
  std::set<std::string> firsts;
  for (int i = 0; i < 200; ++i) {
    const Names p = h.plan_names(req);
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(std::set<std::string>(p.begin(), p.begin() + 3), (std::set<std::string>{"1:1", "1:3", "1:5"}));
    EXPECT_EQ(p[3], "1:4");
    firsts.insert(p[0]);
  }
  EXPECT_EQ(firsts.size(), 3u);
  EXPECT_EQ(h.rnd.thread_local_draws, 400u);
}

TEST(NodeJsDefault, TheLessBusyOfTheFirstTwoGoesFirstOnlyWithThreeReplicasOrMore) {
  Harness h(scassandra({5}), simple(1), kDefault);
  h.view().set_in_flight(0, 5);
  h.view().set_in_flight(2, 3);
  const Counts three = first_counts(h, h.with_replicas({0, 2, 4}), 600);
  EXPECT_EQ(three.count("1:1"), 0u) << "busiest never first";
  EXPECT_NEAR(three.at("1:5"), 400, 60) << "1:5 (idle) first unless it is third: 2/3";
  const Counts two = first_counts(h, h.with_replicas({0, 2}), 600);
  EXPECT_NEAR(two.at("1:1"), 300, 60) << "two replicas: shuffled, no in-flight comparison";
}

// Unhealthy: in flight >= 10 and at most one response in the last window plus the current one.
TEST(NodeJsDefault, UnhealthyReplicasGoBackOnlyWhileTheyAreFewerThanFloorHalfPlusOne) {
  struct Case {
    std::vector<HostId> replicas;
    int unhealthy;
    bool demoted;
  };
  // floor(n/2 + 1): n=3 -> 2, n=4 -> 3, n=5 -> 3.
  for (const Case& c : {Case{{0, 1, 2}, 1, true}, Case{{0, 1, 2}, 2, false}, Case{{0, 1, 2, 3}, 2, true},
                        Case{{0, 1, 2, 3}, 3, false}, Case{{0, 1, 2, 3, 4}, 2, true}, Case{{0, 1, 2, 3, 4}, 3, false}}) {
    Harness h(scassandra({5}), simple(1), kDefault, 5);
    const SimTime now = 10 * kSec;
    for (int i = 0; i < c.unhealthy; ++i) set_health(h, h.name(c.replicas[static_cast<std::size_t>(i)]), 12, 1, now);
    const Request req = h.with_replicas(c.replicas, now);
    const std::size_t n = c.replicas.size(), healthy = n - static_cast<std::size_t>(c.unhealthy);
    int unhealthy_in_front = 0;
    for (int k = 0; k < 300; ++k) {
      const auto p = plan_take(h, req, static_cast<int>(n));
      for (std::size_t i = 0; i < healthy; ++i) unhealthy_in_front += p[i] < static_cast<HostId>(c.unhealthy) ? 1 : 0;
    }
    if (c.demoted) EXPECT_EQ(unhealthy_in_front, 0) << n << " replicas, " << c.unhealthy << " unhealthy";
    else EXPECT_GT(unhealthy_in_front, 50) << n << " replicas, " << c.unhealthy << " unhealthy";  // >= 100 expected
  }
}

TEST(NodeJsDefault, TheResponseCountIsTheLastCompleteWindowPlusTheCurrentOne) {
  Harness h(scassandra({3}), simple(1), kDefault);
  const SimTime now = 1000 * kMs;  // window [1000, 1200) ms
  const Request req = h.with_replicas({0, 1, 2}, now);
  auto demoted = [&] {  // 1:1 unhealthy alone: always last
    for (int k = 0; k < 60; ++k)
      if (plan_take(h, req, 3)[2] != 0) return false;
    return true;
  };
  set_health(h, "1:1", 10, 0, 0);
  EXPECT_TRUE(demoted()) << "no response";
  set_health(h, "1:1", 10, 2, now);
  EXPECT_FALSE(demoted()) << "two responses in the current window";
  set_health(h, "1:1", 10, 2, 850 * kMs);
  EXPECT_FALSE(demoted()) << "two in the previous window [800, 1000)";
  set_health(h, "1:1", 10, 2, 799 * kMs);
  EXPECT_TRUE(demoted()) << "two responses two windows ago";
  set_health(h, "1:1", 10, 1, 900 * kMs);
  h.policy().on_response(0, now, kMs, ResponseKind::ClientTimeout);
  EXPECT_FALSE(demoted()) << "one in the previous window plus one now (a client timeout counts)";
  set_health(h, "1:1", 9, 0, 0);
  EXPECT_FALSE(demoted()) << "9 in flight is not busy";
}

// _sendUnhealthyToTheBack swaps (not a stable bubble): replay the shuffle with a mirror generator.
TEST(NodeJsDefault, AnUnhealthyReplicaIsSwappedWithTheLastOne) {
  Harness h(scassandra({5}), simple(1), kDefault, 21);
  Rng mirror = h.rng;
  PlanRandom mirror_rnd(mirror);
  set_health(h, "1:2", 12, 0, 0);
  const std::vector<HostId> replicas{0, 1, 2, 3, 4};
  const Request req = h.with_replicas(replicas);
  for (int k = 0; k < 100; ++k) {
    std::vector<HostId> expect = replicas;
    java_shuffle(expect, mirror_rnd, RngModel::ThreadLocal);
    std::swap(*std::find(expect.begin(), expect.end(), 1), expect.back());
    EXPECT_EQ(plan_take(h, req, 5), expect);
  }
}

TEST(NodeJsDefault, ANewlyUpReplicaFirstOrSecondGoesLastThreeTimesInFour) {
  Harness h(scassandra({5}), simple(1), kDefault, 8);
  const SimTime t0 = 100 * kSec;
  h.plan(h.with_replicas({0}, t0));  // the policy has seen t0
  h.down(2);
  h.up(2);  // isUpSince = t0
  const int n = 6000;
  auto last_share = [&](SimTime now) {
    const Request req = h.with_replicas({0, 2, 4}, now);
    int last = 0;
    for (int k = 0; k < n; ++k) last += plan_take(h, req, 3)[2] == 2 ? 1 : 0;
    return static_cast<double>(last) / n;
  };
  const std::uint32_t before = h.rnd.thread_local_draws;
  EXPECT_NEAR(last_share(t0 + 59 * kSec), 1.0 / 3 + 2.0 / 3 * 0.75, 0.022);  // 4.5 sigma
  const std::uint32_t dice = h.rnd.thread_local_draws - before - 2 * n;
  EXPECT_NEAR(dice, n * 2 / 3, 160) << "the 1d4 is rolled only when it is first or second";
  EXPECT_NEAR(last_share(t0 + 60 * kSec), 1.0 / 3, 0.03) << "60 s after: no longer newly up";
}

TEST(NodeJsDefault, TheFilterIgnoresHostsAndDropsThemFromPlans) {
  Harness h(scassandra({4}), simple(1), R"({"type":"NodeDefault","local_dc":"dc1","filter":["1:1","1:2","1:4"]})");
  EXPECT_EQ(h.policy().distance(h.id("1:3")), Distance::Ignored);
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:1", "1:2", "1:4"}));
  EXPECT_EQ(h.plan_names(h.with_replicas({2})), (Names{"1:2", "1:4", "1:1"}));
}

// ---- NodeAllowList ---------------------------------------------------------------------------------

TEST(NodeJsAllowList, HostsOutsideTheListAreIgnoredAndFilteredFromTheChildPlan) {
  Harness h(scassandra({4, 1}), simple(1),
            R"({"type":"NodeAllowList","hosts":["1:1","1:3","2:1"],"child":{"type":"NodeDCAwareRoundRobin","local_dc":"dc1"}})");
  EXPECT_EQ(h.policy().distance(h.id("1:2")), Distance::Ignored);
  EXPECT_EQ(h.policy().distance(h.id("1:3")), Distance::Local);
  EXPECT_EQ(h.policy().distance(h.id("2:1")), Distance::Ignored) << "allowed, but the child ignores it";
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:3", "1:1"}));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:3", "1:1"}));
  EXPECT_EQ(h.plan_names(h.unrouted()), (Names{"1:1", "1:3"}));
}

// ---- specs -----------------------------------------------------------------------------------------

TEST(NodeJsConfig, SpecsAreCheckedWithTheirPath) {
  const Topology t = scassandra({2, 2});
  const Replication r = nts({{"dc1", 2}});
  EXPECT_EQ(error_of(R"({"type":"NodeDCAwareRoundRobin"})"),
            "/p/local_dc: required field is missing (the Node.js driver refuses to start without localDataCenter)");
  EXPECT_EQ(error_of(R"({"type":"NodeDefault","local_dc":"dc9"})", &t), "/p/local_dc: unknown datacenter 'dc9'; valid: dc1, dc2");
  EXPECT_EQ(error_of(R"({"type":"NodeTokenAware","replica_source":"nodejs-4.10","child":)" + std::string(kDcAware) + "}", &t),
            "/p/replica_source: \"nodejs-4.10\" computes the driver's replica map from the keyspace's replication, which "
            "is not known here (no cluster); use \"correct\"");
  EXPECT_EQ(error_of(R"({"type":"NodeTokenAware","replica_source":"nodejs-4.10","child":)" + std::string(kDcAware) + "}", &t, &r),
            "no error");
  EXPECT_EQ(error_of(R"({"type":"NodeDefault","local_dc":"dc1","replica_source":"buggy"})"),
            "/p/replica_source: unknown value 'buggy'; valid: correct, nodejs-4.10");
  EXPECT_EQ(error_of(R"({"type":"NodeAllowList","hosts":["1:1","9:9"],"child":)" + std::string(kDcAware) + "}", &t),
            "/p/hosts/1: unknown node '9:9'; valid: 1:1, 1:2, 2:1, 2:2");
  EXPECT_NE(error_of(R"({"type":"NodeAllowList","child":)" + std::string(kDcAware) + "}").find("/p/hosts: required"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"type":"NodeTokenAware","child":{"type":"DCAwareRoundRobin"}})").find("cannot wrap"), std::string::npos);
  const std::string wraps_default =
      R"({"type":"NodeTokenAware","child":{"type":"NodeAllowList","hosts":[],"child":)" + std::string(kDefault) + "}}";
  EXPECT_NE(error_of(wraps_default).find("/p/child/child/type: NodeTokenAware cannot wrap NodeDefault"),
            std::string::npos);
  EXPECT_EQ(canonical_type("NodeDefaultPolicy"), "NodeDefault");
  EXPECT_EQ(Registry::instance().find("NodeTokenAware")->driver, Driver::NodeJs);
}

// ---- the driver's replica map (replica_source "nodejs-4.10") ---------------------------------------

// One node per entry: (id, dc, rack, tokens).
Topology nodes_of(const std::vector<std::tuple<std::string, std::string, std::string, std::vector<Token>>>& spec) {
  std::vector<NodeSpec> nodes;
  for (const auto& [id, dc, rack, tokens] : spec) nodes.push_back({id, dc, rack, tokens});
  return Topology::build(nodes);
}

std::vector<std::string> ids(const Topology& t, std::span<const HostId> hosts) {
  std::vector<std::string> out;
  for (HostId h : hosts) out.push_back(t.nodes[h].id);
  return out;
}

TEST(NodeJsReplicaMap, SkippedHostsSharedAcrossDcsGiveOneDcTooManyAndAnotherTooFew) {
  // Ring from 100: B1 B2 A1 A2 A4 B3 A3. B2 and A2 are deferred into the one shared list; A4
  // completes dc1's racks and the head of that list, B2 (dc2), is credited to dc1.
  const Topology t = nodes_of({{"A1", "dc1", "r1", {300}}, {"A2", "dc1", "r1", {400}}, {"A3", "dc1", "r1", {700}},
                               {"A4", "dc1", "r2", {500}}, {"B1", "dc2", "r1", {100}}, {"B2", "dc2", "r1", {200}},
                               {"B3", "dc2", "r2", {600}}});
  const Replication r = nts({{"dc1", 3}, {"dc2", 2}});
  const nodejs::ReplicaMap m(t, r);
  EXPECT_EQ(ids(t, m.replicas(100)), (Names{"B1", "A1", "A4", "B2", "B3"})) << "dc1 gets 2 of 3, dc2 3 of 2";
  EXPECT_EQ(ids(t, TokenRing(t, r).replicas(100, ReplicaOrder::Driver)), (Names{"B1", "A1", "A4", "A2", "B3"}));
  EXPECT_EQ(ids(t, m.replicas(-5000)), ids(t, m.replicas(100))) << "tokens below the first wrap to it";
  EXPECT_EQ(ids(t, m.replicas(701)), ids(t, m.replicas(100)));
}

TEST(NodeJsReplicaMap, AHostSkippedTwiceIsAddedTwiceAndARealReplicaIsLost) {
  const Topology t = nodes_of(
      {{"X1", "dc1", "r1", {10}}, {"X2", "dc1", "r1", {20, 30}}, {"Y1", "dc1", "r2", {40}}, {"X3", "dc1", "r1", {50}}});
  const Replication r = nts({{"dc1", 4}});
  const nodejs::ReplicaMap m(t, r);
  EXPECT_EQ(ids(t, m.replicas(10)), (Names{"X1", "Y1", "X2", "X2"}));
  EXPECT_EQ(ids(t, TokenRing(t, r).replicas(10, ReplicaOrder::Driver)), (Names{"X1", "Y1", "X2", "X3"}));
  // NodeTokenAware over that list: X2 comes first 2 times in 4 and is yielded twice per plan, as
  // the driver yields it (then the child's X3, which the driver does not list).
  Harness h(t, r, R"({"type":"NodeTokenAware","replica_source":"nodejs-4.10","child":)" + std::string(kDcAware) + "}");
  const Counts c = first_counts(h, h.routed(10), 8000);
  EXPECT_NEAR(c.at("X2"), 4000, 200);
  EXPECT_NEAR(c.at("X1"), 2000, 180);
  EXPECT_EQ(c.count("X3"), 0u) << "X3 is not a replica for the driver";
  for (int i = 0; i < 50; ++i) {
    const auto p = h.plan(h.routed(10));
    EXPECT_EQ(std::count(p.begin(), p.end(), h.id("X2")), 2);
    EXPECT_EQ(p.size(), 5u);
    EXPECT_EQ(p.back(), h.id("X3"));
  }
}

TEST(NodeJsReplicaMap, SimpleStrategyWalksTheRingAndRfOneOrZeroGivesThePrimary) {
  const Topology t = scassandra({5});
  for (int rf : {0, 1, 3}) {
    const nodejs::ReplicaMap m(t, simple(rf));
    const TokenRing ring(t, simple(std::max(rf, 1)));
    for (std::size_t i = 0; i < ring.size(); ++i)
      EXPECT_EQ(ids(t, m.replicas_at(i)), ids(t, ring.replicas_at(i, ReplicaOrder::Driver))) << "rf " << rf;
  }
}

// ---- the live oracle: the real driver under Node.js ------------------------------------------------

// dc1: 6 nodes over racks r1/r2, dc2: 5 nodes over r1/r2; 8 random vnodes each. RFs above the
// rack count make the driver's map go wrong: with NTS {dc1: 3, dc2: 3} hosts are listed twice
// (32 of 88 ranges), with {dc1: 4, dc2: 2} DCs also get too many or too few replicas.
Topology bug_cluster() {
  std::vector<NodeSpec> nodes;
  Rng r(2024);
  const std::vector<std::pair<std::string, std::string>> where{
      {"dc1", "r1"}, {"dc1", "r2"}, {"dc1", "r1"}, {"dc1", "r2"}, {"dc1", "r1"}, {"dc1", "r2"},
      {"dc2", "r1"}, {"dc2", "r2"}, {"dc2", "r1"}, {"dc2", "r1"}, {"dc2", "r2"}};
  for (std::size_t i = 0; i < where.size(); ++i) {
    std::vector<Token> toks;
    for (int k = 0; k < 8; ++k) toks.push_back(static_cast<Token>(r.next_u64()));
    nodes.push_back({"n" + std::to_string(i), where[i].first, where[i].second, toks});
  }
  return Topology::build(nodes);
}
const std::vector<Replication>& bug_replications() {
  static const std::vector<Replication> r{nts({{"dc1", 3}, {"dc2", 3}}), nts({{"dc1", 4}, {"dc2", 2}})};
  return r;
}

// Equal plan lists, reporting the first difference only.
void expect_same_plans(const std::vector<std::vector<HostId>>& lbsim, const std::vector<std::vector<HostId>>& driver,
                       const std::string& what) {
  ASSERT_EQ(lbsim.size(), driver.size()) << what;
  for (std::size_t i = 0; i < lbsim.size(); ++i) {
    ASSERT_EQ(lbsim[i], driver[i]) << what << ": plan " << i << " differs (lbsim first, the driver second)";
  }
}

TEST(NodeJsOracle, TheDriversReplicaMapEqualsTheNodeJs410ListsBugsIncluded) {
  LBSIM_NEEDS_NODEJS_DRIVER(env);
  const Topology t = bug_cluster();
  int differ = 0, duplicated = 0, over = 0, under = 0;
  for (const Replication& repl : bug_replications()) {
    const nodejs::ReplicaMap m(t, repl);
    const TokenRing ring(t, repl);
    std::vector<Token> tokens{kMinToken, kMaxToken};
    for (std::size_t i = 0; i < ring.size(); ++i) {
      tokens.push_back(ring.token_at(i));
      tokens.push_back(ring.token_at(i) - 1);
    }
    nlohmann::json in = cluster_json(t, repl);
    nlohmann::json ts = nlohmann::json::array();
    for (Token x : tokens) ts.push_back(std::to_string(x));
    in["cases"] = nlohmann::json::array({{{"kind", "replicas"}, {"tokens", ts}}});
    const nlohmann::json out = run_oracle(env, in);
    const auto& lists = out["cases"][0]["replicas"];
    ASSERT_EQ(lists.size(), tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const auto mine = m.replicas(tokens[i]);
      ASSERT_EQ(lists[i].get<std::vector<HostId>>(), std::vector<HostId>(mine.begin(), mine.end()))
          << repl.describe() << ", token " << tokens[i];
      const auto correct = ring.replicas(tokens[i], ReplicaOrder::Driver);
      differ += std::equal(mine.begin(), mine.end(), correct.begin(), correct.end()) ? 0 : 1;
      const std::set<HostId> distinct(mine.begin(), mine.end());
      duplicated += distinct.size() < mine.size() ? 1 : 0;
      for (std::uint32_t d = 0; d < 2; ++d) {
        const auto n = std::count_if(distinct.begin(), distinct.end(), [&](HostId h) { return t.node_dc[h] == d; });
        over += n > repl.rf_for_dc(t.dcs[d]) ? 1 : 0;
        under += n < repl.rf_for_dc(t.dcs[d]) ? 1 : 0;
      }
    }
  }
  EXPECT_GT(differ, 0) << "the driver's lists differ from the correct ones";
  EXPECT_GT(duplicated, 0) << "bug 2: a host listed twice";
  EXPECT_GT(over, 0) << "bug 1: a DC with more replicas than its RF";
  EXPECT_GT(under, 0) << "a DC with fewer replicas than its RF";
  // The two hand-traced rings of the NodeJsReplicaMap cases, through the driver.
  for (const auto& [topo, r, token] :
       {std::tuple{nodes_of({{"A1", "dc1", "r1", {300}}, {"A2", "dc1", "r1", {400}}, {"A3", "dc1", "r1", {700}},
                             {"A4", "dc1", "r2", {500}}, {"B1", "dc2", "r1", {100}}, {"B2", "dc2", "r1", {200}},
                             {"B3", "dc2", "r2", {600}}}),
                   nts({{"dc1", 3}, {"dc2", 2}}), Token{100}},
        std::tuple{nodes_of({{"X1", "dc1", "r1", {10}}, {"X2", "dc1", "r1", {20, 30}}, {"Y1", "dc1", "r2", {40}},
                             {"X3", "dc1", "r1", {50}}}),
                   nts({{"dc1", 4}}), Token{10}}}) {
    nlohmann::json small = cluster_json(topo, r);
    small["cases"] = nlohmann::json::array({{{"kind", "replicas"}, {"tokens", {std::to_string(token)}}}});
    const nodejs::ReplicaMap small_map(topo, r);
    const auto mine = small_map.replicas(token);
    EXPECT_EQ(run_oracle(env, small)["cases"][0]["replicas"][0].get<std::vector<HostId>>(),
              std::vector<HostId>(mine.begin(), mine.end()));
  }
}

TEST(NodeJsOracle, SimpleStrategyMapsEqualTheCorrectReplicas) {
  LBSIM_NEEDS_NODEJS_DRIVER(env);
  const Topology t = bug_cluster();
  const TokenRing ring(t, simple(3));
  nlohmann::json in = cluster_json(t, simple(3));
  nlohmann::json ts = nlohmann::json::array();
  for (std::size_t i = 0; i < ring.size(); ++i) ts.push_back(std::to_string(ring.token_at(i)));
  in["cases"] = nlohmann::json::array({{{"kind", "replicas"}, {"tokens", ts}}});
  const auto lists = run_oracle(env, in)["cases"][0]["replicas"];
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const auto c = ring.replicas_at(i, ReplicaOrder::Driver);
    EXPECT_EQ(lists[i].get<std::vector<HostId>>(), std::vector<HostId>(c.begin(), c.end())) << "range " << i;
  }
}

// lbsim's spec and the script's description of the same policy, run over `steps` on both sides
// with the script's Math.random replaying the harness's generator; once per bug replication.
void expect_driver_plans(const OracleEnv& env, const std::string& lbsim_spec, const nlohmann::json& driver_spec,
                         bool nodejs_replicas, const std::vector<Step>& steps, std::uint64_t seed) {
  const Topology t = bug_cluster();
  for (const Replication& repl : bug_replications()) {
    Harness h(t, repl, lbsim_spec, seed);
    const std::uint64_t rng_seed = h.rng.seed();
    nlohmann::json requests;
    const auto mine = run_steps(h, steps, !nodejs_replicas, requests);
    nlohmann::json in = cluster_json(t, repl);
    in["cases"] = nlohmann::json::array({{{"kind", "plans"},
                                           {"policy", driver_spec},
                                           {"random", {{"mode", "replay"}, {"seed", std::to_string(rng_seed)}}},
                                           {"replicas_from", nodejs_replicas ? "driver" : "request"},
                                           {"requests", requests}}});
    expect_same_plans(mine, as_plans(run_oracle(env, in)["cases"][0]["plans"]), lbsim_spec + " on " + repl.describe());
  }
}

const nlohmann::json kDriverDcAware{{"type", "DCAwareRoundRobin"}, {"local_dc", "dc1"}};

TEST(NodeJsOracle, DcAwareRoundRobinPlansEqualTheDriversExactly) {
  LBSIM_NEEDS_NODEJS_DRIVER(env);
  expect_driver_plans(env, kDcAware, kDriverDcAware, false, random_steps(11, 300, 1, false), 1);
}

TEST(NodeJsOracle, TokenAwarePlansEqualTheDriversDrawForDraw) {
  LBSIM_NEEDS_NODEJS_DRIVER(env);
  const std::string dc = kDcAware;
  const std::string allow = R"("hosts":["n0","n2","n3","n5","n7"])";
  const nlohmann::json allowed = {"n0", "n2", "n3", "n5", "n7"};
  for (const char* source : {"correct", "nodejs-4.10"}) {
    const std::string src = std::string(R"("replica_source":")") + source + "\"";
    const bool buggy = std::string(source) != "correct";
    expect_driver_plans(env, R"({"type":"NodeTokenAware",)" + src + R"(,"child":)" + dc + "}",
                        {{"type", "TokenAware"}, {"child", kDriverDcAware}}, buggy, random_steps(11, 400, 2, false), 2);
    expect_driver_plans(env,
                        R"({"type":"NodeTokenAware",)" + src + R"(,"child":{"type":"NodeAllowList",)" + allow +
                            R"(,"child":)" + dc + "}}",
                        {{"type", "TokenAware"}, {"child", {{"type", "AllowList"}, {"hosts", allowed}, {"child", kDriverDcAware}}}},
                        buggy, random_steps(11, 400, 3, false), 3);
    expect_driver_plans(env,
                        R"({"type":"NodeAllowList",)" + allow + R"(,"child":{"type":"NodeTokenAware",)" + src +
                            R"(,"child":)" + dc + "}}",
                        {{"type", "AllowList"}, {"hosts", allowed}, {"child", {{"type", "TokenAware"}, {"child", kDriverDcAware}}}},
                        buggy, random_steps(11, 400, 4, false), 4);
  }
}

TEST(NodeJsOracle, DefaultPlansEqualTheDriversDrawForDraw) {
  LBSIM_NEEDS_NODEJS_DRIVER(env);
  for (const char* source : {"correct", "nodejs-4.10"}) {
    const std::string src = std::string(R"("replica_source":")") + source + "\"";
    const bool buggy = std::string(source) != "correct";
    expect_driver_plans(env, R"({"type":"NodeDefault","local_dc":"dc1",)" + src + "}",
                        {{"type", "Default"}, {"local_dc", "dc1"}}, buggy, random_steps(11, 600, 5, true), 5);
    expect_driver_plans(env, R"({"type":"NodeDefault","local_dc":"dc1","filter":["n0","n1","n2","n4","n5","n8"],)" + src + "}",
                        {{"type", "Default"}, {"local_dc", "dc1"}, {"filter", {"n0", "n1", "n2", "n4", "n5", "n8"}}}, buggy,
                        random_steps(11, 600, 6, true), 6);
  }
}

void expect_same_distribution(const std::map<HostId, int>& lbsim, const std::map<HostId, int>& driver, const char* what) {
  const ChiSquare c = two_sample_chi_square(lbsim, driver);
  EXPECT_GE(c.dof, 1) << what;
  EXPECT_LT(c.statistic, chi_square_critical_9999(c.dof)) << what << ": two-sample chi-square, " << c.dof << " dof";
}

// Randomised parts against the driver's real Math.random: first-host frequencies over 20,000
// plans agree (two-sample chi-square below its 0.01% point), and every driver plan has lbsim's
// structure (replicas first as one of the k rotations, then the same deterministic tail).
TEST(NodeJsOracle, TokenAwareFirstHostsMatchTheDriversOwnMathRandom) {
  LBSIM_NEEDS_NODEJS_DRIVER(env);
  constexpr int kPlans = 20000;
  const Topology t = bug_cluster();
  const Replication& repl = bug_replications()[0];
  const nodejs::ReplicaMap m(t, repl);
  // A range whose dc1 entries list a host twice: that host comes first 2 times in k.
  std::vector<HostId> local;
  Token token = 0;
  for (std::size_t i = 0; i < m.ranges() && local.empty(); ++i) {
    std::vector<HostId> l;
    for (HostId x : m.replicas_at(i))
      if (t.node_dc[x] == 0) l.push_back(x);
    if (std::set<HostId>(l.begin(), l.end()).size() < l.size()) {
      local = l;
      token = m.token_at(i);
    }
  }
  ASSERT_FALSE(local.empty());
  // The driver yields every entry, a doubled host twice (and so does lbsim).
  std::set<std::vector<HostId>> rotations;
  for (std::size_t s = 0; s < local.size(); ++s) {
    std::vector<HostId> r;
    for (std::size_t i = 0; i < local.size(); ++i) r.push_back(local[(s + i) % local.size()]);
    rotations.insert(r);
  }
  const std::size_t block = rotations.begin()->size();
  Harness h(t, repl, R"({"type":"NodeTokenAware","replica_source":"nodejs-4.10","child":)" + std::string(kDcAware) + "}", 17);
  std::vector<std::vector<HostId>> mine;
  for (int i = 0; i < kPlans; ++i) mine.push_back(h.plan(h.routed(token)));
  const auto theirs = native_plans(env, t, repl, {{"type", "TokenAware"}, {"child", kDriverDcAware}}, "driver",
                                   {{"token", std::to_string(token)}, {"now_ms", 0}, {"set", nlohmann::json::array()}}, kPlans);
  ASSERT_EQ(theirs.size(), mine.size());
  std::map<HostId, int> first_mine, first_theirs;
  for (int i = 0; i < kPlans; ++i) {
    const auto& a = mine[static_cast<std::size_t>(i)];
    const auto& b = theirs[static_cast<std::size_t>(i)];
    ASSERT_GE(b.size(), block);
    ASSERT_TRUE(rotations.count(std::vector<HostId>(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(block))))
        << "driver plan " << i << " does not start with a rotation of the local replicas";
    ASSERT_EQ(std::vector<HostId>(a.begin() + static_cast<std::ptrdiff_t>(block), a.end()),
              std::vector<HostId>(b.begin() + static_cast<std::ptrdiff_t>(block), b.end()))
        << "plan " << i << ": the child part (round-robin index) differs";
    ++first_mine[a[0]];
    ++first_theirs[b[0]];
  }
  expect_same_distribution(first_mine, first_theirs, "NodeTokenAware first host");
  for (HostId x : local) {
    if (std::count(local.begin(), local.end(), x) == 2) {
      EXPECT_NEAR(first_theirs[x], kPlans * 2.0 / static_cast<double>(local.size()), 600) << "a doubled host is first 2 in k";
    }
  }
}

TEST(NodeJsOracle, DefaultFirstHostsMatchTheDriversOwnMathRandom) {
  LBSIM_NEEDS_NODEJS_DRIVER(env);
  constexpr int kPlans = 20000;
  const Topology t = bug_cluster();
  const Replication& repl = bug_replications()[1];  // 4 local replicas
  Harness h(t, repl, kDefault, 23);
  const Token token = h.ring().token_at(0);
  const std::int64_t now_ms = 1'000'000;
  const SimTime now = now_ms * kMs;
  std::vector<HostId> local;
  for (HostId x : h.ring().replicas(token, ReplicaOrder::Driver))
    if (t.node_dc[x] == 0) local.push_back(x);
  ASSERT_EQ(local.size(), 4u);
  // Busy 4/0/2/0 in flight, the third newly up (1 s ago), the fourth unhealthy is masked by it.
  const std::int32_t in_flight[] = {4, 0, 2, 12};
  nlohmann::json set = nlohmann::json::array();
  for (std::size_t i = 0; i < 4; ++i) {
    const std::optional<SimTime> up = i == 2 ? std::optional<SimTime>((now_ms - 1000) * kMs) : std::nullopt;
    set_health(h, h.name(local[i]), in_flight[i], i == 3 ? 0 : 2, now, up);
    set.push_back({{"host", local[i]},
                   {"in_flight", in_flight[i]},
                   {"responses", i == 3 ? 0 : 2},
                   {"up_since_ms", i == 2 ? nlohmann::json(now_ms - 1000) : nlohmann::json(nullptr)}});
  }
  std::map<HostId, int> first_mine, last_mine, first_theirs, last_theirs;
  const Request req = h.routed(token, ConsistencyLevel::LocalOne, now);
  for (int i = 0; i < kPlans; ++i) {
    const auto p = plan_take(h, req, 4);
    ++first_mine[p[0]];
    ++last_mine[p[3]];
  }
  const std::vector<HostId> replicas(req.replicas.begin(), req.replicas.end());
  const auto theirs = native_plans(env, t, repl, {{"type", "Default"}, {"local_dc", "dc1"}}, "request",
                                   {{"token", std::to_string(token)}, {"now_ms", now_ms}, {"take", 4}, {"set", set},
                                    {"replicas", replicas}},
                                   kPlans);
  for (const auto& p : theirs) {
    ASSERT_EQ(p.size(), 4u);
    ++first_theirs[p[0]];
    ++last_theirs[p[3]];
  }
  expect_same_distribution(first_mine, first_theirs, "NodeDefault first host");
  expect_same_distribution(last_mine, last_theirs, "NodeDefault last replica");
  EXPECT_EQ(first_theirs.count(local[3]), 0u) << "the busiest (12 in flight) is never first";
  EXPECT_EQ(first_mine.count(local[3]), 0u);
}

}  // namespace lbsim::policy::nodejs_test
