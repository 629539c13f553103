// Aggregates over replicate seeds and sweep grids: the documents `lbsim run --seeds K` and
// `lbsim sweep` write, and `lbsim compare` / `lbsim report` read.
//
// Metric ids name report fields by their JSON path with dots: "throughput_ops_s",
// "latency_ms.p99", "errors.total", "imbalance.coordinator.gini", "client.cpu_utilization", ...
// (aggregate_metric_ids() lists them). Each aggregated metric is
//   {"n": K, "mean": m, "sd": s, "ci95": half width (Student t), "min": a, "max": b}.
//
// lbsim.aggregate/1 (one policy over K seeds):
//   {"schema": "lbsim.aggregate/1", "scenario": {"name", "hash"}, "policy": {"name", "spec"},
//    "seeds": [s1, ...], "metrics": {id: aggregated, ...}}
// lbsim.sweep/1 (a grid of parameter points, each with every policy):
//   {"schema": "lbsim.sweep/1", "scenario": {"name", "hash"}, "parameters": ["client.threads", ...],
//    "seeds": K, "points": [{"values": {"client.threads": 8, ...},
//                            "policies": {"<policy>": {"metrics": {id: aggregated, ...}}}}, ...]}
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lbsim {

inline constexpr const char* kAggregateSchema = "lbsim.aggregate/1";
inline constexpr const char* kSweepSchema = "lbsim.sweep/1";

const std::vector<std::string>& aggregate_metric_ids();

// The "metrics" object over reports of one policy (lbsim.report/1 documents, any seed order;
// the result does not depend on the order).
nlohmann::ordered_json aggregate_metrics(const std::vector<nlohmann::json>& reports);

// A whole lbsim.aggregate/1 document; `reports` must share scenario and policy.
nlohmann::ordered_json aggregate_document(const std::vector<nlohmann::json>& reports);

}  // namespace lbsim
