// Java's String.hashCode and the iteration orders of ConcurrentHashMap and HashSet: see
// java_hash_order.hpp.
#include "policies/java3/java_hash_order.hpp"

#include <algorithm>

namespace lbsim::policy::java {
namespace {

std::uint32_t spread(std::int32_t h) {
  const auto u = static_cast<std::uint32_t>(h);
  return u ^ (u >> 16);
}

// UTF-8 -> UTF-16 code units, folded into the hash as they come.
struct Hasher {
  std::uint32_t h = 0;
  void unit(std::uint32_t u) { h = 31 * h + u; }
  void code_point(std::uint32_t cp) {
    if (cp < 0x10000) {
      unit(cp);
    } else {
      cp -= 0x10000;
      unit(0xD800 + (cp >> 10));
      unit(0xDC00 + (cp & 0x3FF));
    }
  }
};

}  // namespace

std::int32_t string_hash(std::string_view s) {
  Hasher hs;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    std::uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1Fu) : len == 3 ? (b & 0x0Fu) : (b & 0x07u);
    bool ok = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c >> 6) != 0x2) ok = false;
      else cp = (cp << 6) | (c & 0x3Fu);
    }
    if (ok && ((len == 2 && cp < 0x80) || (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
               (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))))
      ok = false;
    if (!ok) {
      hs.unit(0xFFFD);
      ++i;
      continue;
    }
    hs.code_point(cp);
    i += len;
  }
  return static_cast<std::int32_t>(hs.h);
}

std::vector<std::uint32_t> hash_set_copy_order(std::span<const std::string> keys) {
  std::vector<std::uint32_t> hash(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) hash[k] = spread(string_hash(keys[k])) & 0x7fffffffu;
  using Bins = std::vector<std::vector<std::uint32_t>>;
  // ConcurrentHashMap.transfer(): each bin splits on the bit n; the run after the last change of
  // that bit keeps its order, the nodes before it are prepended one by one to their half.
  auto transfer = [&](const Bins& bins) {
    const std::size_t n = bins.size();
    Bins next(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& f = bins[i];
      if (f.empty()) continue;
      std::size_t last_run = 0;
      for (std::size_t p = 1; p < f.size(); ++p)
        if ((hash[f[p]] & n) != (hash[f[last_run]] & n)) last_run = p;
      auto& run_half = (hash[f[last_run]] & n) == 0 ? next[i] : next[i + n];
      run_half.assign(f.begin() + static_cast<std::ptrdiff_t>(last_run), f.end());
      for (std::size_t p = 0; p < last_run; ++p) {
        auto& half = (hash[f[p]] & n) == 0 ? next[i] : next[i + n];
        half.insert(half.begin(), f[p]);
      }
    }
    return next;
  };
  // put(): appended to its bin. A bin that already held 8 nodes is treeified, or, below 64 bins,
  // the table is presized instead (treeifyBin -> tryPresize(2n): resized until 3/4 of it reaches
  // tableSizeFor(3n + 1)); then addCount resizes once size >= sizeCtl (3/4 n).
  Bins bins(16);
  std::size_t size = 0;
  for (std::uint32_t k = 0; k < keys.size(); ++k) {
    auto& bin = bins[hash[k] & (bins.size() - 1)];
    const std::size_t before = bin.size();
    bin.push_back(k);
    ++size;
    if (before >= 8 && bins.size() < 64) {
      std::size_t c = 1;
      while (c < 3 * bins.size() + 1) c <<= 1;
      while (bins.size() - (bins.size() >> 2) < c) bins = transfer(bins);
    }
    if (size >= bins.size() - (bins.size() >> 2)) bins = transfer(bins);
  }
  // new HashSet<>(c): a HashMap of capacity tableSizeFor(max((int) (size / .75f) + 1, 16)), filled
  // in the map's iteration order; a bucket reaching 9 nodes below 64 buckets doubles the table
  // (treeifyBin -> resize, which keeps each bucket's order).
  const auto want = std::max<std::size_t>(static_cast<std::size_t>(static_cast<float>(size) / .75f) + 1, 16);
  std::size_t cap = 1;
  while (cap < want) cap <<= 1;
  std::vector<std::uint32_t> order;  // insertion order into the copy
  for (const auto& bin : bins) order.insert(order.end(), bin.begin(), bin.end());
  std::vector<std::size_t> count(cap, 0);
  for (std::uint32_t k : order) {
    if (count[hash[k] & (cap - 1)]++ >= 8 && cap < 64) {
      cap <<= 1;
      count.assign(cap, 0);
      for (std::uint32_t j : order) {
        if (j == k) break;
        ++count[hash[j] & (cap - 1)];
      }
      ++count[hash[k] & (cap - 1)];
    }
  }
  Bins buckets(cap);
  for (std::uint32_t k : order) buckets[hash[k] & (cap - 1)].push_back(k);
  std::vector<std::uint32_t> out;
  out.reserve(keys.size());
  for (const auto& b : buckets) out.insert(out.end(), b.begin(), b.end());
  return out;
}

}  // namespace lbsim::policy::java
