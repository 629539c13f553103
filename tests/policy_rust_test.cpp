// RustDefault (scylla-rust-driver DefaultPolicy): the driver's own plan-group vectors on the
// locator test ring (default.rs test_default_policy_with_token_aware_statements and
// ..._with_lwt_statements, routing/locator/test.rs), plus LWT ring order, fixed-seed permutations,
// first-host uniformity, down replicas, latency penalisation and random-draw accounting.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "policy_test_util.hpp"
#include "ring_reference.hpp"
#include "sim/core/error.hpp"

namespace lbsim::policy::rust_test {

using namespace lbsim::policy::testing;
using Names = std::vector<std::string>;
using testref::rust_ring;

inline Replication nts2() { return nts({{"eu", 2}, {"us", 2}}); }
inline Replication nts3() { return nts({{"eu", 3}, {"us", 3}}); }

// The driver test framework's ExpectedGroupsBuilder: group() = same members in any order and more
// than one order seen; deterministic() = same members, one order over all plans; ordered() = this
// exact sequence.
enum class Kind { Shuffled, Stable, Ordered };
struct Group {
  Kind kind;
  Names hosts;
};

inline void expect_groups(Harness& h, const Request& req, const std::vector<Group>& groups, int plans = 256) {
  std::size_t total = 0;
  for (const auto& g : groups) total += g.hosts.size();
  std::vector<std::set<Names>> seen(groups.size());
  for (int i = 0; i < plans; ++i) {
    const Names p = h.plan_names(req);
    ASSERT_EQ(p.size(), total) << "plan " << i << ": " << ::testing::PrintToString(p);
    std::size_t at = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const Names got(p.begin() + static_cast<std::ptrdiff_t>(at),
                      p.begin() + static_cast<std::ptrdiff_t>(at + groups[g].hosts.size()));
      at += groups[g].hosts.size();
      EXPECT_EQ(std::set<std::string>(got.begin(), got.end()),
                std::set<std::string>(groups[g].hosts.begin(), groups[g].hosts.end()))
          << "group " << g << " of plan " << ::testing::PrintToString(p);
      if (groups[g].kind == Kind::Ordered) {
        EXPECT_EQ(got, groups[g].hosts) << "group " << g;
      }
      seen[g].insert(got);
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].kind == Kind::Shuffled && groups[g].hosts.size() > 1) {
      EXPECT_GT(seen[g].size(), 1u) << "group " << g << " should vary between plans";
    }
    if (groups[g].kind != Kind::Shuffled) {
      EXPECT_EQ(seen[g].size(), 1u) << "group " << g << " should be stable";
    }
  }
}

inline Request lwt(Request r) {
  r.lwt = true;
  return r;
}

inline std::string spec(const std::string& params) { return R"({"type":"RustDefault")" + params + "}"; }
const std::string kEu = spec(R"(,"preferred_dc":"eu")");
const std::string kEuFailover = spec(R"(,"preferred_dc":"eu","permit_dc_failover":true)");
const std::string kEuR1Failover = spec(R"(,"preferred_dc":"eu","preferred_rack":"r1","permit_dc_failover":true)");

// Chi-square statistic of `counts` against a uniform distribution.
inline double chi_square(const std::map<std::string, int>& counts, int n) {
  const double expected = static_cast<double>(n) / static_cast<double>(counts.size());
  double x = 0;
  for (const auto& [name, c] : counts) x += (c - expected) * (c - expected) / expected;
  return x;
}

