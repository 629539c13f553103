// The Che approximation (sim/analysis/che.hpp; Che, Tung, Wang, IEEE JSAC 2002; its accuracy:
// Fricker, Robert, Roberts, ITC 24, 2012) against lbsim's exact LRU (sim/cache/lru.hpp), with
// keys drawn by lbsim's own KeyGenerator from a seeded Rng, as the simulator draws them. The
// issue's target (issue 37, item 4): within 2 points of hit rate on uniform, Zipf(0.99) and
// gaussian populations. Then the edge cases: a cache that holds everything, a tiny cache, items
// larger than the cache, and the root search on 10^6 items.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "sim/analysis/che.hpp"
#include "sim/analysis/key_weights.hpp"
#include "sim/cache/lru.hpp"
#include "sim/core/rng.hpp"
#include "sim/workload/key_dist.hpp"
#include "test_scale.hpp"

namespace lbsim {
namespace {

constexpr std::uint64_t kKeys = 100'000;

// A partition size per key from 200 to 1,999 bytes, a fixed function of the key id.
std::uint32_t varied_size(std::uint64_t k) { return static_cast<std::uint32_t>(200 + (k * 0x9e3779b97f4a7c15ULL >> 40) % 1800); }

struct Measured {
  double hit_rate;
  std::uint64_t accesses;
};

// The LRU's hit rate over `measure` reads after `warmup` reads, keys from `spec`.
Measured simulate(const KeySpec& spec, std::uint64_t capacity, bool vary, std::uint64_t warmup, std::uint64_t measure,
                  std::uint64_t seed) {
  KeyGenerator gen(spec);
  Rng keys = Rng(seed).fork("keys");
  LruCache cache(capacity);
  for (std::uint64_t i = 0; i < warmup; ++i) {
    const auto k = static_cast<std::uint64_t>(gen.next(keys));
    cache.access(k, vary ? varied_size(k) : 1000);
  }
  cache.reset_counters();
  for (std::uint64_t i = 0; i < measure; ++i) {
    const auto k = static_cast<std::uint64_t>(gen.next(keys));
    cache.access(k, vary ? varied_size(k) : 1000);
  }
  return {static_cast<double>(cache.hits()) / static_cast<double>(measure), measure};
}

double che(const KeySpec& spec, double capacity, bool vary) {
  const KeyPmf pmf(spec);
  return che_lru_keys(spec.count, [&](std::uint64_t k) { return pmf(k); },
                      [&](std::uint64_t k) { return vary ? varied_size(k) : 1000.0; }, capacity)
      .hit_rate;
}

KeySpec population(KeyDistKind kind) {
  KeySpec s;
  s.kind = kind;
  s.count = kKeys;
  s.zipf_s = 0.99;  // the Zipf(0.99)
  s.stdvrng = 3.0;  // cassandra-stress's gaussian default (key_dist.hpp)
  return s;
}

// 10^5 keys of 1 kB (the working set is 100 MB); caches of 10, 25 and 50 % of it; 300,000 reads
// to warm (3x the keys: every cache is full long before) and 1,000,000 measured: the sampling
// error of a hit rate is below 0.001, so the 2 points are the model's error alone.
void expect_che_within_two_points(KeyDistKind kind, bool vary, std::uint64_t seed) {
  const KeySpec spec = population(kind);
  double working_set = 0;
  for (std::uint64_t k = 1; k <= kKeys; ++k) working_set += vary ? varied_size(k) : 1000.0;
  for (double fraction : {0.10, 0.25, 0.50}) {
    const auto capacity = static_cast<std::uint64_t>(fraction * working_set);
    const double predicted = che(spec, static_cast<double>(capacity), vary);
    const Measured m = simulate(spec, capacity, vary, 300'000, 1'000'000, seed);
    EXPECT_NEAR(predicted, m.hit_rate, 0.02) << "cache " << fraction << " of the working set";
    // The populations differ: a hit rate near the cache fraction only for uniform keys.
    if (kind == KeyDistKind::Uniform) EXPECT_NEAR(m.hit_rate, fraction, 0.01);
    else EXPECT_GT(m.hit_rate, fraction + 0.05);
    std::printf("%s cache %.2f: che %.4f lru %.4f\n", vary ? "varied" : "fixed", fraction, predicted, m.hit_rate);
  }
}

TEST(CheVsLru, UniformKeysWithinTwoPoints) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  expect_che_within_two_points(KeyDistKind::Uniform, false, 1);
}

TEST(CheVsLru, Zipf099KeysWithinTwoPoints) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  expect_che_within_two_points(KeyDistKind::Zipf, false, 2);
}

TEST(CheVsLru, GaussianKeysWithinTwoPoints) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  expect_che_within_two_points(KeyDistKind::Gaussian, false, 3);
}

