// Which partition key each operation uses: a population of `count` key ids 1..count drawn by one
// of the cassandra-stress-like distributions below. Key id k is the 8-byte big-endian bigint k
// (token_of_key_id). Sampling is O(1) and allocation-free; only `sequential` keeps state.
//
//   uniform      every key equally likely
//   gaussian     normal with mean (1+count)/2 and sd (count-1)/2/stdvrng, clamped (c-s gaussian())
//   zipf         P(rank k) ~ 1/k^s, key id = rank (rejection-inversion, Hoermann & Derflinger 1996)
//   exponential  1 + floor(Exp(mean_fraction x count)), clamped to count
//   sequential   1, 2, ..., count, 1, ...
//   hotspot      a fraction `hot_ops` of operations on the first ceil(hot_keys x count) keys,
//                uniform within each part
#pragma once
#include <cstdint>

#include "sim/core/rng.hpp"

namespace lbsim {

enum class KeyDistKind : std::uint8_t { Uniform, Gaussian, Zipf, Exponential, Sequential, Hotspot };

struct KeySpec {
  KeyDistKind kind = KeyDistKind::Uniform;
  std::uint64_t count = 1000000;
  double stdvrng = 3.0;        // gaussian
  double zipf_s = 1.0;         // zipf exponent, > 0
  double mean_fraction = 0.1;  // exponential
  double hot_keys = 0.01;      // hotspot: fraction of keys that are hot
  double hot_ops = 0.5;        // hotspot: fraction of operations on hot keys
};

class KeyGenerator {
 public:
  explicit KeyGenerator(const KeySpec& spec);
  // A key id in [1, count]; always draws exactly one uniform (gaussian: one normal; zipf: a
  // variable number from its rejection loop).
  std::int64_t next(Rng& rng);

 private:
  double h(double x) const;
  double h_integral(double x) const;
  double h_integral_inverse(double x) const;
  KeySpec spec_;
  double n_;
  std::uint64_t seq_ = 0;
  std::uint64_t hot_count_ = 1;
  // zipf constants
  double h_x1_ = 0, h_n_ = 0, s_ = 0;
};

}  // namespace lbsim