std::string error_of(const std::string& s, const Topology& topo) {
  try {
    make_policy(nlohmann::json::parse(s), "/p", BuildContext{&topo, nullptr});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RustDefault, LbsimReplicaSetsOnTheLocatorRingAreTheRustOnes) {
  const auto names_of = [](const TokenRing& r, std::span<const NodeId> ids) {
    Names out;
    for (NodeId id : ids) out.push_back(r.topology().nodes[id].id);
    return out;
  };
  // Server order is the driver's ring walk (NTS with the rf - racks repeat rule).
  EXPECT_EQ(names_of(TokenRing(rust_ring(), nts2()), TokenRing(rust_ring(), nts2()).replicas(160, ReplicaOrder::Server)),
            (Names{"F", "A", "D", "G"}));
  const TokenRing r3(rust_ring(), nts3());
  EXPECT_EQ(names_of(r3, r3.replicas(160, ReplicaOrder::Server)), (Names{"F", "A", "C", "D", "G", "E"}));
  // lbsim's Java-driver order defers C (rack r1 repeat) until G: same set, other order.
  EXPECT_EQ(names_of(r3, r3.replicas(160, ReplicaOrder::Driver)), (Names{"F", "A", "D", "G", "C", "E"}));
  const TokenRing ss(rust_ring(), simple(2));
  EXPECT_EQ(names_of(ss, ss.replicas(160, ReplicaOrder::Server)), (Names{"F", "A"}));
  // locator/test.rs: SimpleStrategy token 450 RF3 {F, G, D}; NTS token 75 {eu:1, us:1} {B, E}.
  const TokenRing ss3(rust_ring(), simple(3));
  EXPECT_EQ(names_of(ss3, ss3.replicas(450, ReplicaOrder::Server)), (Names{"F", "G", "D"}));
  const TokenRing n11(rust_ring(), nts({{"eu", 1}, {"us", 1}}));
  EXPECT_EQ(names_of(n11, n11.replicas(75, ReplicaOrder::Server)), (Names{"B", "E"}));
}

// default.rs test_default_policy_with_token_aware_statements, token 160, prefer eu.
TEST(RustDefault, TokenAwarePlanGroupsAreTheDriversVectors) {
  {  // NTS RF2 with failover.
    Harness h(rust_ring(), nts2(), kEuFailover);
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A", "G"}}, {Kind::Shuffled, {"F", "D"}},
                                     {Kind::Shuffled, {"C", "B"}}, {Kind::Shuffled, {"E"}}});
  }
  {  // NTS RF2 without failover.
    Harness h(rust_ring(), nts2(), kEu);
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A", "G"}}, {Kind::Shuffled, {"C", "B"}}});
  }
  {  // NTS RF3 with failover.
    Harness h(rust_ring(), nts3(), kEuFailover);
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A", "C", "G"}}, {Kind::Shuffled, {"F", "D", "E"}},
                                     {Kind::Shuffled, {"B"}}});
  }
  {  // NTS RF3 without failover.
    Harness h(rust_ring(), nts3(), kEu);
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A", "C", "G"}}, {Kind::Shuffled, {"B"}}});
  }
  {  // SimpleStrategy RF2 with failover.
    Harness h(rust_ring(), simple(2), kEuFailover);
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A"}}, {Kind::Shuffled, {"F"}},
                                     {Kind::Shuffled, {"C", "G", "B"}}, {Kind::Shuffled, {"D", "E"}}});
  }
  {  // NTS RF3, prefer eu/r1, with failover.
    Harness h(rust_ring(), nts3(), kEuR1Failover);
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A", "C"}}, {Kind::Shuffled, {"G"}},
                                     {Kind::Shuffled, {"F", "D", "E"}}, {Kind::Shuffled, {"B"}}});
  }
  {  // SimpleStrategy RF2, prefer eu/r2, no failover: no local-rack replica.
    Harness h(rust_ring(), simple(2), spec(R"(,"preferred_dc":"eu","preferred_rack":"r2")"));
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A"}}, {Kind::Shuffled, {"G"}}, {Kind::Shuffled, {"C", "B"}}});
  }
  {  // No preferred DC (failover then has no effect).
    Harness h(rust_ring(), nts2(), spec(R"(,"permit_dc_failover":false)"));
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"A", "D", "F", "G"}}, {Kind::Shuffled, {"B", "C", "E"}}});
  }
  {  // No token (and token_aware false): local nodes, then remote nodes.
    Harness h(rust_ring(), nts3(), kEuFailover);
    expect_groups(h, h.unrouted(), {{Kind::Shuffled, {"A", "B", "C", "G"}}, {Kind::Shuffled, {"D", "E", "F"}}});
    Harness off(rust_ring(), nts3(), spec(R"(,"preferred_dc":"eu","permit_dc_failover":true,"token_aware":false)"));
    expect_groups(off, off.routed(160), {{Kind::Shuffled, {"A", "B", "C", "G"}}, {Kind::Shuffled, {"D", "E", "F"}}});
  }
}

