#include "sim/report/aggregate.hpp"

#include <algorithm>

#include "sim/metrics/imbalance.hpp"
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
      // cluster.cache only (reports without a cache have none: the aggregate leaves them out).
      "cache.hit_rate",
      "cache.misses_per_s",
      "cache.miss_overcommit",
      "cache.copies_per_key",
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

std::string imbalance_scope(const std::vector<const nlohmann::json*>& reports) {
  bool several = false;
  std::vector<std::string> seen;
  for (const nlohmann::json* r : reports) {
    const nlohmann::json::json_pointer by_dc("/imbalance_by_dc"), dcs("/imbalance/dcs");
    several = several || (r->contains(by_dc) && (*r)[by_dc].is_object() && (*r)[by_dc].size() > 1);
    // Reports without "dcs" predate the headline: their "imbalance" is over all nodes.
    std::string s = "all nodes";
    if (r->contains(dcs) && (*r)[dcs].is_array()) {
      std::vector<std::string> names;
      for (const auto& d : (*r)[dcs]) names.push_back(d.is_string() ? d.get<std::string>() : d.dump());
      s = headline_scope(names);
    }
    if (std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(s);
  }
  std::string out;
  for (const auto& s : seen) out += (out.empty() ? "" : " / ") + s;
  return several ? out : "";
}

std::string imbalance_label_suffix(const std::vector<std::string>& scopes) {
  std::vector<std::string> seen;
  for (const auto& s : scopes)
    if (!s.empty() && std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(s);
  if (seen.empty()) return "";
  return seen.size() == 1 ? " (" + seen.front() + ")" : " (coordinating DCs)";
}

std::vector<std::string> sweep_imbalance_scopes(const nlohmann::json& sweep) {
  std::vector<std::string> out;
  if (!sweep.contains("points") || !sweep["points"].is_array()) return out;
  for (const auto& pt : sweep["points"])
    if (pt.is_object() && pt.contains("policies") && pt["policies"].is_object())
      for (const auto& pol : pt["policies"])
        if (pol.is_object() && pol.contains("imbalance_scope") && pol["imbalance_scope"].is_string())
          out.push_back(pol["imbalance_scope"].get<std::string>());
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
  std::vector<const nlohmann::json*> ptrs;
  for (const auto& r : reports) ptrs.push_back(&r);
  if (const std::string s = imbalance_scope(ptrs); !s.empty()) j["imbalance_scope"] = s;
  return j;
}

}  // namespace lbsim
