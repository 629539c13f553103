// ScyllaDB's heat-weighted load balancing (sim/cluster/heat_load_balance.hpp) against ScyllaDB's
// own acceptance test: scylladb/scylladb test/boost/hwlb_test.cc at
// 43c90368e622e66aa211eea32eb0043ff0618c48 (function test_hit_rates). Its procedure, repeated
// here: pick a coordinator uniformly, rotate the replica list so the coordinator is first (as the
// server sees it), let HWLB choose CL replicas, count; then (1) misses per node,
// (1 - h_i) x picks_i, over the nodes whose share is not pinned at 1/CL, must have max/min < 1.06;
// (2) each coordinator keeps for itself min(N x share_i, 1/CL) of its picks, within 0.01. The
// vectors are the unit test's (test_3_1, test_3_2, test_6_one_cold) that issue 37 lists, with its
// iteration counts (100,000 reads per coordinator; 500,000 where one node gets a tiny share).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

#include "sim/cluster/heat_load_balance.hpp"
#include "sim/core/rng.hpp"

namespace lbsim::hwlb_test {
namespace {

using Chooser = std::function<void(std::span<const double> rotated_rates, unsigned k, Rng& rng,
                                   std::vector<std::uint32_t>& out)>;

struct Outcome {
  double miss_ratio = 0.0;        // max/min misses over the unpinned nodes
  double worst_local_gap = 0.0;   // max over coordinators of |kept - min(N share, 1/CL)|
  std::uint64_t invalid = 0;      // combinations with a repeated node or the wrong size
  std::vector<double> share;      // each node's fraction of all picks
  std::vector<double> kept;       // each coordinator's fraction of its picks sent to itself
};

Outcome simulate(const std::vector<double>& hr, unsigned cl, std::uint64_t per_coordinator,
                 const Chooser& chooser, std::uint64_t seed = 37) {
  const std::size_t n = hr.size();
  Rng rng(seed);
  Rng coord_rng = rng.fork("coordinator");
  Rng pick_rng = rng.fork("pick");
  std::vector<std::uint64_t> count(n, 0);
  std::vector<std::vector<std::uint64_t>> from(n, std::vector<std::uint64_t>(n, 0));
  std::vector<double> rotated(n);
  std::vector<std::uint32_t> out;
  Outcome o;
  for (std::uint64_t it = 0; it < n * per_coordinator; ++it) {
    const std::size_t coord = coord_rng.below(n);
    for (std::size_t i = 0; i < n; ++i) rotated[i] = hr[(coord + i) % n];
    chooser(rotated, cl, pick_rng, out);
    std::vector<bool> seen(n, false);
    bool bad = out.size() != cl;
    for (std::uint32_t r : out) {
      const std::size_t node = (coord + r) % n;
      if (r >= n || seen[node]) bad = true;
      seen[node] = true;
      ++count[node];
      ++from[coord][node];
    }
    if (bad) ++o.invalid;
  }
  const double total = static_cast<double>(std::accumulate(count.begin(), count.end(), 0ULL));
  double lo = 1e300;
  double hi = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    o.share.push_back(static_cast<double>(count[i]) / total);
    if (std::abs(o.share[i] - 1.0 / cl) < 1e-3) continue;  // pinned at 1/CL: the test skips it
    const double misses = (1.0 - hr[i]) * static_cast<double>(count[i]);
    lo = std::min(lo, misses);
    hi = std::max(hi, misses);
  }
  o.miss_ratio = hi / lo;
  for (std::size_t i = 0; i < n; ++i) {
    const double mine = static_cast<double>(std::accumulate(from[i].begin(), from[i].end(), 0ULL));
    o.kept.push_back(static_cast<double>(from[i][i]) / mine);
    const double expect = std::min(static_cast<double>(n) * o.share[i], 1.0 / cl);
    o.worst_local_gap = std::max(o.worst_local_gap, std::abs(o.kept[i] - expect));
  }
  return o;
}

const Chooser kHwlb = [](std::span<const double> rates, unsigned k, Rng& rng,
                         std::vector<std::uint32_t>& out) {
  hwlb::choose(rates, 0, k, false, rng, out);
};

// Without HWLB: the coordinator reads from itself and from k - 1 of the others at random (the
// proximity order of one rack with shuffled ties), so every node gets 1/N of the picks.
const Chooser kEqual = [](std::span<const double> rates, unsigned k, Rng& rng,
                          std::vector<std::uint32_t>& out) {
  std::vector<std::uint32_t> others;
  for (std::uint32_t i = 1; i < rates.size(); ++i) others.push_back(i);
  out.assign(1, 0);
  for (unsigned t = 1; t < k; ++t) {
    const std::size_t j = t - 1 + rng.below(others.size() - (t - 1));
    std::swap(others[t - 1], others[j]);
    out.push_back(others[t - 1]);
  }
};

struct Vector {
  std::vector<double> hr;
  unsigned cl;
  std::uint64_t per_coordinator;
};

// The unit test's cases that issue 37 names.
const std::vector<Vector> kVectors = {
    {{0.8, 0.65, 0.55}, 1, 100000},
    {{0.9, 0.25, 0.15}, 1, 100000},
    {{0.999, 0.999, 0.4}, 1, 500000},
    {{0.95, 0.95, 0.15}, 2, 100000},
    {{0.95, 0.95, 0.95, 0.95, 0.95, 0.4}, 1, 100000},
    {{0.95, 0.95, 0.95, 0.95, 0.95, 0.4}, 2, 100000},
    {{0.95, 0.95, 0.95, 0.95, 0.95, 0.4}, 3, 100000},
};

TEST(HeatLoadBalance, ScyllaUnitTestVectorsEqualiseMissesAndKeepLocalShares) {
  for (const Vector& v : kVectors) {
    SCOPED_TRACE(::testing::Message() << "N=" << v.hr.size() << " CL=" << v.cl
                                      << " first h=" << v.hr.front() << " last h=" << v.hr.back());
    const Outcome o = simulate(v.hr, v.cl, v.per_coordinator, kHwlb);
    EXPECT_LT(o.miss_ratio, 1.06);
    EXPECT_LT(o.worst_local_gap, 0.01);
    EXPECT_EQ(o.invalid, 0U);
  }
}

TEST(HeatLoadBalance, EqualChoiceFailsTheMissBoundSoTheCheckCanFail) {
  // {0.9, 0.25, 0.15} at CL 1 with 1/3 each: misses 0.85 / 0.1 = 8.5 apart.
  const Outcome skewed = simulate({0.9, 0.25, 0.15}, 1, 20000, kEqual);
  EXPECT_GT(skewed.miss_ratio, 5.0);
  std::size_t failing = 0;
  for (const Vector& v : kVectors)
    if (simulate(v.hr, v.cl, 20000, kEqual).miss_ratio >= 1.06) ++failing;
  EXPECT_EQ(failing, kVectors.size());
}

TEST(HeatLoadBalance, DesiredSharesAreReciprocalMissRatios) {
  // R = 1/(1-h) = 5, 20/7, 20/9 for {0.8, 0.65, 0.55}.
  const std::vector<double> hr = {0.8, 0.65, 0.55};
  const auto p = hwlb::miss_equalizing_shares(hr);
  const double sum = 5.0 + 20.0 / 7.0 + 20.0 / 9.0;
  EXPECT_NEAR(p[0], 5.0 / sum, 1e-12);
  EXPECT_NEAR(p[1], 20.0 / 7.0 / sum, 1e-12);
  EXPECT_NEAR(p[2], 20.0 / 9.0 / sum, 1e-12);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(p[i] * (1.0 - hr[i]), p[0] * 0.2, 1e-12);
}

TEST(HeatLoadBalance, ClipHoldsOneOverClAndKeepsTheOthersRatio) {
  // The unit test's test_clip case: {0.95, 0.85, 0.75} at CL 2, node 0 wants 0.652 > 0.5.
  auto p = hwlb::miss_equalizing_shares(std::vector<double>{0.95, 0.85, 0.75});
  EXPECT_NEAR(p[0], 20.0 / (20.0 + 20.0 / 3.0 + 4.0), 1e-12);
  EXPECT_GT(p[0], 0.65);
  hwlb::clip_shares(p, 0.5);
  EXPECT_DOUBLE_EQ(p[0], 0.5);
  EXPECT_NEAR(p[1] + p[2], 0.5, 1e-12);
  EXPECT_NEAR(p[1] / p[2], (20.0 / 3.0) / 4.0, 1e-12);
}

TEST(HeatLoadBalance, RedistributionMatchesTheSourcesWorkedExample) {
  // heat_load_balance.cc's comment on its CASE3: p = {0.2, 0.3, 0.5}, N = 3, CL = 2. Node 2 must
  // be in every read, node 0 in 40% and node 1 in 60%; the only solution is that nodes 0 and 1
  // pair themselves with node 2, and node 2 splits its other half 0.1 / 0.4.
  const std::vector<double> p = {0.2, 0.3, 0.5};
  const std::vector<std::vector<double>> expect = {
      {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5}, {0.1, 0.4, 0.5}};
  for (std::size_t me = 0; me < 3; ++me) {
    const auto pp = hwlb::coordinator_shares(p, me, 2);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(pp[i], expect[me][i], 1e-12) << me << " " << i;
  }
}

TEST(HeatLoadBalance, CoordinatorSharesSumToOneAndStayUnderOneOverCl) {
  for (const Vector& v : kVectors) {
    auto p = hwlb::miss_equalizing_shares(v.hr);
    hwlb::clip_shares(p, 1.0 / v.cl);
    std::vector<double> received(v.hr.size(), 0.0);
    for (std::size_t me = 0; me < v.hr.size(); ++me) {
      const auto pp = hwlb::coordinator_shares(p, me, v.cl);
      EXPECT_NEAR(std::accumulate(pp.begin(), pp.end(), 0.0), 1.0, 1e-9);
      for (std::size_t i = 0; i < pp.size(); ++i) {
        EXPECT_GE(pp[i], -1e-12);
        EXPECT_LE(pp[i], 1.0 / v.cl + 1e-9);
        received[i] += pp[i] / static_cast<double>(v.hr.size());
      }
      EXPECT_NEAR(pp[me], std::min(static_cast<double>(v.hr.size()) * p[me], 1.0 / v.cl), 1e-12);
    }
    // Exact expectation (no sampling): the coordinators together deliver the desired shares.
    for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(received[i], p[i], 1e-9);
  }
}

TEST(HeatLoadBalance, CoordinatorOutsideTheReplicasUsesTheClippedShares) {
  const std::vector<double> hr = {0.9, 0.25, 0.15};
  Rng rng(5);
  std::vector<std::uint32_t> out;
  std::vector<std::uint64_t> count(3, 0);
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) {
    hwlb::choose(hr, 3, 1, false, rng, out);
    ASSERT_EQ(out.size(), 1U);
    ++count[out[0]];
  }
  const auto p = hwlb::miss_equalizing_shares(hr);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(static_cast<double>(count[i]) / kDraws, p[i], 0.005);
}