// default.rs test_default_policy_with_lwt_statements: replicas in ring order, never shuffled.
TEST(RustDefault, LwtPlansFollowTheRingOrderFromTheToken) {
  {
    Harness h(rust_ring(), nts2(), kEuFailover);
    expect_groups(h, lwt(h.routed(160)), {{Kind::Ordered, {"A", "G"}}, {Kind::Ordered, {"F", "D"}},
                                          {Kind::Shuffled, {"C", "B"}}, {Kind::Shuffled, {"E"}}});
  }
  {  // eu's ring order is A C G (lbsim's Java-driver order would give A G C).
    Harness h(rust_ring(), nts3(), kEuFailover);
    expect_groups(h, lwt(h.routed(160)), {{Kind::Ordered, {"A", "C", "G"}}, {Kind::Ordered, {"F", "D", "E"}},
                                          {Kind::Shuffled, {"B"}}});
  }
  {
    Harness h(rust_ring(), nts3(), kEuR1Failover);
    expect_groups(h, lwt(h.routed(160)), {{Kind::Ordered, {"A", "C"}}, {Kind::Ordered, {"G"}},
                                          {Kind::Ordered, {"F", "D", "E"}}, {Kind::Shuffled, {"B"}}});
  }
  {
    Harness h(rust_ring(), simple(2), kEuFailover);
    expect_groups(h, lwt(h.routed(160)), {{Kind::Ordered, {"A"}}, {Kind::Ordered, {"F"}},
                                          {Kind::Shuffled, {"C", "G", "B"}}, {Kind::Shuffled, {"D", "E"}}});
  }
  {  // SS RF2, prefer eu/r1, token 760 (ring G B A E F C D), shuffling off: B then G.
    Harness h(rust_ring(), simple(2),
              spec(R"(,"preferred_dc":"eu","preferred_rack":"r1","enable_shuffling_replicas":false)"));
    expect_groups(h, lwt(h.routed(760)), {{Kind::Ordered, {"B"}}, {Kind::Ordered, {"G"}}, {Kind::Shuffled, {"A", "C"}}});
  }
  {  // No preference: the global ring order; the primary down -> pick() defers to fallback().
    Harness h(rust_ring(), nts2(), spec(""));
    expect_groups(h, lwt(h.routed(160)), {{Kind::Ordered, {"F", "A", "D", "G"}}, {Kind::Shuffled, {"B", "C", "E"}}});
    h.down(h.id("F"));
    expect_groups(h, lwt(h.routed(160)),
                  {{Kind::Ordered, {"A", "D", "G"}}, {Kind::Shuffled, {"B", "C", "E"}}, {Kind::Ordered, {"F"}}});
  }
}

TEST(RustDefault, ShufflingOffGivesOnePermutationPerReplicaSet) {
  {  // default.rs vector: NTS RF2, prefer eu, failover, fixed seed.
    Harness h(rust_ring(), nts2(), spec(R"(,"preferred_dc":"eu","permit_dc_failover":true,"enable_shuffling_replicas":false)"));
    expect_groups(h, h.routed(160), {{Kind::Stable, {"A", "G"}}, {Kind::Stable, {"F", "D"}},
                                     {Kind::Shuffled, {"C", "B"}}, {Kind::Shuffled, {"E"}}});
  }
  // No preference, NTS RF3: six replicas. Every token of the range (150, 200] gets the same
  // permutation from one policy; the seed (drawn at init) changes it.
  std::set<Names> per_seed;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Harness h(rust_ring(), nts3(), spec(R"(,"enable_shuffling_replicas":false)"), seed);
    const Names first = h.plan_names(h.routed(160));
    ASSERT_EQ(first.size(), 7u);
    EXPECT_EQ(first.back(), "B");
    for (Token t : {151, 160, 175, 200}) EXPECT_EQ(h.plan_names(h.routed(t)), first) << "seed " << seed << " token " << t;
    per_seed.insert(Names(first.begin(), first.begin() + 6));
  }
  EXPECT_GE(per_seed.size(), 5u);
}

