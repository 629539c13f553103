// Statistics over replicate runs (seeds): mean with a Student-t 95% confidence interval, and
// Welch's unequal-variance t-test for "is this policy different from the baseline?".
// Quantiles and the t distribution come from Boost.Math.
#pragma once
#include <span>

namespace lbsim {

struct Estimate {
  std::size_t n = 0;
  double mean = 0;
  double sd = 0;          // sample standard deviation (n - 1); 0 for n < 2
  double half_width = 0;  // 95% CI half width: t(0.975, n-1) sd / sqrt(n); 0 for n < 2
};

Estimate estimate(std::span<const double> samples);

// Two-sided p-value of Welch's t-test; 1 when either side has fewer than 2 samples or both have
// zero variance with equal means; 0 when both have zero variance and different means.
double welch_p_value(const Estimate& a, const Estimate& b);

}  // namespace lbsim
