// Routing keys: the bytes a driver hashes to find a request's token.
//
// - A single-component partition key is hashed as its raw CQL value bytes.
// - A composite partition key is packed as [u16 big-endian length][bytes][0x00] per component,
//   concatenated (CompositeType; datastax/python-driver cassandra/query.py
//   Statement._key_parts_packed, scylladb/scylla-rust-driver scylla/src/routing/partitioner.rs
//   calculate_token_for_partition_key). A one-component list is used as is, like the drivers do.
// - A workload's integer key id k becomes the 8-byte big-endian two's-complement bigint k, the
//   serialized form of a CQL `bigint` partition key (cassandra-stress uses blob keys; a bigint is
//   the natural choice, and the Java 3.x driver's TokenAwarePolicyTest routes a bigint 33 and a
//   composite (42, "hello_world"): scylladb/java-driver, branch scylla-3.x,
//   driver-core/src/test/java/com/datastax/driver/core/policies/TokenAwarePolicyTest.java).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/murmur3.hpp"

namespace lbsim {

using Bytes = std::vector<std::uint8_t>;

// Hex text (upper or lower case, even length) to bytes; nullopt when malformed.
std::optional<Bytes> parse_hex(std::string_view hex);
std::string to_hex(const Bytes& bytes);

inline constexpr std::size_t kMaxComponentBytes = 65535;

// Packs composite components; throws std::length_error for a component over 65,535 bytes.
Bytes pack_composite(const std::vector<Bytes>& components);

inline std::array<std::uint8_t, 8> bigint_key(std::int64_t id) {
  std::array<std::uint8_t, 8> b{};
  auto u = static_cast<std::uint64_t>(id);
  for (int i = 7; i >= 0; --i) {
    b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(u & 0xff);
    u >>= 8;
  }
  return b;
}

// The token of workload key id `id` (an 8-byte big-endian bigint partition key).
inline Token token_of_key_id(std::int64_t id) { return normalize_token(murmur3_h1_be64(static_cast<std::uint64_t>(id))); }

}  // namespace lbsim
