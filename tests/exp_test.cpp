// expfma::exp is glibc's exp bit for bit (on FMA CPUs, where glibc runs the same algorithm): its
// table is what its definition gives, its values equal std::exp's over the whole fast range and
// beyond, and a lognormal draw through it equals std::exp(mu + sigma Z) with the stream left at
// the same place.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include "sim/core/exp_fma.hpp"
#include "sim/core/rng.hpp"

namespace lbsim::exp_test {
namespace {

using Big = boost::multiprecision::cpp_bin_float_50;

std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }

TEST(ExpFma, TableIsTwoToTheJOver128SplitIntoADoubleAndItsRelativeTail) {
  const Big ln2 = boost::multiprecision::log(Big(2));
  for (std::uint64_t j = 0; j < 128; ++j) {
    const Big e = boost::multiprecision::exp(ln2 * Big(j) / 128);
    const double h = static_cast<double>(e);
    const double tail = static_cast<double>(e / Big(h) - 1);
    EXPECT_EQ(expfma::kTable[2 * j], bits(tail)) << "tail of entry " << j;
    EXPECT_EQ(expfma::kTable[2 * j + 1], bits(h) - (j << 45)) << "scale of entry " << j;
  }
  // Two entries as Debian's libm 2.36 holds them (its __exp_data.tab), to pin the definition.
  EXPECT_EQ(expfma::kTable[2], 0x3c9b3b4f1a88bf6eULL);
  EXPECT_EQ(expfma::kTable[3], 0x3feff63da9fb3335ULL);
}

TEST(ExpFma, EqualsStdExpBitForBit) {
  if (!expfma::have_fma()) GTEST_SKIP() << "no FMA on this CPU: glibc runs another variant and lbsim calls std::exp";
  Rng rng(7);
  std::uint64_t checked = 0;
  auto check = [&](double x) {
    ASSERT_EQ(bits(expfma::exp_out_of_line(x)), bits(std::exp(x))) << "x = " << x;
    ++checked;
  };
  // The lognormal draws' range (mu about ln of 10 us .. 100 ms in ns, sigma up to 2.3), densely.
  for (int k = 0; k < 4'000'000; ++k) check(9.0 + 10.0 * rng.uniform01() - 5.0 + 3.0 * rng.normal());
  // Every binade of the fast path [2^-54, 512) and past both ends, both signs.
  for (int k = 0; k < 4'000'000; ++k) {
    const double mag = std::ldexp(1.0 + rng.uniform01(), static_cast<int>(rng.below(66)) - 57);
    check(rng.below(2) ? mag : -mag);
  }
  // Every table entry and both ends of each of its intervals.
  for (int i = -90000; i <= 90000; ++i) {
    const double x = i * (std::log(2.0) / 128);
    check(x);
    check(std::nextafter(x, -1e300));
    check(std::nextafter(x, 1e300));
  }
  for (double x : {0.0, -0.0, 1e-300, 511.9999, 512.0, 709.78, 709.79, -745.2, -745.1, 1e308, -1e308,
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
    check(x);
  EXPECT_TRUE(std::isnan(expfma::exp_out_of_line(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_GT(checked, 8'500'000u);
}

TEST(ExpFma, LognormalDrawIsExpOfMuPlusSigmaZAndLeavesTheStreamInStep) {
  if (!expfma::have_fma()) GTEST_SKIP() << "no FMA on this CPU";
  Rng a = Rng(11).fork("lognormal"), b = a;
  for (int k = 0; k < 1'000'000; ++k) {
    const double mu = 11.0 + (k % 7), sigma = 0.1 + 0.3 * (k % 5);
    const double ours = expfma::lognormal(mu, sigma, a);
    const double ref = std::exp(mu + sigma * b.normal());
    ASSERT_EQ(bits(ours), bits(ref)) << "draw " << k;
  }
  EXPECT_EQ(a.next_u64(), b.next_u64());
}

}  // namespace
}  // namespace lbsim::exp_test