TEST(HeatLoadBalance, SystematicSampleIncludesEachReplicaKTimesItsShare) {
  const std::vector<double> pp = {0.1, 0.4, 0.3, 0.2};  // none above 1/2
  Rng rng(11);
  std::vector<std::uint32_t> out;
  std::vector<std::uint64_t> count(4, 0);
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) {
    hwlb::systematic_sample(pp, 2, rng, out);
    ASSERT_EQ(out.size(), 2U);
    ASSERT_LT(out[0], out[1]);  // distinct, in replica order
    ++count[out[0]];
    ++count[out[1]];
  }
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(static_cast<double>(count[i]) / kDraws, 2 * pp[i], 0.01);
}

TEST(HeatLoadBalance, ExtraReplicaIsUniformOverTheUnchosen) {
  // The unit test's "extra" case: {0.79, 0.78, 0.77, 0.80, 0.32} at CL 2, with a spare.
  // A replica is the spare with probability (1 - 2 pp_i) / 3: left out, then one of 3 left.
  const std::vector<double> hr = {0.79, 0.78, 0.77, 0.80, 0.32};
  auto p = hwlb::miss_equalizing_shares(hr);
  hwlb::clip_shares(p, 0.5);
  const auto pp = hwlb::coordinator_shares(p, 0, 2);
  Rng rng(3);
  std::vector<std::uint32_t> out;
  std::vector<std::uint64_t> spare(5, 0);
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) {
    hwlb::choose(hr, 0, 2, true, rng, out);
    ASSERT_EQ(out.size(), 3U);
    ASSERT_NE(out[2], out[0]);
    ASSERT_NE(out[2], out[1]);
    ASSERT_NE(out[0], out[1]);
    ++spare[out[2]];
  }
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_NEAR(static_cast<double>(spare[i]) / kDraws, (1.0 - 2.0 * pp[i]) / 3.0, 0.005) << i;
}

