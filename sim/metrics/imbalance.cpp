#include "sim/metrics/imbalance.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace lbsim {

Imbalance imbalance_of(std::span<const double> load) {
  Imbalance out;
  const std::size_t n = load.size();
  if (n == 0) return out;
  double sum = 0, mx = 0;
  for (double v : load) {
    sum += v;
    mx = std::max(mx, v);
  }
  if (sum <= 0) return out;
  const double mean = sum / static_cast<double>(n);
  double var = 0;
  for (double v : load) var += (v - mean) * (v - mean);
  var /= static_cast<double>(n);
  out.max_over_mean = mx / mean;
  out.cov = std::sqrt(var) / mean;
  std::vector<double> sorted(load.begin(), load.end());
  std::sort(sorted.begin(), sorted.end());
  double weighted = 0;
  for (std::size_t i = 0; i < n; ++i) weighted += static_cast<double>(i + 1) * sorted[i];
  out.gini = 2.0 * weighted / (static_cast<double>(n) * sum) - static_cast<double>(n + 1) / static_cast<double>(n);
  if (out.gini < 0) out.gini = 0;  // rounding of an even vector
  return out;
}

RunImbalance run_imbalance(const RunResult& r, const std::string* dc) {
  std::vector<double> coord, replica;
  for (const auto& n : r.nodes) {
    if (dc != nullptr && n.dc != *dc) continue;
    coord.push_back(static_cast<double>(n.coordinator_ops));
    replica.push_back(static_cast<double>(n.replica_reads + n.replica_writes));
  }
  return {imbalance_of(coord), imbalance_of(replica)};
}

std::vector<std::string> run_dcs(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& n : r.nodes)
    if (std::find(out.begin(), out.end(), n.dc) == out.end()) out.push_back(n.dc);
  return out;
}

DcLoad dc_load(const RunResult& r, const std::string& dc) {
  DcLoad out;
  for (const auto& n : r.nodes)
    if (n.dc == dc) {
      out.coordinator += n.coordinator_ops;
      out.replica += n.replica_reads + n.replica_writes;
    }
  return out;
}

HeadlineImbalance headline_imbalance(const RunResult& r) {
  HeadlineImbalance out;
  const auto dcs = run_dcs(r);
  std::uint64_t busiest = 0;
  for (const auto& dc : dcs) busiest = std::max(busiest, dc_load(r, dc).coordinator);
  if (busiest == 0) return out;
  bool first = true;
  for (const auto& dc : dcs) {
    if (dc_load(r, dc).coordinator * 10 < busiest) continue;
    out.dcs.push_back(dc);
    const RunImbalance i = run_imbalance(r, &dc);
    if (first || i.coordinator.max_over_mean > out.coordinator.max_over_mean) out.coordinator = i.coordinator;
    if (first || i.replica.max_over_mean > out.replica.max_over_mean) out.replica = i.replica;
    first = false;
  }
  return out;
}

std::string headline_scope(const std::vector<std::string>& dcs) {
  if (dcs.empty()) return "none";
  if (dcs.size() == 1) return dcs.front();
  std::string s = "max of ";
  for (std::size_t i = 0; i < dcs.size(); ++i) s += (i ? ", " : "") + dcs[i];
  return s;
}

}  // namespace lbsim
