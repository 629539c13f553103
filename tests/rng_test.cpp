// Rng: the inline ziggurat fast paths give Boost.Random's values bit for bit and leave the stream
// where Boost leaves it, including the draws that fall outside their rectangle (the slow path,
// about 1% of draws, and the normal's tail); forks do not depend on draws made.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/normal_distribution.hpp>

#include "sim/core/rng.hpp"

namespace lbsim::rng_test {
namespace {

std::uint64_t bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// A stream with the same state as `r`, drawn by Boost's samplers alone.
struct BoostSide {
  explicit BoostSide(const Rng& r) : rng(r) {}
  Rng rng;
  double exponential(double mean) { return boost::random::exponential_distribution<double>(1.0)(rng) * mean; }
  double normal() { return boost::random::normal_distribution<double>(0.0, 1.0)(rng); }
};

TEST(Rng, ZigguratFastPathsAreBoostsValuesAndStreamPositions) {
  constexpr int kDraws = 1'000'000;
  for (std::uint64_t seed : {1ULL, 42ULL, 0x9e3779b97f4a7c15ULL}) {
    Rng ours = Rng(seed).fork("zig");
    BoostSide ref(ours);
    double tail_max = 0, exp_max = 0;
    for (int k = 0; k < kDraws; ++k) {
      const double n = ours.normal(), rn = ref.normal();
      ASSERT_EQ(bits(n), bits(rn)) << "normal draw " << k << " seed " << seed;
      const double e = ours.exponential(3.5), re = ref.exponential(3.5);
      ASSERT_EQ(bits(e), bits(re)) << "exponential draw " << k << " seed " << seed;
      tail_max = std::max(tail_max, std::abs(n));
      exp_max = std::max(exp_max, e / 3.5);
    }
    // Same position afterwards: the next raw numbers agree.
    EXPECT_EQ(ours.next_u64(), ref.rng.next_u64());
    // The rare paths ran: the normal's tail starts at 3.44 (Boost's 128-rectangle table) and the
    // exponential's first rectangle ends at 7.70; a million draws go beyond both.
    EXPECT_GT(tail_max, 3.45);
    EXPECT_GT(exp_max, 7.7);
  }
}

TEST(Rng, ForksDependOnlyOnSeedAndName) {
  Rng a(7), b(7);
  for (int k = 0; k < 1000; ++k) a.next_u64();
  EXPECT_EQ(a.fork("x").next_u64(), b.fork("x").next_u64());
  EXPECT_NE(a.fork("x").next_u64(), a.fork("y").next_u64());
  EXPECT_NE(a.fork("x", 1).next_u64(), a.fork("x", 2).next_u64());
}

}  // namespace
}  // namespace lbsim::rng_test