TEST(HeatLoadBalance, SameSeedSameChoices) {
  const std::vector<double> hr = {0.95, 0.95, 0.95, 0.95, 0.95, 0.4};
  Rng a(9);
  Rng b(9);
  std::vector<std::uint32_t> x;
  std::vector<std::uint32_t> y;
  for (int i = 0; i < 1000; ++i) {
    hwlb::choose(hr, i % 6, 3, true, a, x);
    hwlb::choose(hr, i % 6, 3, true, b, y);
    ASSERT_EQ(x, y);
  }
}

TEST(HeatLoadBalance, CallerCapsStaleAndDeadBandRules) {
  // db/consistency_level.cc filter_for_query.
  hwlb::PeerRate fresh{0.99, 10 * kSec};
  EXPECT_DOUBLE_EQ(hwlb::effective_rate(fresh, 10 * kSec + 1000 * kMs), 0.95);  // capped
  EXPECT_DOUBLE_EQ(hwlb::effective_rate(fresh, 10 * kSec, hwlb::kMaxHitRateBefore8815), 0.99);
  hwlb::PeerRate cold{0.2, 0};
  EXPECT_DOUBLE_EQ(hwlb::effective_rate(cold, 1000 * kMs), 0.2);  // exactly 1 s: not stale
  EXPECT_DOUBLE_EQ(hwlb::effective_rate(cold, 1000 * kMs + 1), 0.95);  // stale: counts as the cap
  EXPECT_EQ(cold.updated, 1000 * kMs + 1);                               // ... and is restamped
  EXPECT_DOUBLE_EQ(hwlb::effective_rate(cold, 1500 * kMs), 0.2);
  hwlb::PeerRate old_node{-1.0, 0};
  EXPECT_LT(hwlb::effective_rate(old_node, 5 * kSec), 0.0);

  // Binary-exact rates: 2^-7 = 0.0078125 apart is inside the dead band, 2^-6 = 0.015625 is not.
  EXPECT_FALSE(hwlb::rebalances(std::vector<double>{0.5, 0.5 - 0.0078125, 0.5}));
  EXPECT_TRUE(hwlb::rebalances(std::vector<double>{0.5, 0.5 - 0.015625, 0.5}));
  EXPECT_FALSE(hwlb::rebalances(std::vector<double>{0.95, -1.0, 0.2}));  // an old node: off
}

