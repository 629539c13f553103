// Murmur3Partitioner tokens, bit-exact with Cassandra.
//
// Semantics of apache/cassandra Murmur3Partitioner.getToken and MurmurHash.hash3_x64_128:
// MurmurHash3 x64 128-bit with seed 0, the first half h1 read as a signed 64-bit token,
// tail bytes sign-extended (Java's signed byte; "not quite MurmurHash 3.0"), and a hash equal
// to Long.MIN_VALUE (the partitioner's MINIMUM sentinel) normalized to Long.MAX_VALUE.
// See ../shared/docs/ring.md section 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace lbsim {

using Token = std::int64_t;
inline constexpr Token kMinToken = std::numeric_limits<Token>::min();
inline constexpr Token kMaxToken = std::numeric_limits<Token>::max();

// h1 of Cassandra's MurmurHash3 variant, before the MIN -> MAX normalization.
std::int64_t murmur3_h1(std::span<const std::uint8_t> key);

// Murmur3Partitioner.normalize: MINIMUM is reserved ("before every key"), so a hash equal to it
// becomes MAXIMUM.
constexpr Token normalize_token(std::int64_t h) { return h == kMinToken ? kMaxToken : h; }

// The Murmur3Partitioner token of a non-empty routing key.
inline Token murmur3_token(std::span<const std::uint8_t> key) { return normalize_token(murmur3_h1(key)); }

}  // namespace lbsim
