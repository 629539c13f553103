#include "sim/cluster/murmur3.hpp"

#include <cstring>

namespace lbsim {
namespace {

constexpr std::uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr std::uint64_t kC2 = 0x4cf5ad432745937fULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t fmix(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Java sign-extends a byte before shifting it into place (ring.md 1.2).
inline std::uint64_t signed_byte(std::uint8_t b, int shift) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(b))) << shift;
}

}  // namespace

std::int64_t murmur3_h1(std::span<const std::uint8_t> key) {
  const std::uint8_t* data = key.data();
  const std::size_t len = key.size();
  const std::size_t nblocks = len / 16;
  std::uint64_t h1 = 0, h2 = 0;

  for (std::size_t i = 0; i < nblocks; ++i) {
    std::uint64_t k1 = load_le64(data + 16 * i);
    std::uint64_t k2 = load_le64(data + 16 * i + 8);
    k1 *= kC1;
    k1 = rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
    h1 = rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= kC2;
    k2 = rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
    h2 = rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  const std::uint8_t* tail = data + nblocks * 16;
  const std::size_t rest = len & 15;
  std::uint64_t k1 = 0, k2 = 0;
  for (std::size_t i = rest; i > 8; --i) k2 ^= signed_byte(tail[i - 1], static_cast<int>(8 * (i - 9)));
  if (rest > 8) {
    k2 *= kC2;
    k2 = rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
  }
  for (std::size_t i = (rest < 8 ? rest : 8); i > 0; --i) k1 ^= signed_byte(tail[i - 1], static_cast<int>(8 * (i - 1)));
  if (rest > 0) {
    k1 *= kC1;
    k1 = rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
  }

  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 += h2;
  return static_cast<std::int64_t>(h1);
}

}  // namespace lbsim
