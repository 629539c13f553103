// The Go driver's policies (scylladb/gocql and apache gocql policies.go): GoRoundRobin,
// GoDCAwareRoundRobin, GoRackAwareRoundRobin and GoTokenAware, with the vectors of gocql's own
// policies_test.go (TestHostPolicy_TokenAware, _TokenAware_NetworkStrategy, _RackAwareRR,
// _TokenAware_RackAware, _DCAwareRR, _DCAwareRR_disableDCFailover) and the offsets, laziness,
// shuffle, LWT and busy-replica rules of the driver.
//
// gocql's tests use the ordered partitioner with tokens "05".."60"; here node i gets the Murmur3
// token 5*(i+1), which keeps the ring order, and keys "23"/"18" become the tokens 23/18.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "policy_test_util.hpp"
#include "sim/core/error.hpp"

namespace lbsim::policy::go_test {

using namespace lbsim::policy::testing;
using Ids = std::vector<HostId>;
using IdSet = std::set<HostId>;

// 12 hosts named "0".."11", node i with token 5*(i+1), DC of node i from `dc_of(i)`, rack from
// `rack_of(i)`.
Topology go_ring(const std::vector<std::string>& dcs, const std::vector<std::string>& racks) {
  std::vector<NodeSpec> nodes;
  for (std::size_t i = 0; i < 12; ++i)
    nodes.push_back({std::to_string(i), dcs[i % dcs.size()], racks[i % racks.size()], {static_cast<Token>(5 * (i + 1))}});
  return Topology::build(nodes);
}
// TestHostPolicy_TokenAware / _NetworkStrategy: DCs cycle remote1, local, remote2.
Topology three_dc_ring() { return go_ring({"remote1", "local", "remote2"}, {"r1"}); }
// TestHostPolicy_TokenAware_RackAware: DCs remote, remote, local, local, ...; racks a, b, a, b, ...
Topology rack_ring() { return go_ring({"remote", "remote", "local", "local"}, {"a", "b"}); }

// The plan cut into consecutive groups of the given sizes, each as a set (gocql's expectHosts).
std::vector<IdSet> groups(const Ids& plan, const std::vector<std::size_t>& sizes) {
  std::vector<IdSet> out;
  std::size_t at = 0;
  for (std::size_t s : sizes) {
    IdSet g;
    for (std::size_t k = 0; k < s && at < plan.size(); ++k) g.insert(plan[at++]);
    out.push_back(g);
  }
  EXPECT_EQ(at, plan.size()) << "the plan has more hosts than the groups";
  return out;
}


constexpr const char* kTaDcLocal = R"({"type":"GoTokenAware","child":{"type":"GoDCAwareRoundRobin","local_dc":"local"}})";

// --- gocql policies_test.go vectors ---------------------------------------------------------

// TestHostPolicy_TokenAware: NTS {local:1, remote1:1, remote2:1}, key "23" -> host 4 first, then
// the other 11. The rest is the DC-aware plan of offset 1: local [1,4,7,10] from index 2 without
// 4, then remote [0,2,3,5,6,8,9,11] from index 2.
TEST(GoTokenAware, GocqlVectorKey23GivesTheLocalReplicaThenEveryOtherHost) {
  Harness h(three_dc_ring(), nts({{"local", 1}, {"remote1", 1}, {"remote2", 1}}), kTaDcLocal);
  const Request req = h.routed(23);
  ASSERT_EQ(IdSet(req.replicas.begin(), req.replicas.end()), (IdSet{4, 5, 6}));
  const Ids plan = h.plan(req);
  ASSERT_EQ(plan.size(), 12u);
  EXPECT_EQ(plan[0], 4u);
  EXPECT_EQ(groups(plan, {1, 11})[1], (IdSet{0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(plan, (Ids{4, 7, 10, 1, 3, 5, 6, 8, 9, 11, 0, 2}));
  for (int i = 0; i < 50; ++i) EXPECT_EQ(h.first(h.routed(23)), 4u);
}

// TestHostPolicy_TokenAware_NetworkStrategy: NTS {2,2,2}, NonLocalReplicasFallback, no shuffle,
// key "18" -> [4,7], then [3,5,6,8], then {0,1,2,9,10,11}.
TEST(GoTokenAware, GocqlVectorKey18WithNonLocalReplicasFallback) {
  Harness h(three_dc_ring(), nts({{"local", 2}, {"remote1", 2}, {"remote2", 2}}),
            R"({"type":"GoTokenAware","shuffle_replicas":false,"non_local_replicas_fallback":true,
                "child":{"type":"GoDCAwareRoundRobin","local_dc":"local"}})");
  const Request req = h.routed(18);
  ASSERT_EQ(IdSet(req.replicas.begin(), req.replicas.end()), (IdSet{3, 4, 5, 6, 7, 8}));
  const Ids plan = h.plan(req);
  const auto g = groups(plan, {2, 4, 6});
  EXPECT_EQ(g[0], (IdSet{4, 7}));
  EXPECT_EQ(g[1], (IdSet{3, 5, 6, 8}));
  EXPECT_EQ(g[2], (IdSet{0, 1, 2, 9, 10, 11}));
  // Unshuffled, the replicas keep ring order: exactly gocql's sequence.
  EXPECT_EQ(plan, (Ids{4, 7, 3, 5, 6, 8, 10, 1, 9, 11, 0, 2}));
  EXPECT_EQ(h.rnd.shared_draws + h.rnd.thread_local_draws, 0u);
}

// TestHostPolicy_RackAwareRR: hosts 0-3 local (racks a,a,b,b), 4-7 remote (a,a,b,b), local rack b
// -> {2,3}, then {0,1}, then {4,5,6,7}. Offsets 1 and 2 give these exact rotations.
TEST(GoRackAwareRoundRobin, GocqlVectorLocalRackThenLocalDcThenOtherDcs) {
  std::vector<NodeSpec> nodes;
  const char* racks = "aabbaabb";
  for (int i = 0; i < 8; ++i)
    nodes.push_back({std::to_string(i), i < 4 ? "local" : "remote", std::string(1, racks[i]), {1000 * (i + 1)}});
  Harness h(Topology::build(nodes), simple(1), R"({"type":"GoRackAwareRoundRobin","local_dc":"local","local_rack":"b"})");
  const Ids first = h.plan(h.unrouted());
  const auto g = groups(first, {2, 2, 4});
  EXPECT_EQ(g[0], (IdSet{2, 3}));
  EXPECT_EQ(g[1], (IdSet{0, 1}));
  EXPECT_EQ(g[2], (IdSet{4, 5, 6, 7}));
  EXPECT_EQ(first, (Ids{2, 3, 0, 1, 6, 7, 4, 5}));
  EXPECT_EQ(h.plan(h.unrouted()), (Ids{3, 2, 1, 0, 7, 4, 5, 6}));
  // Tiers and distances: only the local rack is LOCAL (gocql IsLocal is HostTier == 0).
  EXPECT_EQ(h.policy().distance_tier(2), 0);
  EXPECT_EQ(h.policy().distance_tier(0), 1);
  EXPECT_EQ(h.policy().distance_tier(5), 2);
  EXPECT_EQ(h.policy().distance(2), Distance::Local);
  EXPECT_EQ(h.policy().distance(0), Distance::Remote);
  // HostPolicyOptionDisableDCFailover: the other DC is dropped.
  Harness off(Topology::build(nodes), simple(1),
              R"({"type":"GoRackAwareRoundRobin","local_dc":"local","local_rack":"b","disable_dc_failover":true})");
  EXPECT_EQ(off.plan(off.unrouted()), (Ids{2, 3, 0, 1}));
}

// TestHostPolicy_TokenAware_RackAware: NTS {local:2, remote:2}, key "23" -> replicas {4,5,6,7}.
TEST(GoTokenAware, GocqlVectorRackAwareChildWithAndWithoutNonLocalFallback) {
  const std::string child = R"("child":{"type":"GoRackAwareRoundRobin","local_dc":"local","local_rack":"b"})";
  Harness with(rack_ring(), nts({{"local", 2}, {"remote", 2}}),
               R"({"type":"GoTokenAware","non_local_replicas_fallback":true,)" + child + "}");
  const Request req = with.routed(23);
  ASSERT_EQ(IdSet(req.replicas.begin(), req.replicas.end()), (IdSet{4, 5, 6, 7}));
  auto g = groups(with.plan(req), {1, 1, 2, 2, 2, 4});
  EXPECT_EQ(g[0], (IdSet{7}));
  EXPECT_EQ(g[1], (IdSet{6}));
  EXPECT_EQ(g[2], (IdSet{4, 5}));
  EXPECT_EQ(g[3], (IdSet{3, 11}));
  EXPECT_EQ(g[4], (IdSet{2, 10}));
  EXPECT_EQ(g[5], (IdSet{0, 1, 8, 9}));

  Harness without(rack_ring(), nts({{"local", 2}, {"remote", 2}}), R"({"type":"GoTokenAware",)" + child + "}");
  g = groups(without.plan(without.routed(23)), {1, 2, 3, 6});
  EXPECT_EQ(g[0], (IdSet{7}));
  EXPECT_EQ(g[1], (IdSet{3, 11}));
  EXPECT_EQ(g[2], (IdSet{2, 6, 10}));
  EXPECT_EQ(g[3], (IdSet{0, 1, 4, 5, 8, 9}));
}

// TestHostPolicy_DCAwareRR and _disableDCFailover: 2 local + 2 remote hosts.
TEST(GoDCAwareRoundRobin, GocqlVectorLocalBeforeRemoteAndNoRemoteWithFailoverDisabled) {
  const Topology t = Topology::build({{"0", "local", "r", {10}}, {"1", "local", "r", {20}},
                                      {"2", "remote", "r", {30}}, {"3", "remote", "r", {40}}});
  Harness h(t, simple(1), R"({"type":"GoDCAwareRoundRobin","local_dc":"local"})");
  const auto g = groups(h.plan(h.unrouted()), {2, 2});
  EXPECT_EQ(g[0], (IdSet{0, 1}));
  EXPECT_EQ(g[1], (IdSet{2, 3}));
  Harness off(t, simple(1), R"({"type":"GoDCAwareRoundRobin","local_dc":"local","disable_dc_failover":true})");
  const Ids p = off.plan(off.unrouted());
  EXPECT_EQ(IdSet(p.begin(), p.end()), (IdSet{0, 1}));
  // Remote hosts stay REMOTE, not IGNORED: gocql still connects to them.
  EXPECT_EQ(off.policy().distance(2), Distance::Remote);
}

// --- offsets, layers and laziness -----------------------------------------------------------

// The offset starts at 0 and each plan takes ++offset: plan k starts every layer at (k+1) % len.
// A host coming back up is appended to its list (cowHostList.add).
TEST(GoDCAwareRoundRobin, OffsetStartsAtOneForTheFirstPlanAndEveryLayerRestartsFromIt) {
  Harness h(three_dc_ring(), simple(1), R"({"type":"GoDCAwareRoundRobin","local_dc":"local"})");
  // local [1,4,7,10], remote [0,2,3,5,6,8,9,11]
  EXPECT_EQ(h.plan(h.unrouted()), (Ids{7, 10, 1, 4, 3, 5, 6, 8, 9, 11, 0, 2}));
  EXPECT_EQ(h.plan(h.unrouted()), (Ids{10, 1, 4, 7, 5, 6, 8, 9, 11, 0, 2, 3}));
  EXPECT_EQ(h.first(h.unrouted()), 1u);
  EXPECT_EQ(h.first(h.unrouted()), 4u);
  h.down(7);
  h.up(7);  // local list is now [1,4,10,7]; plan 5: shift 5, start index 6 % 4 = 2
  const Ids p = h.plan(h.unrouted());
  EXPECT_EQ(Ids(p.begin(), p.begin() + 4), (Ids{10, 7, 1, 4}));
  // A host that goes down after the plan was made is skipped when reached.
  h.arena.reset();
  Plan* lazy = h.policy().new_plan(h.unrouted(), h.rnd, h.arena);  // shift 6: local from index 3
  EXPECT_EQ(lazy->next(), 7u);
  h.view().set_up(1, false);  // the driver's view changes, the policy not told yet
  EXPECT_EQ(lazy->next(), 4u);
  EXPECT_EQ(lazy->next(), 10u);
}

TEST(GoRoundRobin, EveryLiveHostRotatedByOnePerPlanAllLocal) {
  Harness h(scassandra({5}), simple(1), R"({"type":"GoRoundRobin"})");
  EXPECT_EQ(h.plan(h.unrouted()), (Ids{2, 3, 4, 0, 1}));
  EXPECT_EQ(h.plan(h.unrouted()), (Ids{3, 4, 0, 1, 2}));
  std::map<HostId, int> firsts;
  for (int i = 0; i < 50; ++i) ++firsts[h.first(h.unrouted())];
  for (HostId x = 0; x < 5; ++x) EXPECT_EQ(firsts[x], 10) << x;
  EXPECT_EQ(h.policy().distance(4), Distance::Local);
}

// The child plan is made only when the replicas run out, so plans that stop at a replica do not
// advance the child's offset (gocql creates fallbackIter lazily).
TEST(GoTokenAware, TheChildPlanIsMadeOnlyWhenTheReplicasRunOut) {
  Harness h(three_dc_ring(), nts({{"local", 1}, {"remote1", 1}, {"remote2", 1}}), kTaDcLocal);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(h.first(h.routed(23)), 4u);
  EXPECT_EQ(h.plan(h.routed(23)), (Ids{4, 7, 10, 1, 3, 5, 6, 8, 9, 11, 0, 2}));  // still offset 1
}

// With a HostTierer child (rack-aware) gocql's NonLocalReplicasFallback loop stops at the first
// empty tier: replicas in the local rack and in other DCs only -> the remote-DC replicas are not
// tried after the local one but where the child plan puts them.
TEST(GoTokenAware, RackAwareChildWithNoLocalDcReplicaInAnotherRackSkipsRemoteReplicas) {
  const std::string child = R"("child":{"type":"GoRackAwareRoundRobin","local_dc":"local","local_rack":"b"})";
  Harness h(rack_ring(), nts({{"local", 1}, {"remote", 2}}),
            R"({"type":"GoTokenAware","non_local_replicas_fallback":true,)" + child + "}");
  const Request req = h.routed(38);  // range "40": host 7 (local b), then 8, 9 (remote a, b)
  ASSERT_EQ(IdSet(req.replicas.begin(), req.replicas.end()), (IdSet{7, 8, 9}));
  // 7, local rack b [3,7,11] from index 2, local rack a [2,6,10], remote [0,1,4,5,8,9] from index 2.
  EXPECT_EQ(h.plan(req), (Ids{7, 11, 3, 10, 2, 6, 4, 5, 8, 9, 0, 1}));
  // A DC-aware child (not a tierer) puts them right after the local replica.
  Harness dc(rack_ring(), nts({{"local", 1}, {"remote", 2}}),
             R"({"type":"GoTokenAware","shuffle_replicas":false,"non_local_replicas_fallback":true,
                 "child":{"type":"GoDCAwareRoundRobin","local_dc":"local"}})");
  const Ids p = dc.plan(dc.routed(38));
  EXPECT_EQ(Ids(p.begin(), p.begin() + 3), (Ids{7, 8, 9}));
}

// --- shuffle, LWT, versions -----------------------------------------------------------------

// One DC of 6 nodes, RF 3, GoRoundRobin child (gocql's default policy): every replica is local.
// 12,000 plans: first-host counts against 4,000 each, chi-square with 2 degrees of freedom below
// 13.8 (p = 0.001). Current scylladb: math/rand/v2 -> 2 thread-local draws per plan.
TEST(GoTokenAware, ShuffledReplicasGiveAUniformFirstHostWithThreadLocalDraws) {
  Harness h(scassandra({6}), simple(3), R"({"type":"GoTokenAware","child":{"type":"GoRoundRobin"}})", 7);
  const Request req = h.routed(12345);
  std::map<HostId, int> count;
  constexpr int kPlans = 12000;
  for (int i = 0; i < kPlans; ++i) ++count[h.first(req)];
  ASSERT_EQ(count.size(), 3u);
  double chi2 = 0;
  for (HostId r : req.replicas) {
    const double d = count[r] - kPlans / 3.0;
    chi2 += d * d / (kPlans / 3.0);
  }
  EXPECT_LT(chi2, 13.8);
  EXPECT_EQ(h.rnd.thread_local_draws, 2u * kPlans);
  EXPECT_EQ(h.rnd.shared_draws, 0u);
}

TEST(GoTokenAware, DefaultShuffleAndGeneratorDependOnVersion) {
  struct Case {
    const char* version;
    bool shuffled;
    RngModel rng;
  };
  for (const Case c : {Case{"scylladb", true, RngModel::ThreadLocal}, Case{"scylladb-before-2026-03-19", true, RngModel::Shared},
                       Case{"scylladb-before-2025-05-23", false, RngModel::Shared}, Case{"upstream", false, RngModel::Shared}}) {
    Harness h(scassandra({6}), simple(3),
              std::string(R"({"type":"GoTokenAware","child":{"type":"GoRoundRobin"},"version":")") + c.version + "\"}");
    const Request req = h.routed(12345);
    std::set<HostId> firsts;
    for (int i = 0; i < 200; ++i) firsts.insert(h.first(req));
    EXPECT_EQ(firsts.size(), c.shuffled ? 3u : 1u) << c.version;
    if (!c.shuffled) {
      EXPECT_EQ(*firsts.begin(), req.replicas[0]) << c.version;
    }
    const std::uint32_t draws = c.shuffled ? 400u : 0u;
    EXPECT_EQ(c.rng == RngModel::Shared ? h.rnd.shared_draws : h.rnd.thread_local_draws, draws) << c.version;
    EXPECT_EQ(c.rng == RngModel::Shared ? h.rnd.thread_local_draws : h.rnd.shared_draws, 0u) << c.version;
  }
}

// LWT: never shuffled by scylladb/gocql (IsLWT, since 2020, PR #41); upstream cannot tell an LWT
// and shuffles it like any query.
TEST(GoTokenAware, LwtKeepsReplicaOrderInScyllaVersionsButIsShuffledUpstream) {
  Harness h(scassandra({6}), simple(3), R"({"type":"GoTokenAware","child":{"type":"GoRoundRobin"}})");
  Request lwt = h.routed(12345);
  lwt.lwt = true;
  const Ids order(lwt.replicas.begin(), lwt.replicas.end());
  for (int i = 0; i < 100; ++i) {
    const Ids p = h.plan(lwt);
    ASSERT_EQ(p.size(), 6u);
    EXPECT_EQ(Ids(p.begin(), p.begin() + 3), order);
  }
  EXPECT_EQ(h.rnd.shared_draws + h.rnd.thread_local_draws, 0u);
  std::set<HostId> firsts;
  for (int i = 0; i < 100; ++i) firsts.insert(h.first(lwt));
  EXPECT_EQ(firsts, (IdSet{lwt.replicas[0]}));

  Harness up(scassandra({6}), simple(3),
             R"({"type":"GoTokenAware","version":"upstream","shuffle_replicas":true,"child":{"type":"GoRoundRobin"}})");
  Request ulwt = up.routed(12345);
  ulwt.lwt = true;
  firsts.clear();
  for (int i = 0; i < 100; ++i) firsts.insert(up.first(ulwt));
  EXPECT_EQ(firsts.size(), 3u);
  EXPECT_EQ(up.rnd.shared_draws, 200u);
}

// --- avoid_slow_replicas, down replicas, plan contract ----------------------------------------

// AvoidSlowReplicas: replicas with in-flight >= threshold (default 10) go after the others, each
// group keeping its order; never for LWT.
TEST(GoTokenAware, AvoidSlowReplicasPutsBusyReplicasLastStably) {
  Harness h(scassandra({6}), simple(3),
            R"({"type":"GoTokenAware","shuffle_replicas":false,"avoid_slow_replicas":true,"child":{"type":"GoRoundRobin"}})");
  EXPECT_TRUE(h.policy().reads_in_flight());
  const Request req = h.with_replicas({0, 1, 2, 3});
  h.view().set_in_flight(0, 10);  // busy (>= 10)
  h.view().set_in_flight(1, 9);
  h.view().set_in_flight(2, 50);  // busy
  h.view().set_in_flight(3, 0);
  Ids p = h.plan(req);
  EXPECT_EQ(Ids(p.begin(), p.begin() + 4), (Ids{1, 3, 0, 2}));
  // Every replica busy (or none): the order is unchanged.
  for (HostId x = 0; x < 4; ++x) h.view().set_in_flight(x, 20);
  p = h.plan(req);
  EXPECT_EQ(Ids(p.begin(), p.begin() + 4), (Ids{0, 1, 2, 3}));
  // LWT: no partition.
  h.view().set_in_flight(0, 20);
  h.view().set_in_flight(1, 0);
  Request lwt = req;
  lwt.lwt = true;
  p = h.plan(lwt);
  EXPECT_EQ(Ids(p.begin(), p.begin() + 4), (Ids{0, 1, 2, 3}));
  // A higher threshold: nothing is busy.
  Harness t(scassandra({6}), simple(3),
            R"({"type":"GoTokenAware","shuffle_replicas":false,"avoid_slow_replicas":true,
                "max_in_flight_threshold":100,"child":{"type":"GoRoundRobin"}})");
  t.view().set_in_flight(0, 99);
  p = t.plan(t.with_replicas({0, 1}));
  EXPECT_EQ(Ids(p.begin(), p.begin() + 2), (Ids{0, 1}));
  Harness off(scassandra({6}), simple(3), R"({"type":"GoTokenAware","child":{"type":"GoRoundRobin"}})");
  EXPECT_FALSE(off.policy().reads_in_flight());
}

TEST(GoTokenAware, DownReplicasAreSkippedAndNoHostComesTwice) {
  Harness h(three_dc_ring(), nts({{"local", 2}, {"remote1", 2}, {"remote2", 2}}),
            R"({"type":"GoTokenAware","non_local_replicas_fallback":true,
                "child":{"type":"GoDCAwareRoundRobin","local_dc":"local"}})");
  h.down(4);
  h.down(5);
  Ids p = h.plan(h.routed(18));
  EXPECT_EQ(p[0], 7u);
  EXPECT_EQ(IdSet(p.begin() + 1, p.begin() + 4), (IdSet{3, 6, 8}));
  EXPECT_EQ(p.size(), 10u);
  EXPECT_EQ(std::count(p.begin(), p.end(), 4u), 0);
  EXPECT_EQ(std::count(p.begin(), p.end(), 5u), 0);
  // Random tokens and down sets: every up host exactly once, never a down one.
  Rng r(99);
  for (int step = 0; step < 500; ++step) {
    const auto x = static_cast<HostId>(r.below(12));
    if (h.view().is_up(x)) h.down(x);
    else h.up(x);
    const Request req = h.routed(static_cast<Token>(r.below(70)));
    p = h.plan(req);
    IdSet seen(p.begin(), p.end());
    EXPECT_EQ(seen.size(), p.size());
    IdSet up;
    for (HostId y = 0; y < 12; ++y)
      if (h.view().is_up(y)) up.insert(y);
    EXPECT_EQ(seen, up);
    IdSet local_up;  // the up local replicas come first
    for (HostId y : req.replicas)
      if (h.view().is_up(y) && h.view().dc(y) == 1) local_up.insert(y);
    EXPECT_EQ(IdSet(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(local_up.size())), local_up);
  }
}

