#include "sim/metrics/replicates.hpp"

#include <cmath>

#include <boost/math/distributions/students_t.hpp>

namespace lbsim {

Estimate estimate(std::span<const double> samples) {
  Estimate e;
  e.n = samples.size();
  if (e.n == 0) return e;
  double sum = 0;
  for (double v : samples) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) return e;
  double ss = 0;
  for (double v : samples) ss += (v - e.mean) * (v - e.mean);
  e.sd = std::sqrt(ss / static_cast<double>(e.n - 1));
  const boost::math::students_t t(static_cast<double>(e.n - 1));
  e.half_width = boost::math::quantile(t, 0.975) * e.sd / std::sqrt(static_cast<double>(e.n));
  return e;
}

double welch_p_value(const Estimate& a, const Estimate& b) {
  if (a.n < 2 || b.n < 2) return 1.0;
  const double va = a.sd * a.sd / static_cast<double>(a.n);
  const double vb = b.sd * b.sd / static_cast<double>(b.n);
  if (va + vb == 0) return a.mean == b.mean ? 1.0 : 0.0;
  const double t = (a.mean - b.mean) / std::sqrt(va + vb);
  // Welch-Satterthwaite degrees of freedom.
  const double df = (va + vb) * (va + vb) /
                    (va * va / static_cast<double>(a.n - 1) + vb * vb / static_cast<double>(b.n - 1));
  const boost::math::students_t dist(df);
  return 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
}

}  // namespace lbsim
