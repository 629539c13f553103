#include "sim/workload/key_dist.hpp"

#include <algorithm>
#include <cmath>

namespace lbsim {

namespace {
double helper1(double x) { return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x)); }
double helper2(double x) { return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x)); }
}  // namespace

KeyGenerator::KeyGenerator(const KeySpec& spec) : spec_(spec), n_(static_cast<double>(spec.count)) {
  if (spec_.count == 0) spec_.count = 1;
  hot_count_ = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(spec_.hot_keys * n_)), 1, spec_.count);
  if (spec_.kind == KeyDistKind::Zipf) {
    h_x1_ = h_integral(1.5) - 1.0;
    h_n_ = h_integral(n_ + 0.5);
    s_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
  }
}

double KeyGenerator::h(double x) const { return std::exp(-spec_.zipf_s * std::log(x)); }
double KeyGenerator::h_integral(double x) const {
  const double lx = std::log(x);
  return helper2((1.0 - spec_.zipf_s) * lx) * lx;
}
double KeyGenerator::h_integral_inverse(double x) const {
  double t = x * (1.0 - spec_.zipf_s);
  if (t < -1.0) t = -1.0;
  return std::exp(helper1(t) * x);
}

std::int64_t KeyGenerator::next(Rng& rng) {
  const std::uint64_t n = spec_.count;
  switch (spec_.kind) {
    case KeyDistKind::Uniform: return static_cast<std::int64_t>(rng.below(n) + 1);
    case KeyDistKind::Gaussian: {
      const double mean = (1.0 + n_) / 2.0;
      const double sd = (n_ - 1.0) / 2.0 / spec_.stdvrng;
      const double v = std::round(mean + sd * rng.normal());
      return static_cast<std::int64_t>(std::clamp(v, 1.0, n_));
    }
    case KeyDistKind::Zipf: {
      for (;;) {
        const double u = h_n_ + rng.uniform01() * (h_x1_ - h_n_);
        const double x = h_integral_inverse(u);
        double k = std::floor(x + 0.5);
        k = std::clamp(k, 1.0, n_);
        if (k - x <= s_ || u >= h_integral(k + 0.5) - h(k)) return static_cast<std::int64_t>(k);
      }
    }
    case KeyDistKind::Exponential: {
      const double v = 1.0 + std::floor(rng.exponential(spec_.mean_fraction * n_));
      return static_cast<std::int64_t>(std::min(v, n_));
    }
    case KeyDistKind::Sequential: {
      const std::uint64_t k = seq_ % n + 1;
      ++seq_;
      return static_cast<std::int64_t>(k);
    }
    case KeyDistKind::Hotspot: {
      const double u = rng.uniform01();
      if (u < spec_.hot_ops || hot_count_ >= n) {
        // Reuse the uniform's position inside the hot band: no second draw.
        const double f = spec_.hot_ops > 0 ? std::min(u / spec_.hot_ops, 1.0 - 1e-16) : 0.0;
        return static_cast<std::int64_t>(std::min<std::uint64_t>(
            static_cast<std::uint64_t>(f * static_cast<double>(hot_count_)), hot_count_ - 1) + 1);
      }
      const double f = (u - spec_.hot_ops) / (1.0 - spec_.hot_ops);
      const std::uint64_t cold = n - hot_count_;
      return static_cast<std::int64_t>(hot_count_ + 1 +
                                       std::min<std::uint64_t>(static_cast<std::uint64_t>(f * static_cast<double>(cold)), cold - 1));
    }
  }
  return 1;
}

}  // namespace lbsim