TEST(CheVsLru, Zipf099KeysOfVariedSizesWithinTwoPoints) {
  // The byte form of eq. (1): partitions of 200-1,999 bytes.
  LBSIM_OPTIMIZED_SUITE_ONLY();
  expect_che_within_two_points(KeyDistKind::Zipf, true, 4);
}

TEST(Che, UniformHitRateIsTheCacheFraction) {
  // Uniform rates: K (1 - e^{-T/K}) = C/s gives h = 1 - e^{-T/K} = C / (K s) exactly.
  std::vector<double> rates(1000, 1.0 / 1000), sizes(1000, 1000.0);
  for (double c : {1000.0, 50'000.0, 400'000.0, 999'000.0}) {
    const CheResult r = che_lru(rates, sizes, c);
    EXPECT_NEAR(r.hit_rate, c / 1e6, 1e-9) << c;
    EXPECT_NEAR(r.occupancy, c, 1e-6 * c);
    EXPECT_FALSE(r.fits);
  }
}

TEST(Che, AWorkingSetThatFitsHitsAlwaysAfterItsColdMisses) {
  std::vector<double> rates(1000, 1.0 / 1000), sizes(1000, 1000.0);
  const CheResult r = che_lru(rates, sizes, 1e6);  // exactly fits
  EXPECT_TRUE(r.fits);
  EXPECT_TRUE(std::isinf(r.t));
  EXPECT_EQ(r.hit_rate, 1.0);
  EXPECT_EQ(r.occupancy, 1e6);
  // From an empty cache: 10,000 uniform reads of 1,000 keys see 1000 (1 - e^{-10}) distinct keys.
  const double cold = che_cold_hit_rate(rates, 10'000);
  EXPECT_NEAR(cold, 1.0 - 1000 * (1 - std::exp(-10.0)) / 10'000, 1e-12);
  // ... which the LRU measures (mean over 20 seeds: sd of a run's distinct count is about 0.2).
  double measured = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed);
    LruCache c(1'000'000);
    for (int i = 0; i < 10'000; ++i) c.access(rng.below(1000) + 1, 1000);
    measured += static_cast<double>(c.hits()) / 10'000 / 20;
  }
  EXPECT_NEAR(measured, cold, 0.0005);
  // Unrequested items take no room: 1,000 requested keys fit although 2,000 do not.
  rates.resize(2000, 0.0);
  sizes.resize(2000, 1000.0);
  EXPECT_TRUE(che_lru(rates, sizes, 1e6).fits);
}

TEST(Che, ItemsLargerThanTheCacheAlwaysMiss) {
  // Half the requests go to one 5 MB partition that a 1 MB cache never holds (LruCache::access
  // does not insert it); the other half, uniform over 100 keys of 100 kB, hold 10 % of them.
  std::vector<double> rates(101, 0.5 / 100), sizes(101, 100'000.0);
  rates[100] = 0.5;
  sizes[100] = 5e6;
  const CheResult r = che_lru(rates, sizes, 1e6);
  EXPECT_NEAR(r.hit_rate, 0.5 * 0.1, 1e-9);
  LruCache c(1'000'000);
  Rng rng(5);
  for (int i = 0; i < 200'000; ++i) {
    if (i == 50'000) c.reset_counters();
    const std::uint64_t k = rng.uniform01() < 0.5 ? 101 : rng.below(100) + 1;
    c.access(k, k == 101 ? 5'000'000 : 100'000);
  }
  EXPECT_NEAR(static_cast<double>(c.hits()) / 150'000, r.hit_rate, 0.005);
}

TEST(Che, TinyCacheOfOneEntry) {
  // One entry: the LRU hits when a key repeats at once, probability sum_k p_k^2. For uniform keys
  // Che gives exactly 1/K; for Zipf(0.99) over 1,000 keys it underestimates the repeat
  // probability (2.69 % against 2.78 %: with one slot T is not concentrated, and Fricker et al.'s
  // argument needs a large cache) by less than 0.2 points.
  std::vector<double> rates(1000, 1.0 / 1000), sizes(1000, 1000.0);
  EXPECT_NEAR(che_lru(rates, sizes, 1000).hit_rate, 1.0 / 1000, 1e-12);
  KeySpec z;
  z.kind = KeyDistKind::Zipf;
  z.count = 1000;
  z.zipf_s = 0.99;
  const KeyPmf pmf(z);
  double repeat = 0;
  for (std::uint64_t k = 1; k <= 1000; ++k) {
    rates[k - 1] = pmf(k);
    repeat += pmf(k) * pmf(k);
  }
  const double h = che_lru(rates, sizes, 1000).hit_rate;
  EXPECT_LT(h, repeat);
  EXPECT_NEAR(h, repeat, 0.002);
  EXPECT_NEAR(simulate(z, 1000, false, 1000, 400'000, 9).hit_rate, repeat, 0.003);
}

TEST(Che, RootSearchOnAMillionZipfItems) {
  // 10^6 keys, Zipf(0.99), cache of 20 %: the residual of eq. (1) is within 1e-9 of C and the
  // search takes a few dozen passes; the hit rate grows with the cache.
  KeySpec z;
  z.kind = KeyDistKind::Zipf;
  z.count = 1'000'000;
  z.zipf_s = 0.99;
  double last = 0;
  for (double fraction : {0.01, 0.2, 0.6}) {
    const CheResult r = che_lru_keyspec(z, 1000, fraction * 1e9);
    EXPECT_NEAR(r.occupancy, fraction * 1e9, 1e-9 * fraction * 1e9);
    EXPECT_LT(r.iterations, 60);
    EXPECT_GT(r.hit_rate, last + 0.05);
    last = r.hit_rate;
  }
  EXPECT_LT(last, 1.0);
}

TEST(Che, WarmUpAfterARestartFollowsTheCharacteristicTime) {
  // A cache emptied at t = 0 (the restart of issue 37's HWLB experiment): 20,000 keys of 1 kB,
  // uniform with a cache of 30 % and Zipf(0.99) with 10 %. The LRU's hit rate in a window of 400
  // reads around t (mean of 40 seeds: 16,000 reads a point, sd below 0.004) against
  // che_warmup_hit_rate at t, before, near and after the characteristic time. Time is counted in
  // reads, so a key's rate is its probability.
  LBSIM_OPTIMIZED_SUITE_ONLY();
  constexpr std::uint64_t kK = 20'000;
  for (const auto& [kind, fraction] : {std::pair{KeyDistKind::Uniform, 0.3}, std::pair{KeyDistKind::Zipf, 0.1}}) {
    KeySpec spec;
    spec.kind = kind;
    spec.count = kK;
    spec.zipf_s = 0.99;
    const KeyPmf pmf(spec);
    std::vector<double> rates(kK), sizes(kK, 1000.0);
    for (std::uint64_t k = 1; k <= kK; ++k) rates[k - 1] = pmf(k);
    const double cap = fraction * kK * 1000;
    const CheResult steady = che_lru(rates, sizes, cap);
    const std::vector<double> points{0.02 * kK, 0.1 * kK, 0.5 * steady.t, steady.t, 3 * steady.t};
    std::vector<double> hits(points.size(), 0.0);
    const auto last = static_cast<std::uint64_t>(points.back()) + 200;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      KeyGenerator gen(spec);
      Rng keys = Rng(100 + seed).fork("keys");
      LruCache c(static_cast<std::uint64_t>(cap));
      for (std::uint64_t i = 0; i < last; ++i) {
        const bool hit = c.access(static_cast<std::uint64_t>(gen.next(keys)), 1000);
        for (std::size_t p = 0; p < points.size(); ++p)
          if (hit && static_cast<double>(i) >= points[p] - 200 && static_cast<double>(i) < points[p] + 200) hits[p] += 1;
      }
    }
    for (std::size_t p = 0; p < points.size(); ++p) {
      const double measured = hits[p] / (40.0 * 400.0);
      EXPECT_NEAR(che_warmup_hit_rate(rates, sizes, cap, steady, points[p]), measured, 0.02)
          << (kind == KeyDistKind::Uniform ? "uniform" : "zipf") << " at t = " << points[p];
    }
    EXPECT_EQ(che_warmup_hit_rate(rates, sizes, cap, steady, 10 * steady.t), steady.hit_rate);
    for (std::size_t p = 1; p < 4; ++p)  // rising until T
      EXPECT_LT(che_warmup_hit_rate(rates, sizes, cap, steady, points[p - 1]),
                che_warmup_hit_rate(rates, sizes, cap, steady, points[p]) - 0.01);
  }
}

TEST(Che, NoRequestsMeansNoHits) {
  std::vector<double> rates(10, 0.0), sizes(10, 1.0);
  EXPECT_EQ(che_lru(rates, sizes, 5).hit_rate, 0.0);
  EXPECT_EQ(che_cold_hit_rate(rates, 10), 0.0);
}

}  // namespace
}  // namespace lbsim
