// Load imbalance of a per-node load vector (coordinator requests, replica operations).
#pragma once
#include <span>

namespace lbsim {

struct Imbalance {
  double max_over_mean = 0;  // 1 when perfectly even; 0 for an all-zero vector
  double cov = 0;            // population standard deviation / mean
  double gini = 0;           // 0 = perfectly even, (n-1)/n = everything on one node
};

Imbalance imbalance_of(std::span<const double> load);

}  // namespace lbsim