// 30,000 plans: the first host is uniform over the alive local replicas (chi-square, 2 degrees
// of freedom, 13.82 = the 0.1% critical value), and over all replicas without a preference
// (3 degrees, 16.27).
TEST(RustDefault, TheFirstHostIsUniformOverTheCandidateReplicas) {
  const int n = 30000;
  {
    Harness h(rust_ring(), nts3(), kEuFailover, 7);
    std::map<std::string, int> counts;
    for (int i = 0; i < n; ++i) ++counts[h.name(h.first(h.routed(160)))];
    EXPECT_EQ(counts.size(), 3u);
    EXPECT_EQ(counts.count("A") + counts.count("C") + counts.count("G"), 3u);
    EXPECT_LT(chi_square(counts, n), 13.82);
  }
  {
    Harness h(rust_ring(), nts2(), spec(""), 8);
    std::map<std::string, int> counts;
    for (int i = 0; i < n; ++i) ++counts[h.name(h.first(h.routed(160)))];
    EXPECT_EQ(counts.size(), 4u);
    EXPECT_LT(chi_square(counts, n), 16.27);
  }
  {  // A down: uniform over C and G (1 degree, 10.83).
    Harness h(rust_ring(), nts3(), kEu, 9);
    h.down(h.id("A"));
    std::map<std::string, int> counts;
    for (int i = 0; i < n; ++i) ++counts[h.name(h.first(h.routed(160)))];
    EXPECT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts.count("A"), 0u);
    EXPECT_LT(chi_square(counts, n), 10.83);
  }
}

TEST(RustDefault, DownHostsComeAfterTheAliveOnes) {
  {
    Harness h(rust_ring(), nts3(), kEuFailover);
    h.down(h.id("A"));
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"C", "G"}}, {Kind::Shuffled, {"F", "D", "E"}},
                                     {Kind::Shuffled, {"B"}}, {Kind::Ordered, {"A"}}});
  }
  {
    Harness h(rust_ring(), nts3(), kEu);
    h.down(h.id("A"));
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"C", "G"}}, {Kind::Shuffled, {"B"}}, {Kind::Ordered, {"A"}}});
  }
  {  // Every local replica down: a remote replica first, then B, then the down local nodes in
     // ring order (A C G), as "enabled" nodes.
    Harness h(rust_ring(), nts3(), kEuFailover);
    for (const char* x : {"A", "C", "G"}) h.down(h.id(x));
    expect_groups(h, h.routed(160), {{Kind::Shuffled, {"F", "D", "E"}}, {Kind::Shuffled, {"B"}},
                                     {Kind::Ordered, {"A", "C", "G"}}});
  }
  {  // Everything local down and no failover: pick() takes a random down local node.
    Harness h(rust_ring(), nts3(), kEu);
    for (const char* x : {"A", "B", "C", "G"}) h.down(h.id(x));
    std::set<std::string> firsts;
    for (int i = 0; i < 200; ++i) {
      const Names p = h.plan_names(h.routed(160));
      ASSERT_EQ(p.size(), 4u);
      EXPECT_EQ(std::set<std::string>(p.begin(), p.end()), (std::set<std::string>{"A", "B", "C", "G"}));
      firsts.insert(p[0]);
    }
    EXPECT_EQ(firsts.size(), 4u);
  }
}

