// Murmur3Partitioner tokens, routing-key packing and the shard formula, against the drivers' own
// test vectors:
// - datastax/python-driver tests/unit/test_metadata.py (Murmur3TokensTest): "123",
//   "9223372036854775807", fe x 8, 10 x 8 and the 50-byte 00 ff 10 fa 99 key;
// - apache/cassandra-gocql-driver internal/murmur/murmur_test.go: "hello", "hello, world",
//   "19 Jan 2038 at 3:14:07 AM", the quick brown fox, TestMurmur3H1_CassandraSign (the hex key)
//   and the TestMurmur3H1 series "0", "01", ... (every tail length);
// - scylladb/scylla-rust-driver scylla/src/routing/partitioner.rs (test_murmur3_partitioner):
//   "test", "xd", "primary_key", "kremówki";
// - scylladb/scylla-rust-driver scylla/src/routing/sharding.rs (test_shard_of, taken there from
//   gocql): the two tokens of Shard.MatchesScyllaDriverVectors with 4 shards and 12 ignored bits.
// The Java 3.x keys ("This is some sample text", the should_... routing keys of
// TokenAwarePolicyTest; "a", "b", "c", "e", "100000" of ShardingInfoTest, in scylladb/java-driver
// scylla-3.x driver-core/src/test/java/com/datastax/driver/core/) come with asserted plans and
// shards, not tokens: their tokens here were computed with Cassandra's Murmur3 variant, and the
// plans (tests/policy_vectors_test.cpp) and shards (below) that the Java tests assert confirm them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cluster/murmur3.hpp"
#include "sim/cluster/routing_key.hpp"
#include "sim/cluster/shard.hpp"

