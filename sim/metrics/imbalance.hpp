// Load imbalance of a per-node load vector (coordinator requests, replica operations).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "sim/metrics/run_result.hpp"

namespace lbsim {

struct Imbalance {
  double max_over_mean = 0;  // 1 when perfectly even; 0 for an all-zero vector
  double cov = 0;            // population standard deviation / mean
  double gini = 0;           // 0 = perfectly even, (n-1)/n = everything on one node
};

Imbalance imbalance_of(std::span<const double> load);

// A run's coordinator and replica imbalance over its nodes, or over the nodes of one datacenter
// (a remote DC that never coordinates would otherwise make every local node look hot).
struct RunImbalance {
  Imbalance coordinator, replica;
};
RunImbalance run_imbalance(const RunResult& r, const std::string* dc = nullptr);
// The datacenters of a run's nodes, in node order.
std::vector<std::string> run_dcs(const RunResult& r);

}  // namespace lbsim
