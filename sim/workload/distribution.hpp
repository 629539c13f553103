// A distribution of durations (service times, network latencies, think times), sampled from a
// caller's Rng into integer nanoseconds. Plain data plus an inline sampler; the scenario parser
// builds and validates it (all parameters finite and >= 0; lognormal p99/mean in (1, 14.9]).
//
//   constant     value                       always `value`
//   exponential  mean                        -ln(U) * mean
//   lognormal    mean, p99                   exp(mu + sigma Z) with mu, sigma solved from mean and p99
//   empirical    percentile table            inverse CDF, linear between the given points
//
// Every sample draws the same number of uniforms for a given kind (constant: none), so a stream's
// position depends only on the number of samples.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/exp_fma.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

enum class DistKind : std::uint8_t { Constant, Exponential, Lognormal, Empirical };

inline constexpr double kZ99 = 2.3263478740408408;  // standard normal 0.99 quantile

struct Dist {
  DistKind kind = DistKind::Constant;
  double a = 0;  // constant: value ns; exponential: mean ns; lognormal: mu (of ln ns)
  double b = 0;  // lognormal: sigma
  double mean_ns = 0;
  std::vector<std::pair<double, double>> table;  // empirical: (cumulative probability, ns), increasing

  static Dist constant(double ns) { return {DistKind::Constant, ns, 0, ns, {}}; }
  static Dist exponential(double mean) { return {DistKind::Exponential, mean, 0, mean, {}}; }
  // Requires 0 < mean < p99 <= mean * exp(kZ99^2 / 2) (about 14.97 x mean).
  static Dist lognormal(double mean, double p99) {
    const double d = std::log(p99 / mean);              // = z sigma - sigma^2 / 2
    const double sigma = kZ99 - std::sqrt(std::max(0.0, kZ99 * kZ99 - 2.0 * d));
    return {DistKind::Lognormal, std::log(mean) - sigma * sigma / 2.0, sigma, mean, {}};
  }
  static double lognormal_max_ratio() { return std::exp(kZ99 * kZ99 / 2.0); }
  static Dist empirical(std::vector<std::pair<double, double>> points) {
    Dist d{DistKind::Empirical, 0, 0, 0, std::move(points)};
    for (std::size_t i = 1; i < d.table.size(); ++i)
      d.mean_ns += (d.table[i].first - d.table[i - 1].first) * (d.table[i].second + d.table[i - 1].second) / 2.0;
    return d;
  }

  bool is_zero() const { return kind == DistKind::Constant && a <= 0; }

  double sample_ns(Rng& rng) const {
    switch (kind) {
      case DistKind::Constant: return a;
      case DistKind::Exponential: return rng.exponential(a);
      case DistKind::Lognormal:
        // The same value either way: expfma computes glibc's exp as glibc does on FMA CPUs.
        if (expfma::have_fma()) [[likely]] return expfma::lognormal(a, b, rng);
        return std::exp(a + b * rng.normal());
      case DistKind::Empirical: {
        const double u = rng.uniform01();
        auto it = std::upper_bound(table.begin(), table.end(), u,
                                   [](double x, const std::pair<double, double>& p) { return x < p.first; });
        if (it == table.begin()) return table.front().second;
        if (it == table.end()) return table.back().second;
        const auto& hi = *it;
        const auto& lo = *(it - 1);
        const double f = (u - lo.first) / (hi.first - lo.first);
        return lo.second + f * (hi.second - lo.second);
      }
    }
    return 0;
  }
  // Sample scaled by `factor`, rounded to the nearest nanosecond.
  SimTime sample(Rng& rng, double factor = 1.0) const {
    const double v = sample_ns(rng) * factor;
    return v <= 0 ? 0 : static_cast<SimTime>(std::min(v, 1e17) + 0.5);
  }
};

}  // namespace lbsim