namespace lbsim {
namespace {

Token token_of(const std::string& s) {
  return murmur3_token({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
}
Token token_of(const Bytes& b) { return murmur3_token(b); }

struct Vector {
  std::string key;
  Token token;
};

TEST(Murmur3, MatchesTheDriversPublishedVectors) {
  const std::vector<Vector> vectors{
      {"123", -7468325962851647638},
      {"9223372036854775807", 7162290910810015547},
      {"hello", static_cast<Token>(0xcbd8a7b341bd9b02ULL)},
      {"hello, world", static_cast<Token>(0x342fac623a5ebc8eULL)},
      {"19 Jan 2038 at 3:14:07 AM", static_cast<Token>(0xb89e5988b737affcULL)},
      {"The quick brown fox jumps over the lazy dog.", static_cast<Token>(0xcd99481f9ee902c9ULL)},
      {"test", -6017608668500074083},
      {"xd", 4507812186440344727},
      {"primary_key", -1632642444691073360},
      {"krem\xc3\xb3wki", 4354931215268080151},
      {"This is some sample text", 4874351301193663061},
      {"should_choose_proper_host_based_on_routing_key", 4557949199137838892},
      {"should_use_other_nodes_when_replicas_having_token_are_down", 6444339665561646341},
      {"should_choose_host_in_local_dc_when_using_network_topology_strategy_and_dc_aware", -8124212968526248339},
      {"a", -8839064797231613815},
      {"b", 8833996863197925870},
      {"c", -8198557465434950441},
      {"e", -4200008757497435756},
      {"100000", 2739050094959918959},
  };
  for (const auto& v : vectors) EXPECT_EQ(token_of(v.key), v.token) << v.key;
}

TEST(Murmur3, SignExtendsTailBytesLikeCassandra) {
  EXPECT_EQ(token_of(Bytes(8, 0xfe)), -8927430733708461935);  // reference Murmur3 would give -3927725473986473217
  EXPECT_EQ(token_of(Bytes(8, 0x10)), 1446172840243228796);
  Bytes fifty;
  for (int i = 0; i < 10; ++i) fifty.insert(fifty.end(), {0x00, 0xff, 0x10, 0xfa, 0x99});
  EXPECT_EQ(token_of(fifty), 5837342703291459765);
  EXPECT_EQ(token_of(*parse_hex("00104327529fb645dd00b883ec39ae448bb800000400066a6b00")), -9223371632693506265);
}

TEST(Murmur3, GocqlSeriesCoversEveryTailLength) {
  const std::vector<std::uint64_t> series{
      0x2ac9debed546a380, 0x649e4eaa7fc1708e, 0xce68f60d7c353bdb, 0x0f95757ce7f38254, 0x0f04e459497f3fc1,
      0x88c0a92586be0a27, 0x13eb9fb82606f7a6, 0x8236039b7387354d, 0x4c1e87519fe738ba, 0x3f9652ac3effeb24,
      0x3f33760ded9006c6, 0xaed70a6631854cb1, 0x8a299a8f8e0e2da7, 0x624b675c779249a6, 0xa4b203bb1d90b9a3,
      0xa3293ad698ecb99a, 0xbc740023dbd50048, 0x3fe5ab9837d25cdd, 0x2d0338c1ca87d132};
  std::string key;
  for (std::size_t i = 0; i < series.size(); ++i) {
    key += static_cast<char>('0' + i % 10);
    EXPECT_EQ(token_of(key), static_cast<Token>(series[i])) << key;
  }
}

// The hash written out byte by byte, as MurmurHash.hash3_x64_128 states it (every tail byte
// sign-extended, then shifted into place), against the word-at-a-time version in murmur3.cpp, for
// keys of every length up to three blocks with a random mix of negative and positive bytes.
std::int64_t bytewise_h1(const std::vector<std::uint8_t>& key) {
  auto rotl = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto fmix = [](std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    return k ^ (k >> 33);
  };
  auto sbyte = [](std::uint8_t b, std::size_t shift) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(b))) << shift;
  };
  const std::uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
  std::uint64_t h1 = 0, h2 = 0;
  const std::size_t blocks = key.size() / 16;
  for (std::size_t b = 0; b < blocks; ++b) {
    std::uint64_t k1 = 0, k2 = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      k1 |= std::uint64_t{key[16 * b + i]} << (8 * i);
      k2 |= std::uint64_t{key[16 * b + 8 + i]} << (8 * i);
    }
    h1 ^= rotl(k1 * c1, 31) * c2;
    h1 = rotl(h1, 27) + h2;
    h1 = h1 * 5 + 0x52dce729;
    h2 ^= rotl(k2 * c2, 33) * c1;
    h2 = rotl(h2, 31) + h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  std::uint64_t k1 = 0, k2 = 0;
  for (std::size_t i = 16 * blocks; i < key.size(); ++i) {
    const std::size_t at = i - 16 * blocks;
    if (at >= 8) k2 ^= sbyte(key[i], 8 * (at - 8));
    else k1 ^= sbyte(key[i], 8 * at);
  }
  if (key.size() % 16 > 8) h2 ^= rotl(k2 * c2, 33) * c1;
  if (key.size() % 16 > 0) h1 ^= rotl(k1 * c1, 31) * c2;
  h1 ^= key.size();
  h2 ^= key.size();
  h1 += h2;
  h2 += h1;
  h1 = fmix(h1);
  h2 = fmix(h2);
  return static_cast<std::int64_t>(h1 + h2);
}

TEST(Murmur3, WordAtATimeMatchesTheBytewiseDefinition) {
  std::uint64_t state = 12345;
  int checked = 0;
  for (std::size_t len = 0; len <= 48; ++len) {
    for (int round = 0; round < 64; ++round) {
      std::vector<std::uint8_t> key(len);
      for (auto& b : key) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        b = static_cast<std::uint8_t>(state >> 56);
      }
      ASSERT_EQ(murmur3_h1(key), bytewise_h1(key)) << "length " << len << " round " << round;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 49 * 64);
  EXPECT_EQ(bytewise_h1(std::vector<std::uint8_t>(8, 0xfe)), -8927430733708461935);  // the reference itself
}

// The inline bigint hash (the per-operation path) against the general function and the bytewise
// definition: 2^20 pseudo-random values plus the edge values, with every byte sign pattern.
TEST(Murmur3, BigintKeyHashMatchesTheGeneralFunction) {
  std::vector<std::uint64_t> values = {0, 1, 0x7f, 0x80, 0xff, 0x8080808080808080ULL, 0x7fffffffffffffffULL,
                                       0x8000000000000000ULL, ~std::uint64_t{0}};
  for (unsigned pattern = 0; pattern < 256; ++pattern) {  // byte i negative when bit i is set
    std::uint64_t v = 0x1122334455667711ULL;
    for (unsigned i = 0; i < 8; ++i)
      if ((pattern >> i) & 1) v |= std::uint64_t{0x80} << (8 * i);
    values.push_back(v);
  }
  std::uint64_t state = 777;
  for (int i = 0; i < (1 << 20); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    values.push_back(state ^ (state >> 29));
  }
  std::size_t differ = 0;
  for (const std::uint64_t v : values) {
    const auto key = bigint_key(static_cast<std::int64_t>(v));
    const std::int64_t general = murmur3_h1(key);
    if (murmur3_h1_be64(v) != general) ++differ;
    if (token_of_key_id(static_cast<std::int64_t>(v)) != murmur3_token(key)) ++differ;
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(values.size(), 9u + 256u + (1u << 20));
  EXPECT_EQ(murmur3_h1_be64(0xfefefefefefefefeULL), -8927430733708461935);  // the reference value above
}

TEST(Murmur3, NormalizesMinimumTokenToMaximum) {
  // No key that hashes to exactly MIN is known, so the rule is checked on its own.
  EXPECT_EQ(normalize_token(kMinToken), kMaxToken);
  EXPECT_EQ(normalize_token(kMinToken + 1), kMinToken + 1);
  EXPECT_EQ(normalize_token(kMaxToken), kMaxToken);
  EXPECT_EQ(normalize_token(0), 0);
}

TEST(RoutingKey, BigintKeyIdIsEightBytesBigEndian) {
  const auto b = bigint_key(33);
  EXPECT_EQ(to_hex(Bytes(b.begin(), b.end())), "0000000000000021");
  EXPECT_EQ(token_of_key_id(33), 4891967783720036163);
  const auto n = bigint_key(-2);
  EXPECT_EQ(to_hex(Bytes(n.begin(), n.end())), "fffffffffffffffe");
}

TEST(RoutingKey, CompositeComponentsArePackedWithLengthAndEndByte) {
  const auto k42 = bigint_key(42);
  const std::string hw = "hello_world";
  const Bytes packed = pack_composite({Bytes(k42.begin(), k42.end()), Bytes(hw.begin(), hw.end())});
  ASSERT_EQ(packed.size(), 2 + 8 + 1 + 2 + 11 + 1u);
  EXPECT_EQ(to_hex(packed).substr(0, 22), "0008000000000000002a00");
  EXPECT_EQ(token_of(packed), 3735658072872431718);
  // A one-component list is hashed as is.
  EXPECT_EQ(pack_composite({Bytes{1, 2, 3}}), (Bytes{1, 2, 3}));
  EXPECT_THROW(pack_composite({Bytes(65536, 1), Bytes{1}}), std::length_error);
  EXPECT_NO_THROW(pack_composite({Bytes(65535, 1), Bytes{1}}));
}

TEST(RoutingKey, HexParsingRejectsMalformedInput) {
  EXPECT_EQ(parse_hex("00fFaB"), (Bytes{0x00, 0xff, 0xab}));
  EXPECT_FALSE(parse_hex("abc"));
  EXPECT_FALSE(parse_hex("zz"));
  EXPECT_EQ(parse_hex(""), Bytes{});
}

TEST(Shard, MatchesScyllaDriverVectors) {
  EXPECT_EQ(shard_of(-9219783007514621794, {4, 12}), 3u);
  EXPECT_EQ(shard_of(9222582454147032830, {4, 12}), 3u);
  // Java 3.x ShardingInfoTest (scylladb/java-driver scylla-3.x): nr_shards 12, ignore_msb 12.
  EXPECT_EQ(shard_of(token_of("a"), {12, 12}), 4u);
  EXPECT_EQ(shard_of(token_of("b"), {12, 12}), 6u);
  EXPECT_EQ(shard_of(token_of("c"), {12, 12}), 6u);
  EXPECT_EQ(shard_of(token_of("e"), {12, 12}), 4u);
  EXPECT_EQ(shard_of(token_of("100000"), {12, 12}), 2u);
  // Edges: the minimum token is shard 0 and the maximum the last shard (msb_ignore 0).
  EXPECT_EQ(shard_of(kMinToken, {8, 0}), 0u);
  EXPECT_EQ(shard_of(kMaxToken, {8, 0}), 7u);
}

}  // namespace
}  // namespace lbsim
