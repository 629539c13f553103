// Murmur3Partitioner tokens, bit-exact with Cassandra.
//
// Semantics of apache/cassandra Murmur3Partitioner.getToken and MurmurHash.hash3_x64_128:
// MurmurHash3 x64 128-bit with seed 0, the first half h1 read as a signed 64-bit token,
// tail bytes sign-extended (Java's signed byte; "not quite MurmurHash 3.0"), and a hash equal
// to Long.MIN_VALUE (the partitioner's MINIMUM sentinel) normalized to Long.MAX_VALUE.
// Sources: apache/cassandra src/java/org/apache/cassandra/dht/Murmur3Partitioner.java (getToken,
// normalize) and src/java/org/apache/cassandra/utils/MurmurHash.java (hash3_x64_128, getblock).
// Drivers copy the sign extension on purpose: apache/cassandra-gocql-driver PR #1035
// (internal/murmur/murmur.go), scylladb/scylla-rust-driver PR #96 (scylla/src/routing/
// partitioner.rs), datastax/python-driver cassandra/cmurmur3.c.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace lbsim {

using Token = std::int64_t;
inline constexpr Token kMinToken = std::numeric_limits<Token>::min();
inline constexpr Token kMaxToken = std::numeric_limits<Token>::max();
// A token as an unsigned number in the same order (its sign bit flipped, the same as adding 2^63):
// its position on the ring from 0 (ring buckets, tablets, shards, sort keys compared without a
// branch).
constexpr std::uint64_t token_order(Token t) { return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63); }

// h1 of Cassandra's MurmurHash3 variant, before the MIN -> MAX normalization.
std::int64_t murmur3_h1(std::span<const std::uint8_t> key);

// Murmur3Partitioner.normalize: MINIMUM is reserved ("before every key"), so a hash equal to it
// becomes MAXIMUM.
constexpr Token normalize_token(std::int64_t h) { return h == kMinToken ? kMaxToken : h; }

// The Murmur3Partitioner token of a non-empty routing key.
inline Token murmur3_token(std::span<const std::uint8_t> key) { return normalize_token(murmur3_h1(key)); }

namespace murmur3_detail {
inline constexpr std::uint64_t kC1 = 0x87c37b91114253d5ULL;
inline constexpr std::uint64_t kC2 = 0x4cf5ad432745937fULL;
constexpr std::uint64_t fmix(std::uint64_t k) {  // MurmurHash3's fmix64
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}
// Little-endian tail bytes `v` as Cassandra reads them: byte i is Java's signed byte shifted by
// 8 i, so a byte with its top bit set flips every bit above it (kept for compatibility; its
// comment in Cassandra calls it "not quite MurmurHash 3.0", as twitter/algebird issue #512
// quotes). Branch-free: `v` XOR a mask whose byte k is 0xff when an odd number of
// the bytes below k are negative (a prefix XOR over bytes).
constexpr std::uint64_t java_signed_bytes(std::uint64_t v) {
  std::uint64_t t = ((v >> 7) & 0x0101010101010101ULL) << 8;  // byte j + 1: byte j is negative
  t ^= t << 8;
  t ^= t << 16;
  t ^= t << 32;
  return v ^ (t * 0xff);
}
}  // namespace murmur3_detail

// murmur3_h1 of the 8-byte big-endian encoding of `value` (a CQL bigint key), inline: the
// simulated workload hashes one per operation (issue 14). The same steps as murmur3_h1 for a key
// that is one 8-byte tail (no 16-byte block), so the same value; tests/murmur3_test.cpp compares
// them.
inline std::int64_t murmur3_h1_be64(std::uint64_t value) {
  using namespace murmur3_detail;
  const std::uint64_t k1 = java_signed_bytes(__builtin_bswap64(value));  // the bytes read little-endian
  std::uint64_t h1 = (std::rotl(k1 * kC1, 31) * kC2) ^ 8;
  std::uint64_t h2 = 8;
  h1 += h2;
  h2 += h1;
  h1 = fmix(h1);
  h2 = fmix(h2);
  return static_cast<std::int64_t>(h1 + h2);
}

}  // namespace lbsim
