// Quantiles of bucketed samples, the lognormal and gamma fits, and the special functions they need.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/fit/fit.hpp"

namespace lbsim::fit {
namespace {
constexpr double kProbes[] = {0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 0.999};
}

std::optional<double> bucket_quantile(const Sample& s, double p) {
  const double n = s.total();
  if (n <= 0) return std::nullopt;
  const double target = p * n;
  double cum = 0;
  for (std::size_t i = 0; i < s.count.size(); ++i) {
    const double c = s.count[i];
    if (c > 0 && cum + c >= target) {
      if ((i == 0 && s.floor_first) || !std::isfinite(s.hi[i])) return std::nullopt;
      const double f = (target - cum) / c;
      return s.lo[i] + f * (s.hi[i] - s.lo[i]);
    }
    cum += c;
  }
  return std::nullopt;
}

QuantilePoints quantile_points(const Sample& s) {
  QuantilePoints q;
  if (!s.count.empty()) {
    q.n = s.total();
    if (q.n <= 0) return q;
    if (s.floor_first) q.floor_share = s.count[0] / q.n;
    for (double p : kProbes) {
      if (q.n * std::min(p, 1 - p) < 5) continue;  // too few values beyond the point
      if (auto v = bucket_quantile(s, p); v && *v > 0) q.points.push_back({p, *v});
    }
    const bool censored = (s.floor_first && s.count[0] > 0) || (!s.hi.empty() && !std::isfinite(s.hi.back()) && s.count.back() > 0);
    if (s.mean_us) {
      q.mean_us = s.mean_us;
    } else if (!censored) {
      double sum = 0;
      for (std::size_t i = 0; i < s.count.size(); ++i) sum += s.count[i] * (s.lo[i] + s.hi[i]) / 2.0;
      q.mean_us = sum / q.n;
    }
  } else {
    for (const auto& pt : s.quantiles)
      if (pt.second > 0) q.points.push_back(pt);
    std::sort(q.points.begin(), q.points.end());
    q.mean_us = s.mean_us;
  }
  return q;
}

double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double gamma_p(double a, double x) {
  if (x <= 0) return 0;
  const double lead = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1) {  // series: sum over n of x^n / (a (a+1) ... (a+n))
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 1000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (std::abs(term) < std::abs(sum) * 1e-15) break;
    }
    return std::min(1.0, sum * std::exp(lead));
  }
  // Q(a, x) by its continued fraction, evaluated with the modified Lentz method.
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < 1e-15) break;
  }
  return std::max(0.0, 1.0 - std::exp(lead) * h);
}

double gamma_quantile(double a, double p) {
  double hi = std::max(1.0, a);
  while (gamma_p(a, hi) < p && hi < 1e12) hi *= 2;
  double lo = 0;
  for (int i = 0; i < 80; ++i) {
    const double mid = (lo + hi) / 2;
    (gamma_p(a, mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double DistFit::quantile(double p) const {
  if (family == "lognormal") return std::exp(a + b * normal_quantile(p));
  if (family == "gamma") return b * gamma_quantile(a, p);
  return 0;
}

namespace {
double error_of(const DistFit& f, const QuantilePoints& q) {
  double e = 0;
  for (const auto& [p, v] : q.points) e = std::max(e, std::abs(f.quantile(p) / v - 1));
  if (q.mean_us && *q.mean_us > 0) e = std::max(e, std::abs(f.mean_us / *q.mean_us - 1));
  return e;
}
}  // namespace

DistFit fit_lognormal(const QuantilePoints& q) {
  DistFit f;
  if (q.points.size() < 2) return f;
  // Least squares of ln(quantile) on the normal quantile: ln q_p = mu + sigma z_p.
  double sz = 0, sy = 0, szz = 0, szy = 0;
  const double n = static_cast<double>(q.points.size());
  for (const auto& [p, v] : q.points) {
    const double z = normal_quantile(p), y = std::log(v);
    sz += z;
    sy += y;
    szz += z * z;
    szy += z * y;
  }
  const double den = n * szz - sz * sz;
  if (den <= 0) return f;
  f.family = "lognormal";
  f.b = std::max(1e-6, (n * szy - sz * sy) / den);
  f.a = (sy - f.b * sz) / n;
  f.mean_us = std::exp(f.a + f.b * f.b / 2);
  f.p99_us = f.quantile(0.99);
  f.error = error_of(f, q);
  return f;
}

DistFit fit_gamma(const QuantilePoints& q) {
  DistFit best;
  if (q.points.size() < 2) return best;
  // For each shape on a log grid, the scale that matches the quantiles in log space; the shape
  // with the smallest error wins.
  for (int i = 0; i <= 160; ++i) {
    const double k = std::exp(std::log(0.05) + (std::log(500.0) - std::log(0.05)) * i / 160.0);
    double s = 0;
    std::vector<double> g;
    for (const auto& [p, v] : q.points) {
      g.push_back(gamma_quantile(k, p));
      s += std::log(v) - std::log(g.back());
    }
    DistFit f;
    f.family = "gamma";
    f.a = k;
    f.b = std::exp(s / static_cast<double>(q.points.size()));
    f.mean_us = k * f.b;
    f.p99_us = f.b * gamma_quantile(k, 0.99);
    f.error = error_of(f, q);
    if (f.error < best.error) best = f;
  }
  return best;
}

}  // namespace lbsim::fit
