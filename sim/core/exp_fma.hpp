// exp(x) computed inline, bit for bit as glibc 2.36 (Debian 12) computes it on CPUs with FMA, so
// that a lognormal draw costs no call into libm (issue 14: the call, glibc's errno wrapper and the
// registers saved around them were about half of a lognormal draw).
//
// The algorithm is glibc 2.36's exp for CPUs with FMA, which glibc selects at load time on such
// CPUs (sysdeps/ieee754/dbl-64/e_exp.c built with -mfma, from Arm's optimized-routines, Szabolcs
// Nagy): x = k ln2/128 + r with |r| <= ln2/256, exp(x) = 2^(k/128) (1 + tail_k) * exp(r) with a
// table of 2^(j/128) and a degree-5 polynomial for exp(r). The constants below are that
// implementation's (read from Debian's libm 2.36), and the order and fusing of its operations
// were read from its machine code, so the rounding is the same at every step. The table is
// derived here, not copied: entry 2j is the double nearest to 2^(j/128)/H_j - 1 and entry 2j+1
// is bits(H_j) - (j << 45), H_j being the double nearest to 2^(j/128) (tests/exp_test.cpp
// recomputes it with Boost.Multiprecision, and compares millions of values with std::exp).
//
// Only |x| in [2^-54, 512) takes the inline path; anything else (tiny, huge, infinite, NaN)
// calls std::exp. Hand-written: no Debian library offers an exp that is bit-identical to libm's.
//
// Use: only from a function compiled for FMA (target "fma") and only when have_fma(); the build
// has -ffp-contract=off, so such a function rounds every other expression as before.
#pragma once
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace lbsim {

class Rng;

namespace expfma {

inline constexpr double kInvLn2N = std::bit_cast<double>(std::uint64_t{0x40671547652b82fe});    // 128 / ln 2
// -ln 2 / 128 as a high part (trailing zero bits) and a low part.
inline constexpr double kNegLn2HiN = std::bit_cast<double>(std::uint64_t{0xbf762e42fefa0000});
inline constexpr double kNegLn2LoN = std::bit_cast<double>(std::uint64_t{0xbd0cf79abc9e3b3a});
// 0x1.8p52: adding it rounds to an integer, held in the low bits.
inline constexpr double kShift = std::bit_cast<double>(std::uint64_t{0x4338000000000000});
inline constexpr double kC2 = std::bit_cast<double>(std::uint64_t{0x3fdffffffffffdbd});
inline constexpr double kC3 = std::bit_cast<double>(std::uint64_t{0x3fc555555555543c});
inline constexpr double kC4 = std::bit_cast<double>(std::uint64_t{0x3fa55555cf172b91});
inline constexpr double kC5 = std::bit_cast<double>(std::uint64_t{0x3f81111167a4d017});
extern const std::uint64_t kTable[256];

[[gnu::target("fma"), gnu::always_inline]] inline double exp(double x) {
  const std::uint64_t ix = std::bit_cast<std::uint64_t>(x);
  const std::uint32_t top = static_cast<std::uint32_t>(ix >> 52) & 0x7ff;
  if (top - 0x3c9u > 0x3eu) [[unlikely]] return std::exp(x);  // |x| < 2^-54 or >= 512, inf, NaN
  const double z = __builtin_fma(x, kInvLn2N, kShift);
  const std::uint64_t ki = std::bit_cast<std::uint64_t>(z);  // k = round(x 128 / ln 2), in the low bits
  const double kd = z - kShift;
  const double r = __builtin_fma(kd, kNegLn2LoN, __builtin_fma(kd, kNegLn2HiN, x));
  const std::size_t j = 2 * (ki & 127);
  const double tail = std::bit_cast<double>(kTable[j]);
  const double scale = std::bit_cast<double>(kTable[j + 1] + (ki << 45));  // 2^(k/128), adds k / 128 to the exponent
  const double r2 = r * r;
  const double lo = __builtin_fma(__builtin_fma(r, kC3, kC2), r2, r + tail);
  const double tmp = __builtin_fma(r2 * r2, __builtin_fma(r, kC5, kC4), lo);
  return __builtin_fma(scale, tmp, scale);
}

// Whether this CPU has FMA (then glibc runs the algorithm above too); set before main.
extern const bool kHaveFma;
inline bool have_fma() { return kHaveFma; }
// The same, out of line, for tests: requires have_fma().
double exp_out_of_line(double x);
// exp(mu + sigma Z), Z the standard normal of Rng::normal(): a lognormal draw. Requires have_fma().
double lognormal(double mu, double sigma, Rng& rng);

}  // namespace expfma
}  // namespace lbsim
