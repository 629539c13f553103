#include "sim/analysis/che.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/analysis/key_weights.hpp"

namespace lbsim {

namespace {

// f(T) of eq. (1) and T f'(T) = df/d(log T), over the items that count (rate > 0, size <= C).
struct Eval {
  double f = 0, df_dlog = 0;
};
Eval evaluate(std::span<const double> rates, std::span<const double> sizes, double cap, double t) {
  Eval e;
  for (std::size_t k = 0; k < rates.size(); ++k) {
    const double l = rates[k], s = sizes[k];
    if (!(l > 0) || s > cap) continue;
    const double x = l * t;
    const double q = std::exp(-x);
    e.f += s * -std::expm1(-x);  // 1 - e^-x, exact for small x
    e.df_dlog += s * x * q;
  }
  return e;
}

}  // namespace

CheResult che_lru(std::span<const double> rates, std::span<const double> sizes, double cap) {
  CheResult r;
  double total_rate = 0, fit_size = 0, size_rate = 0;
  for (std::size_t k = 0; k < rates.size(); ++k) {
    total_rate += rates[k];
    if (!(rates[k] > 0) || sizes[k] > cap) continue;
    fit_size += sizes[k];
    size_rate += sizes[k] * rates[k];
  }
  if (!(total_rate > 0)) return r;
  if (fit_size <= cap) {
    // Nothing is ever evicted: every item that fits hits once cached (steady state).
    r.fits = true;
    r.t = std::numeric_limits<double>::infinity();
    r.occupancy = fit_size;
    double hit = 0;
    for (std::size_t k = 0; k < rates.size(); ++k)
      if (rates[k] > 0 && sizes[k] <= cap) hit += rates[k];
    r.hit_rate = hit / total_rate;
    return r;
  }
  // Bracket: f(lo) <= C < f(hi) in log T.
  double lo = std::log(cap / size_rate);
  double hi = lo + 1.0;
  for (; evaluate(rates, sizes, cap, std::exp(hi)).f <= cap; hi += hi - lo) ++r.iterations;
  double u = 0.5 * (lo + hi);
  for (int i = 0; i < 200; ++i) {
    ++r.iterations;
    const Eval e = evaluate(rates, sizes, cap, std::exp(u));
    const double g = e.f - cap;
    if (std::abs(g) <= 1e-12 * cap || hi - lo < 1e-14) break;
    if (g < 0) lo = u; else hi = u;
    double next = e.df_dlog > 0 ? u - g / e.df_dlog : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);  // safeguard: bisection
    u = next;
  }
  r.t = std::exp(u);
  double hit = 0;
  for (std::size_t k = 0; k < rates.size(); ++k) {
    if (!(rates[k] > 0) || sizes[k] > cap) continue;
    hit += rates[k] * -std::expm1(-rates[k] * r.t);
    r.occupancy += sizes[k] * -std::expm1(-rates[k] * r.t);
  }
  r.hit_rate = hit / total_rate;
  return r;
}

CheResult che_lru_keys(std::uint64_t count, const std::function<double(std::uint64_t)>& popularity,
                       const std::function<double(std::uint64_t)>& size, double cap) {
  std::vector<double> rates(count), sizes(count);
  for (std::uint64_t k = 1; k <= count; ++k) {
    rates[k - 1] = popularity(k);
    sizes[k - 1] = size(k);
  }
  return che_lru(rates, sizes, cap);
}

CheResult che_lru_keyspec(const KeySpec& spec, double entry_bytes, double cap) {
  const KeyPmf pmf(spec);
  return che_lru_keys(spec.count, [&](std::uint64_t k) { return pmf(k); }, [&](std::uint64_t) { return entry_bytes; },
                      cap);
}

double che_warmup_hit_rate(std::span<const double> rates, std::span<const double> sizes, double cap,
                           const CheResult& che, double t) {
  const double age = std::min(t, che.t);
  double total = 0, hit = 0;
  for (std::size_t k = 0; k < rates.size(); ++k) {
    if (!(rates[k] > 0)) continue;
    total += rates[k];
    if (sizes[k] <= cap) hit += rates[k] * -std::expm1(-rates[k] * age);
  }
  return total > 0 ? hit / total : 0.0;
}

double che_cold_hit_rate(std::span<const double> rates, double horizon) {
  double total = 0, distinct = 0;
  for (double l : rates) {
    if (!(l > 0)) continue;
    total += l;
    distinct += -std::expm1(-l * horizon);
  }
  if (!(total > 0) || !(horizon > 0)) return 0;
  return 1.0 - distinct / (total * horizon);
}

}  // namespace lbsim
