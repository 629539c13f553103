// LatencyHistogram: relative error, range, merging; Timeline bounded memory; imbalance measures.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/metrics/histogram.hpp"
#include "sim/metrics/imbalance.hpp"
#include "sim/metrics/timeline.hpp"

namespace lbsim {
namespace {

TEST(LatencyHistogram, EveryValueFrom1UsTo1HourIsWithinOnePercent) {
  // Each bucket's midpoint is within 1/256 of every value in it; check 200k log-uniform values.
  Rng rng(3);
  for (int i = 0; i < 200000; ++i) {
    const double lg = std::log(1e3) + rng.uniform01() * (std::log(3.6e12) - std::log(1e3));
    const auto v = static_cast<SimTime>(std::exp(lg));
    const std::size_t idx = LatencyHistogram::index_of(v);
    ASSERT_LT(idx, LatencyHistogram::kBuckets);
    const SimTime lo = LatencyHistogram::bucket_low(idx), w = LatencyHistogram::bucket_width(idx);
    ASSERT_LE(lo, v);
    ASSERT_LT(v, lo + w);
    const double mid = static_cast<double>(lo + w / 2);
    ASSERT_LE(std::abs(mid - static_cast<double>(v)) / static_cast<double>(v), 0.0040) << v;  // <= 0.4 %
  }
  EXPECT_EQ(LatencyHistogram::index_of(LatencyHistogram::kMaxValue), LatencyHistogram::kBuckets - 1);
}

TEST(LatencyHistogram, PercentilesMatchSortedValuesWithinOnePercent) {
  Rng rng(5);
  LatencyHistogram h;
  std::vector<SimTime> v;
  for (int i = 0; i < 100000; ++i) {
    const SimTime x = static_cast<SimTime>(rng.exponential(1e6));
    v.push_back(x);
    h.record(x);
  }
  std::sort(v.begin(), v.end());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    const auto exact = static_cast<double>(v[static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(v.size()))) - 1]);
    EXPECT_NEAR(static_cast<double>(h.percentile(p)) / exact, 1.0, 0.01) << p;  // 1 %
  }
  EXPECT_EQ(h.max(), v.back());
  EXPECT_EQ(h.min(), v.front());
  double sum = 0;
  for (auto x : v) sum += static_cast<double>(x);
  EXPECT_NEAR(h.mean(), sum / static_cast<double>(v.size()), 1e-6 * h.mean());
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
  Rng rng(9);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 5000; ++i) {
    const auto x = static_cast<SimTime>(rng.exponential(5e5));
    (i % 3 ? a : b).record(x);
    all.record(x);
  }
  a.merge(b);
  EXPECT_EQ(a.buckets(), all.buckets());
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.percentile(99), all.percentile(99));
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
}

TEST(LatencyHistogram, ClampsBeyondOneHour) {
  LatencyHistogram h;
  h.record(5 * 3600 * kSec);
  h.record(-4);
  EXPECT_EQ(h.clamped(), 1u);
  EXPECT_EQ(h.max(), LatencyHistogram::kMaxValue);
  EXPECT_EQ(h.min(), 0);
}

TEST(Timeline, KeepsAtMostMaxPointsByDoublingTheInterval) {
  Timeline t(kSec);
  for (int s = 0; s < 1000; ++s) t.record_op(s * kSec, kMs);
  EXPECT_LE(t.points().size(), Timeline::kMaxPoints);
  EXPECT_EQ(t.interval(), 16 * kSec);  // 1000 s / 64 points -> 16 s
  std::uint64_t ops = 0;
  for (const auto& p : t.points()) ops += p.ops;
  EXPECT_EQ(ops, 1000u);
}

// Each record lands in the point of its instant, also when instants arrive out of order (a late
// completion, a time before the last point's span) and across interval doublings; the points are
// checked against counts made afterwards with the final interval.
TEST(Timeline, RecordsLandInTheirInstantsPointOutOfOrderAndAcrossDoublings) {
  Timeline t(kSec);
  std::vector<SimTime> at;
  std::uint64_t state = 5;
  for (int k = 0; k < 20000; ++k) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const SimTime jitter = static_cast<SimTime>((state >> 33) % (3 * kSec));  // up to 3 s early
    const SimTime when = std::max<SimTime>(0, static_cast<SimTime>(k) * (kSec / 100) - jitter);
    at.push_back(when);
    t.record_op(when, kMs);
  }
  const SimTime interval = t.interval();
  EXPECT_EQ(interval, 4 * kSec);  // 200 s over at most 64 points
  std::vector<std::uint64_t> expected(t.points().size(), 0);
  for (const SimTime when : at) ++expected.at(static_cast<std::size_t>(when / interval));
  ASSERT_EQ(t.points().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.points()[i].ops, expected[i]) << "point " << i;
    EXPECT_EQ(t.points()[i].latency.count(), expected[i]) << "point " << i;
  }
}

// Without report.timeline_interval_s the timeline keeps fine points during the run and, once the
// window's length is known, merges them to the finest 1, 2 or 5 x 10^k step covering the window
// in at most 64 points: 26 to 64 points from 3 ms to 1,000 s, each record (and each node's
// coordinator count) in the point of its instant.
TEST(Timeline, AutomaticIntervalIsAReadableStepWith26To64Points) {
  for (const SimTime window : {3 * kMs, 97 * kMs, 349 * kMs, 970 * kMs, 8 * kSec, 127 * kSec, 1000 * kSec}) {
    Timeline t = Timeline::automatic();
    t.set_nodes(2);
    std::vector<SimTime> at;
    for (SimTime k = 0; k < 5000; ++k) {
      at.push_back(window * k / 5000);
      t.record_op(at.back(), kMs);
      t.record_coordinator(at.back(), static_cast<std::uint32_t>(k % 2));
    }
    t.finish(window);
    SimTime mantissa = t.interval();
    while (mantissa % 10 == 0) mantissa /= 10;
    EXPECT_TRUE(mantissa == 1 || mantissa == 2 || mantissa == 5) << t.interval();
    EXPECT_EQ(t.points().size(), static_cast<std::size_t>((window + t.interval() - 1) / t.interval()));
    EXPECT_GE(t.points().size(), 26u) << window;
    EXPECT_LE(t.points().size(), Timeline::kMaxPoints) << window;
    std::vector<std::uint64_t> expected(t.points().size(), 0);
    for (const SimTime when : at) ++expected.at(static_cast<std::size_t>(when / t.interval()));
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(t.points()[i].latency.count(), expected[i]) << window << " point " << i;
      EXPECT_EQ(t.node_ops(i)[0] + t.node_ops(i)[1], expected[i]) << window << " point " << i;
    }
  }
}

TEST(Imbalance, KnownVectors) {
  const std::vector<double> even{5, 5, 5, 5};
  const Imbalance e = imbalance_of(even);
  EXPECT_DOUBLE_EQ(e.max_over_mean, 1.0);
  EXPECT_DOUBLE_EQ(e.cov, 0.0);
  EXPECT_NEAR(e.gini, 0.0, 1e-12);
  const std::vector<double> one{0, 0, 0, 8};
  const Imbalance o = imbalance_of(one);
  EXPECT_DOUBLE_EQ(o.max_over_mean, 4.0);
  EXPECT_NEAR(o.cov, std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(o.gini, 0.75, 1e-12);  // (n-1)/n
  const std::vector<double> lin{1, 2, 3, 4};
  EXPECT_NEAR(imbalance_of(lin).gini, 0.25, 1e-12);  // sum|xi-xj| / (2 n^2 mean) = 20 / 80
}

}  // namespace
}  // namespace lbsim