// Over random tokens, LWT or not, and hosts going down and up: no host twice, every host of the
// preferred DC (of every DC with failover or no preference) exactly once, and the down ones only
// after every up one (the driver keeps down-but-enabled nodes as a last resort, so lbsim's
// "no down host" contract does not hold for this policy).
TEST(RustDefault, PlansListEveryEligibleHostOnceAndDownHostsLast) {
  std::vector<NodeSpec> nodes;
  Rng r(77);
  for (int i = 0; i < 9; ++i) {
    std::vector<Token> toks;
    for (int k = 0; k < 8; ++k) toks.push_back(static_cast<Token>(r.next_u64()));
    nodes.push_back({"n" + std::to_string(i + 1), i < 5 ? "dc1" : "dc2", (i % 2) ? "r2" : "r1", toks});
  }
  const Topology topo = Topology::build(nodes);
  for (const std::string& params : {std::string(R"(,"preferred_dc":"dc1")"),
                                   std::string(R"(,"preferred_dc":"dc1","preferred_rack":"r2","permit_dc_failover":true)"),
                                   std::string(R"(,"enable_shuffling_replicas":false)")}) {
    Harness h(topo, nts({{"dc1", 3}, {"dc2", 2}}), spec(params), 3);
    const bool local_only = params.find("permit_dc_failover") == std::string::npos && params.find("dc1") != std::string::npos;
    Rng events(5);
    for (int step = 0; step < 600; ++step) {
      if (step % 25 == 0) {
        const auto x = static_cast<HostId>(events.below(h.view().size()));
        if (h.view().is_up(x)) h.down(x);
        else h.up(x);
      }
      Request req = step % 9 == 0 ? h.unrouted() : h.routed(static_cast<Token>(events.next_u64()));
      req.lwt = step % 4 == 0;
      const std::vector<HostId> plan = h.plan(req);
      std::set<HostId> expected;
      for (HostId x = 0; x < h.view().size(); ++x)
        if (!local_only || h.view().dc(x) == 0) expected.insert(x);
      EXPECT_EQ(std::set<HostId>(plan.begin(), plan.end()), expected) << params << " step " << step;
      EXPECT_EQ(plan.size(), expected.size()) << params << " step " << step;
      bool down_seen = false;
      for (HostId x : plan) {
        if (!h.view().is_up(x)) down_seen = true;
        else EXPECT_FALSE(down_seen) << params << ": up host " << h.name(x) << " after a down one, step " << step;
      }
    }
  }
}

const std::string kLatency =
    spec(R"(,"preferred_dc":"eu","permit_dc_failover":true,"latency_awareness":{"minimum_measurements":5})");

TEST(RustDefault, PenalisedHostsAreSkippedByPickAndMovedLast) {
  Harness h(rust_ring(), nts3(), kLatency);
  EXPECT_TRUE(h.policy().adaptive());
  const HostId a = h.id("A"), c = h.id("C"), g = h.id("G");
  for (SimTime t = 1; t <= 10; ++t) {
    h.policy().on_response(a, t * kMs, 10 * kMs, ResponseKind::Success);
    h.policy().on_response(c, t * kMs, 1 * kMs, ResponseKind::Success);
    h.policy().on_response(g, t * kMs, 1 * kMs, ResponseKind::Success);
    // Not measured: driver-side timeouts and fast server errors.
    h.policy().on_response(c, t * kMs, 1 * kSec, ResponseKind::ClientTimeout);
    h.policy().on_response(g, t * kMs, 1 * kSec, ResponseKind::Unavailable);
  }
  // At 200 ms the minimum (1 ms) is known; A (10 ms > 2 x 1 ms) is penalised.
  expect_groups(h, h.routed(160, ConsistencyLevel::LocalOne, 200 * kMs),
                {{Kind::Shuffled, {"C", "G"}}, {Kind::Shuffled, {"F", "D", "E"}}, {Kind::Shuffled, {"B"}},
                 {Kind::Ordered, {"A"}}});
  // Server timeouts are measured: G's average climbs past 2 ms.
  for (SimTime t = 11; t <= 30; ++t) h.policy().on_response(g, t * kMs, 1 * kSec, ResponseKind::Timeout);
  expect_groups(h, h.routed(160, ConsistencyLevel::LocalOne, 300 * kMs),
                {{Kind::Ordered, {"C"}}, {Kind::Shuffled, {"F", "D", "E"}}, {Kind::Shuffled, {"B"}},
                 {Kind::Shuffled, {"A", "G"}}});
  // After the retry period (10 s after the last sample) nobody is penalised.
  expect_groups(h, h.routed(160, ConsistencyLevel::LocalOne, 11 * kSec),
                {{Kind::Shuffled, {"A", "C", "G"}}, {Kind::Shuffled, {"F", "D", "E"}}, {Kind::Shuffled, {"B"}}});
}

