// Seeded random streams and lbsim's own distributions.
//
// Contract: there is no global generator. Every stream is forked by name from a root seed
// (`Rng keys = root.fork("keys")`), and a fork depends only on the parent's seed and the name,
// never on how many numbers the parent has drawn. The distributions are written here rather than
// taken from <random> because the standard library's distributions differ between
// implementations, and a report must be byte-identical everywhere.
//
// The generator is xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64.
// Hand-written: no Debian package offers these portable, fork-by-name streams. The exponential and
// normal variates come from Boost.Random's ziggurat samplers (fixed tables and arithmetic in the
// headers, so a given Boost release gives the same numbers everywhere), which avoid the logarithm
// that inversion or the polar method pays on every draw.
#pragma once
#include <cmath>
#include <cstdint>

#include <string_view>

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/normal_distribution.hpp>

#include "sim/core/int128.hpp"

namespace lbsim {

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 64-bit FNV-1a of a stream name.
constexpr std::uint64_t stream_hash(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) : seed_(seed) {
    std::uint64_t sm = seed;
    for (auto& w : s_) w = splitmix64(sm);
  }

  std::uint64_t seed() const { return seed_; }

  // How many 64-bit draws this stream has made since it was seeded, found by stepping a fresh copy
  // (xoshiro's state after k draws names k); -1 past `cap`. For the event digest's per-stream
  // counts (sim/engine/event_digest.hpp): it costs the streams nothing while they draw.
  std::int64_t draws_since_seed(std::uint64_t cap = std::uint64_t{1} << 32) const {
    Rng fresh(seed_);
    for (std::uint64_t k = 0; k <= cap; ++k) {
      if (fresh.s_[0] == s_[0] && fresh.s_[1] == s_[1] && fresh.s_[2] == s_[2] && fresh.s_[3] == s_[3])
        return static_cast<std::int64_t>(k);
      fresh.next_u64();
    }
    return -1;
  }

  // A child stream named `name`; independent of draws already made from this one.
  Rng fork(std::string_view name) const {
    std::uint64_t mix = seed_ ^ (stream_hash(name) * 0x9e3779b97f4a7c15ULL);
    return Rng(splitmix64(mix));
  }
  Rng fork(std::string_view name, std::uint64_t index) const {
    std::uint64_t mix = fork(name).seed_ + index * 0xd1b54a32d192ed03ULL;
    return Rng(splitmix64(mix));
  }

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n > 0, without modulo bias (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t n) {
    u128 m = static_cast<u128>(next_u64()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<u128>(next_u64()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform double in (0, 1]: safe as the argument of a logarithm.
  double uniform01_open_low() { return (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53; }

  // Exponential with the given mean, and standard normal: ziggurat (Marsaglia and Tsang, 2000;
  // Boost.Random's implementation); no cached values, so draws depend only on the stream.
  //
  // Inline fast paths (issue 14): about 99% of draws end with their first 64-bit number inside
  // its ziggurat rectangle. That case is decided here from Boost's own tables, reading the number
  // as Boost's generate_int_float_pair<double, 8> does for a full-range 64-bit engine (low 8 bits:
  // the rectangle, and for the normal its sign; bits 8..63, less bit 11, scaled by 2^-56: the
  // uniform). The fast path computes the next state aside (Next) and stores it only when the draw
  // ends there; any other draw leaves the stream untouched and runs Boost's sampler from the same
  // state, so every value and the stream's position are exactly Boost's (tests/rng_test.cpp checks
  // millions of draws of each). The whole sampler inline cost about 35 instructions a draw in
  // saved registers alone.
  double exponential(double mean) {
    const Next n = peek();
    const double* x = boost::random::detail::exponential_table<double>::table_x;
    const std::size_t i = n.u & 0xff;
    const double v = zig_uniform(n.u) * x[i];
    if (v < x[i + 1]) [[likely]] {
      commit(n);
      return (0.0 + v) / 1.0 * mean;  // Boost: (shift + x) / lambda
    }
    return exponential_slow() * mean;
  }
  double normal() {
    const Next n = peek();
    const double* x = boost::random::detail::normal_table<double>::table_x;
    const std::size_t i = (n.u & 0xff) >> 1;
    const double v = zig_uniform(n.u) * x[i];
    if (v < x[i + 1]) [[likely]] {
      commit(n);
      return v * static_cast<double>(static_cast<int>(n.u & 1) * 2 - 1) * 1.0 + 0.0;  // Boost: x sign sigma + mean
    }
    return normal_slow();
  }

  // A UniformRandomBitGenerator, for the Boost samplers.
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~std::uint64_t{0}; }
  result_type operator()() { return next_u64(); }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static double zig_uniform(std::uint64_t u) {
    return static_cast<double>((u & ~(std::uint64_t{1} << 11)) >> 8) * 0x1.0p-56;
  }
  // next_u64() without storing the new state.
  struct Next {
    std::uint64_t u, s0, s1, s2, s3;
  };
  Next peek() const {
    const std::uint64_t t = s_[1] << 17;
    const std::uint64_t s2 = s_[2] ^ s_[0];
    const std::uint64_t s3 = s_[3] ^ s_[1];
    const std::uint64_t s1 = s_[1] ^ s2;
    const std::uint64_t s0 = s_[0] ^ s3;
    return {rotl(s_[1] * 5, 7) * 9, s0, s1, s2 ^ t, rotl(s3, 45)};
  }
  void commit(const Next& n) {
    s_[0] = n.s0;
    s_[1] = n.s1;
    s_[2] = n.s2;
    s_[3] = n.s3;
  }
  [[gnu::noinline]] double exponential_slow() { return boost::random::exponential_distribution<double>(1.0)(*this); }
  [[gnu::noinline]] double normal_slow() { return boost::random::normal_distribution<double>(0.0, 1.0)(*this); }
  std::uint64_t seed_;
  std::uint64_t s_[4];
};

}  // namespace lbsim
