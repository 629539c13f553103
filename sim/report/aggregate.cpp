#include "sim/report/aggregate.hpp"

#include <algorithm>

#include "sim/metrics/replicates.hpp"

namespace lbsim {

const std::vector<std::string>& aggregate_metric_ids() {
  static const std::vector<std::string> ids{
      "throughput_ops_s",
      "latency_ms.mean",
      "latency_ms.p50",
      "latency_ms.p95",
      "latency_ms.p99",
      "latency_ms.p999",
      "latency_ms.max",
      "errors.total",
      "imbalance.coordinator.max_over_mean",
      "imbalance.coordinator.cov",
      "imbalance.coordinator.gini",
      "imbalance.replica.max_over_mean",
      "imbalance.replica.cov",
      "imbalance.replica.gini",
      "client.cpu_utilization",
      "client.shared_rng_cpu_fraction",
  };
  return ids;
}

nlohmann::ordered_json aggregate_metrics(const std::vector<nlohmann::json>& reports) {
  // Sort by seed so that the floating-point sums do not depend on completion order.
  std::vector<const nlohmann::json*> sorted;
  for (const auto& r : reports) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return a->value("seed", std::uint64_t{0}) < b->value("seed", std::uint64_t{0});
  });
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& id : aggregate_metric_ids()) {
    std::string ptr = "/" + id;
    std::replace(ptr.begin(), ptr.end(), '.', '/');
    const nlohmann::json::json_pointer p(ptr);
    std::vector<double> v;
    for (const auto* r : sorted)
      if (r->contains(p) && (*r)[p].is_number()) v.push_back((*r)[p].get<double>());
    if (v.empty()) continue;
    const Estimate e = estimate(v);
    out[id] = {{"n", e.n},
               {"mean", e.mean},
               {"sd", e.sd},
               {"ci95", e.half_width},
               {"min", *std::min_element(v.begin(), v.end())},
               {"max", *std::max_element(v.begin(), v.end())}};
  }
  return out;
}

nlohmann::ordered_json aggregate_document(const std::vector<nlohmann::json>& reports) {
  nlohmann::ordered_json j;
  j["schema"] = kAggregateSchema;
  if (!reports.empty()) {
    j["scenario"] = reports.front().value("scenario", nlohmann::json::object());
    j["policy"] = reports.front().value("policy", nlohmann::json::object());
  }
  std::vector<std::uint64_t> seeds;
  for (const auto& r : reports) seeds.push_back(r.value("seed", std::uint64_t{0}));
  std::sort(seeds.begin(), seeds.end());
  j["seeds"] = seeds;
  j["metrics"] = aggregate_metrics(reports);
  return j;
}

}  // namespace lbsim
