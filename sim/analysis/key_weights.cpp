#include "sim/analysis/key_weights.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/cluster/routing_key.hpp"

namespace lbsim {
namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Generalized harmonic number H(n, s) = sum_{k<=n} k^-s: summed exactly up to 10^7 terms, then
// completed with the Euler-Maclaurin tail.
double harmonic(std::uint64_t n, double s) {
  const std::uint64_t exact = std::min<std::uint64_t>(n, 10'000'000);
  double h = 0;
  for (std::uint64_t k = exact; k >= 1; --k) h += std::pow(static_cast<double>(k), -s);
  if (n > exact) {
    const double a = static_cast<double>(exact), b = static_cast<double>(n);
    const double integral = s == 1.0 ? std::log(b / a) : (std::pow(b, 1 - s) - std::pow(a, 1 - s)) / (1 - s);
    h += integral + 0.5 * (std::pow(b, -s) - std::pow(a, -s));
  }
  return h;
}

}  // namespace

KeyPmf::KeyPmf(const KeySpec& spec) : spec_(spec) {
  if (spec_.kind == KeyDistKind::Zipf) zipf_norm_ = harmonic(spec_.count, spec_.zipf_s);
}

double KeyPmf::operator()(std::uint64_t k) const {
  const KeySpec& spec = spec_;
  const double n = static_cast<double>(spec.count);
  const double kd = static_cast<double>(k);
  switch (spec.kind) {
    case KeyDistKind::Uniform:
    case KeyDistKind::Sequential: return 1.0 / n;
    case KeyDistKind::Gaussian: {
      // round(mean + sd Z) clamped to [1, n].
      const double mean = (1.0 + n) / 2.0, sd = (n - 1.0) / 2.0 / spec.stdvrng;
      if (sd <= 0) return k == static_cast<std::uint64_t>(std::round(mean)) ? 1.0 : 0.0;
      const double hi = k == spec.count ? 1.0 : normal_cdf((kd + 0.5 - mean) / sd);
      const double lo = k == 1 ? 0.0 : normal_cdf((kd - 0.5 - mean) / sd);
      return hi - lo;
    }
    case KeyDistKind::Zipf: return std::pow(kd, -spec.zipf_s) / zipf_norm_;
    case KeyDistKind::Exponential: {
      // 1 + floor(Exp(m)) capped at n.
      const double m = spec.mean_fraction * n;
      if (k == spec.count) return std::exp(-(kd - 1) / m);
      return std::exp(-(kd - 1) / m) - std::exp(-kd / m);
    }
    case KeyDistKind::Hotspot: {
      const double hot = std::clamp(std::ceil(spec.hot_keys * n), 1.0, n);
      if (hot >= n) return 1.0 / n;
      return kd <= hot ? spec.hot_ops / hot : (1.0 - spec.hot_ops) / (n - hot);
    }
  }
  return 0;
}

std::vector<double> range_weights(const TokenRing& ring, const KeySpec& spec, const Sharding* sharding,
                                  std::vector<double>* by_shard) {
  std::vector<double> w(ring.size(), 0.0);
  const std::size_t shards = sharding && by_shard ? sharding->nr_shards : 0;
  if (shards > 0) by_shard->assign(ring.size() * shards, 0.0);
  const std::uint64_t exact = std::min(spec.count, kExactKeys);
  const KeyPmf pmf(spec);
  double mass = 0;
  // Keys in batches (issue 14): on a large ring every key's lookup and weight are cache misses
  // (3,000 nodes x 256 tokens: about a third of `lbsim analyze`), so a batch hashes its keys and
  // prefetches their buckets, then their tokens, then finds the ranges and prefetches their
  // weights, and only then adds, key by key in increasing order as before: every sum is the same.
  constexpr std::uint64_t kBatch = 64;
  std::array<Token, kBatch> tok{};
  std::array<std::size_t, kBatch> rng{};
  for (std::uint64_t first = 1; first <= exact; first += kBatch) {
    const std::size_t n = static_cast<std::size_t>(std::min(kBatch, exact - first + 1));
    for (std::size_t i = 0; i < n; ++i) {
      tok[i] = token_of_key_id(static_cast<std::int64_t>(first + i));
      ring.prefetch_bucket(tok[i]);
    }
    for (std::size_t i = 0; i < n; ++i) ring.prefetch_tokens(tok[i]);
    for (std::size_t i = 0; i < n; ++i) {
      rng[i] = ring.range_index(tok[i]);
      __builtin_prefetch(&w[rng[i]], 1);
      if (shards > 0) __builtin_prefetch(by_shard->data() + rng[i] * shards, 1);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double p = pmf(first + i);
      w[rng[i]] += p;
      if (shards > 0) (*by_shard)[rng[i] * shards + shard_of(tok[i], *sharding)] += p;
      mass += p;
    }
  }
  if (exact < spec.count && mass < 1.0) {
    const long double two64 = 18446744073709551616.0L;
    for (std::size_t r = 0; r < ring.size(); ++r) {
      const double spread = (1.0 - mass) * static_cast<double>(static_cast<long double>(ring.arc(r)) / two64);
      w[r] += spread;
      for (std::size_t s = 0; s < shards; ++s) (*by_shard)[r * shards + s] += spread / static_cast<double>(shards);
    }
  }
  return w;
}

}  // namespace lbsim
