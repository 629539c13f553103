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

// Coordinator requests and replica work items of one datacenter's nodes.
struct DcLoad {
  std::uint64_t coordinator = 0, replica = 0;
};
DcLoad dc_load(const RunResult& r, const std::string& dc);

// The headline imbalance: over the datacenters that coordinate, those that received at least a
// tenth as many coordinator requests as the busiest one (so a DC that never coordinates, or only
// catches a trickle of failovers, does not count), each measure the largest of those DCs' figures
// (by max/mean; its CoV and Gini come with it). With one DC it is the all-node figure. An all-node
// mean would count the nodes of a DC that never coordinates: with two DCs and LOCAL_QUORUM an
// even policy would show coordinator max/mean 2.
struct HeadlineImbalance {
  std::vector<std::string> dcs;  // the coordinating DCs, in node order (empty: no coordinator requests)
  Imbalance coordinator, replica;
};
HeadlineImbalance headline_imbalance(const RunResult& r);
// How a headline names its DCs: "dc1", "max of dc1, dc2", or "none".
std::string headline_scope(const std::vector<std::string>& dcs);

}  // namespace lbsim
