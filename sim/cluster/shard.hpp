// ScyllaDB shard of a token (shard awareness).
// Semantics of scylladb dht/token.cc zero_based_shard_of and scylla-rust-driver Sharder::shard_of:
// unbias the token onto uint64 order, drop the top msb_ignore bits, then take the high 64 bits of
// (u * nr_shards). Sources: scylladb/scylladb dht/token.cc (zero_based_shard_of, unbias);
// scylladb/scylla-rust-driver scylla/src/routing/sharding.rs (Sharder::shard_of, and its
// test_shard_of vectors); scylladb/java-driver scylla-3.x ShardingInfo.java (shardId). The
// parameters come from the SUPPORTED options SCYLLA_NR_SHARDS and SCYLLA_SHARDING_IGNORE_MSB
// (scylladb/scylladb docs/dev/protocol-extensions.md).
#pragma once
#include <cstdint>

#include "sim/core/int128.hpp"

#include "sim/cluster/murmur3.hpp"

namespace lbsim {

struct Sharding {
  std::uint32_t nr_shards = 1;
  std::uint32_t msb_ignore = 12;
};

inline std::uint32_t shard_of(Token token, Sharding s) {
  std::uint64_t u = token_order(token);
  u = s.msb_ignore >= 64 ? 0 : (u << s.msb_ignore);
  return static_cast<std::uint32_t>((static_cast<u128>(u) * s.nr_shards) >> 64);
}

}  // namespace lbsim