// --- configuration --------------------------------------------------------------------------

TEST(GoPolicies, SpecErrorsNameThePath) {
  const Topology t = three_dc_ring();
  EXPECT_EQ(spec_error(R"({"type":"GoDCAwareRoundRobin"})", &t),
            "/p/local_dc: required field is missing (gocql DCAwareRoundRobinPolicy(localDC) has no default)");
  EXPECT_EQ(spec_error(R"({"type":"GoDCAwareRoundRobin","local_dc":"dc9"})", &t),
            "/p/local_dc: unknown datacenter 'dc9'; valid: remote1, local, remote2");
  EXPECT_NE(spec_error(R"({"type":"GoRackAwareRoundRobin","local_dc":"local"})", &t).find("/p/local_rack: required"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"GoTokenAware","version":"v2","child":{"type":"GoRoundRobin"}})")
                .find("/p/version: unknown value 'v2'; valid: scylladb, scylladb-before-2026-03-19"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"GoTokenAware","version":"upstream","avoid_slow_replicas":true,"child":{"type":"GoRoundRobin"}})")
                .find("/p/avoid_slow_replicas: "),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"GoTokenAware","max_in_flight_threshold":5,"child":{"type":"GoRoundRobin"}})")
                .find("/p/max_in_flight_threshold: only used with"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"GoTokenAware","avoid_slow_replicas":true,"max_in_flight_threshold":-1,"child":{"type":"GoRoundRobin"}})")
                .find("/p/max_in_flight_threshold: must be in [0, 1000000]"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"type":"GoTokenAware"})").find("/p/child: required field is missing"), std::string::npos);
  // A Go wrapper wraps only Go policies.
  EXPECT_NE(spec_error(R"({"type":"GoTokenAware","child":{"type":"RoundRobin"}})").find("/p/child/type: GoTokenAware"),
            std::string::npos);
  EXPECT_EQ(spec_error(R"({"type":"GoTokenAwarePolicy","child":{"type":"GoDCAwareRoundRobinPolicy","local_dc":"local"}})", &t),
            "no error");
  for (const char* type : {"GoRoundRobin", "GoDCAwareRoundRobin", "GoRackAwareRoundRobin", "GoTokenAware"}) {
    const PolicyInfo* info = Registry::instance().find(type);
    ASSERT_NE(info, nullptr) << type;
    EXPECT_EQ(info->driver, Driver::Go);
  }
}

}  // namespace lbsim::policy::go_test