TEST(RustDefault, PenaltyNeedsStrictlyMoreThanThresholdTimesTheMinimumInMicroseconds) {
  Harness h(rust_ring(), nts3(), kLatency);
  HostState fast;
  fast.has_latency = true;
  fast.latency_samples = 5;
  fast.latency_average = 1000 * kUs;
  HostState slow = fast;
  slow.latency_average = 2000 * kUs + 999;  // 2000 us after truncation: not > 2 x 1000 us
  h.policy().restore_state(h.id("C"), fast);
  h.policy().restore_state(h.id("A"), slow);
  std::set<std::string> firsts;
  for (int i = 0; i < 300; ++i) firsts.insert(h.name(h.first(h.routed(160))));
  EXPECT_EQ(firsts, (std::set<std::string>{"A", "C", "G"}));
  slow.latency_average = 2001 * kUs;
  h.policy().restore_state(h.id("A"), slow);
  firsts.clear();
  for (int i = 0; i < 300; ++i) firsts.insert(h.name(h.first(h.routed(160))));
  EXPECT_EQ(firsts, (std::set<std::string>{"C", "G"}));
  // Too few samples: never penalised.
  slow.latency_samples = 4;
  h.policy().restore_state(h.id("A"), slow);
  firsts.clear();
  for (int i = 0; i < 300; ++i) firsts.insert(h.name(h.first(h.routed(160))));
  EXPECT_EQ(firsts, (std::set<std::string>{"A", "C", "G"}));
}

// Release 0.7, the LatencyAwarePolicy of scylla-rust-driver PR #536 (latency_aware.rs and node.rs
// at ba142e51) under TokenAwarePolicy: its three rules that differ from 0.9.
const std::string kLatency07 = spec(
    R"(,"preferred_dc":"eu","permit_dc_failover":true,"latency_awareness":{"release":"0.7","minimum_measurements":5})");

TEST(RustDefault, Release07KeepsPenalisedReplicasBeforeTheOtherNodes) {
  Harness h(rust_ring(), nts3(), kLatency07);
  const HostId a = h.id("A"), c = h.id("C"), g = h.id("G");
  for (SimTime t = 1; t <= 10; ++t) {
    h.policy().on_response(a, t * kMs, 10 * kMs, ResponseKind::Success);
    h.policy().on_response(c, t * kMs, 1 * kMs, ResponseKind::Success);
    h.policy().on_response(g, t * kMs, 1 * kMs, ResponseKind::Success);
  }
  // TokenAwarePolicy::plan: the replicas (A penalised, after the others), then B, the only
  // other node; 0.9 sends A after B (PenalisedHostsAreSkippedByPickAndMovedLast).
  expect_groups(h, h.routed(160, ConsistencyLevel::LocalOne, 200 * kMs),
                {{Kind::Shuffled, {"C", "G"}}, {Kind::Shuffled, {"F", "D", "E"}}, {Kind::Ordered, {"A"}},
                 {Kind::Ordered, {"B"}}});
}

TEST(RustDefault, Release07MinimumCountsNodesWithFewSamples) {
  for (const bool r07 : {true, false}) {
    Harness h(rust_ring(), nts3(), r07 ? kLatency07 : kLatency);
    for (SimTime t = 1; t <= 10; ++t) {
      h.policy().on_response(h.id("C"), t * kMs, 1 * kMs, ResponseKind::Success);
      h.policy().on_response(h.id("G"), t * kMs, 1 * kMs, ResponseKind::Success);
    }
    // One sample of 0.1 ms on A (fewer than minimum_measurements, so A is never penalised): 0.7's
    // minimum is 100 us, so C and G (1,000 us > 2 x 100 us) are penalised and A, the one local
    // replica left, is always first; 0.9 keeps the minimum at C's and G's 1 ms: nobody penalised.
    h.policy().on_response(h.id("A"), 11 * kMs, 100 * kUs, ResponseKind::Success);
    std::set<std::string> firsts;
    for (int i = 0; i < 300; ++i) firsts.insert(h.name(h.first(h.routed(160, ConsistencyLevel::LocalOne, 200 * kMs))));
    if (r07) {
      EXPECT_EQ(firsts, (std::set<std::string>{"A"})) << "0.7";
    } else {
      EXPECT_EQ(firsts, (std::set<std::string>{"A", "C", "G"})) << "0.9";
    }
  }
}

