#include "sim/cluster/murmur3.hpp"

#include <bit>
#include <cstring>

namespace lbsim {
namespace {

using murmur3_detail::fmix, murmur3_detail::kC1, murmur3_detail::kC2;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

// The tail word of `n` (1..8) bytes: the zero-padded little-endian bytes as Java's signed bytes.
inline std::uint64_t tail_word(const std::uint8_t* p, std::size_t n) {
  std::uint64_t v = 0;
  if (n == 8) {
    v = load_le64(p);
  } else {
    for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  }
  return murmur3_detail::java_signed_bytes(v);
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
  if (rest > 8) {
    std::uint64_t k2 = tail_word(tail + 8, rest - 8);
    k2 *= kC2;
    k2 = rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
  }
  if (rest > 0) {
    std::uint64_t k1 = tail_word(tail, rest < 8 ? rest : 8);
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