TEST(HeatLoadBalance, CapBefore8815GivesTheWarmerOfTwoHotNodesTwiceTheReads) {
  // scylladb#8815: with the 0.999 cap and the 0.01 dead band, three hot nodes within 0.01 get
  // equal reads; once one restarts (cold), HWLB runs over all three and the two hot ones split by
  // their miss ratios, "node B got twice the load as node C". The fix lowered the cap to 0.95,
  // which makes B and C equal again. The rates (0.992 / 0.995 / 0.99, then 0.2 for the restarted
  // node) are an illustration (assumed: the issue gives the 2x, not the rates behind it).
  auto read_rates = [](std::vector<double> raw, double cap) {
    for (double& h : raw) {
      hwlb::PeerRate peer{h, 0};
      h = hwlb::effective_rate(peer, 0, cap);
    }
    return raw;
  };
  EXPECT_FALSE(hwlb::rebalances(read_rates({0.992, 0.995, 0.99}, hwlb::kMaxHitRateBefore8815)));
  const auto before_fix = read_rates({0.2, 0.995, 0.99}, hwlb::kMaxHitRateBefore8815);
  ASSERT_TRUE(hwlb::rebalances(before_fix));
  const auto p_old = hwlb::miss_equalizing_shares(before_fix);
  EXPECT_NEAR(p_old[1] / p_old[2], 2.0, 1e-9);
  const auto after_fix = read_rates({0.2, 0.995, 0.99}, hwlb::kMaxHitRate);
  ASSERT_TRUE(hwlb::rebalances(after_fix));
  const auto p_new = hwlb::miss_equalizing_shares(after_fix);
  EXPECT_NEAR(p_new[1] / p_new[2], 1.0, 1e-12);
  // The cold node: 1/(1 - 0.2) = 1.25 against 1/(1 - 0.95) = 20 for each hot one, 1.25 / 41.25.
  EXPECT_NEAR(p_new[0], 1.25 / 41.25, 1e-12);
}

TEST(HeatLoadBalance, ProducerRecomputeAndGossipRules) {
  // service/misc_services.cc cache_hitrate_calculator::recalculate_hitrates.
  EXPECT_DOUBLE_EQ(hwlb::hit_rate(0.0, 50.0), 0.0);
  EXPECT_DOUBLE_EQ(hwlb::hit_rate(30.0, 10.0), 0.75);
  EXPECT_EQ(hwlb::next_recompute(0.011), 500 * kMs);
  EXPECT_EQ(hwlb::next_recompute(0.01), 2000 * kMs);
  EXPECT_TRUE(hwlb::publishes(0, 0.0, 0, 0));                    // first time
  EXPECT_TRUE(hwlb::publishes(3, 0.11, kSec, kSec));             // big change, at once
  EXPECT_FALSE(hwlb::publishes(3, 0.05, 5 * kSec, 0));           // small change, 5 s: not yet
  EXPECT_TRUE(hwlb::publishes(3, 0.05, 5 * kSec + 1, 0));        // ... after 5 s
  EXPECT_FALSE(hwlb::publishes(3, 0.01, 60 * kSec, 0));          // no change worth publishing
}

}  // namespace
}  // namespace lbsim::hwlb_test