TEST(RustDefault, Release07DecaysWithAnImplicitScaleOfOneSecond) {
  // C's average 1.5 ms is the minimum; A's 4 ms meets a 1 ms sample 0.5 s later: w = ln(1 + d)/d
  // with d = 0.5 (0.7: seconds) gives 0.811 and 3.43 ms > 2 x 1.5 ms (penalised); with d = 5
  // (0.9: scale 100 ms) w = 0.358 and 2.08 ms (not penalised).
  for (const bool r07 : {true, false}) {
    Harness h(rust_ring(), nts3(), r07 ? kLatency07 : kLatency);
    HostState st;
    st.has_latency = true;
    st.latency_samples = 5;
    st.latency_average = 1500 * kUs;
    st.latency_updated = 1400 * kMs;
    h.policy().restore_state(h.id("C"), st);
    st.latency_average = 4 * kMs;
    st.latency_updated = 1 * kSec;
    h.policy().restore_state(h.id("A"), st);
    h.policy().on_response(h.id("A"), 1500 * kMs, 1 * kMs, ResponseKind::Success);
    std::set<std::string> firsts;
    for (int i = 0; i < 300; ++i) firsts.insert(h.name(h.first(h.routed(160, ConsistencyLevel::LocalOne, 1600 * kMs))));
    EXPECT_EQ(firsts, r07 ? (std::set<std::string>{"C", "G"}) : (std::set<std::string>{"A", "C", "G"}))
        << (r07 ? "0.7" : "0.9");
  }
}

// rand::rng() draws, counted as ThreadLocal: pick() 1 (choose_filtered), fallback() one per
// shuffle of 2..12 hosts (IncreasingUniform) and one per rotation.
TEST(RustDefault, CountsItsThreadLocalDraws) {
  Harness h(rust_ring(), nts3(), kEuFailover);
  h.first(h.routed(160));
  EXPECT_EQ(h.rnd.thread_local_draws, 1u);
  h.plan(h.routed(160));  // 1 pick + shuffles of eu (3) and all (6) + rotations of eu and all nodes
  EXPECT_EQ(h.rnd.thread_local_draws, 1u + 5u);
  h.plan(lwt(h.routed(160)));  // no draw for the replicas, two rotations
  EXPECT_EQ(h.rnd.thread_local_draws, 6u + 2u);
  EXPECT_EQ(h.rnd.shared_draws, 0u);
  const std::size_t chunks = h.arena.chunk_count();
  for (int i = 0; i < 1000; ++i) h.plan(h.routed(static_cast<Token>(i)));
  EXPECT_EQ(h.arena.chunk_count(), chunks);
}

TEST(RustDefault, SpecErrorsNameThePath) {
  const Topology t = rust_ring();
  EXPECT_EQ(error_of(spec(R"(,"preferred_rack":"r1")"), t),
            "/p/preferred_rack: needs preferred_dc (the driver's prefer_datacenter_and_rack)");
  EXPECT_EQ(error_of(spec(R"(,"preferred_dc":"eu","preferred_rack":"r9")"), t),
            "/p/preferred_rack: unknown rack 'r9' in datacenter 'eu'; valid: r1, r2");
  EXPECT_EQ(error_of(spec(R"(,"latency_awareness":3)"), t),
            "/p/latency_awareness: must be true, false or an object, got an integer");
  EXPECT_NE(error_of(spec(R"(,"latency_awareness":{"threshold":2})"), t)
                .find("/p/latency_awareness/threshold: unknown key 'threshold'; allowed keys: exclusion_threshold"),
            std::string::npos);
  EXPECT_NE(error_of(spec(R"(,"latency_awareness":{"update_rate_ms":0})"), t).find("/p/latency_awareness/update_rate_ms"),
            std::string::npos);
  EXPECT_EQ(error_of(spec(R"(,"latency_awareness":true,"enable_shuffling_replicas":false)"), t), "no error");
  EXPECT_EQ(error_of(spec(R"(,"latency_awareness":{"release":"0.8"})"), t),
            "/p/latency_awareness/release: unknown value '0.8'; valid: 0.7, 0.9");
  EXPECT_EQ(canonical_type("RustDefaultPolicy"), "RustDefault");
  EXPECT_EQ(Registry::instance().find("RustDefault")->driver, Driver::Rust);
  Harness plain(rust_ring(), nts3(), kEuR1Failover);
  EXPECT_FALSE(plain.policy().adaptive());
  EXPECT_EQ(plain.policy().distance_tier(plain.id("A")), 0);
  EXPECT_EQ(plain.policy().distance_tier(plain.id("G")), 1);
  EXPECT_EQ(plain.policy().distance(plain.id("D")), Distance::Remote);
}

}  // namespace lbsim::policy::rust_test
