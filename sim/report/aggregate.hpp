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
//    "seeds": [s1, ...], "metrics": {id: aggregated, ...}, "imbalance_scope"?: label}
// lbsim.sweep/1 (a grid of parameter points, each with every policy):
//   {"schema": "lbsim.sweep/1", "scenario": {"name", "hash"}, "parameters": ["client.threads", ...],
//    "seeds": K, "points": [{"values": {"client.threads": 8, ...},
//                            "policies": {"<policy>": {"metrics": {id: aggregated, ...},
//                                                      "imbalance_scope"?: label}}}, ...]}
// "imbalance_scope" (imbalance_scope() below) only with several DCs.
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

// Whose imbalance the reports' "imbalance" figures are (their headline: the DCs that coordinate),
// as a label: "" when the cluster has one DC (there it is every node), else "dc1", "max of dc1,
// dc2", or "all nodes" for reports older than the headline; " / "-joined when reports differ.
std::string imbalance_scope(const std::vector<const nlohmann::json*>& reports);

// The suffix of an imbalance row's label over documents with these scopes ("" entries ignored):
// "" when none is set, " (dc1)" when they agree, else " (coordinating DCs)".
std::string imbalance_label_suffix(const std::vector<std::string>& scopes);

// The "imbalance_scope" of every policy at every point of an lbsim.sweep/1 document.
std::vector<std::string> sweep_imbalance_scopes(const nlohmann::json& sweep);

// A whole lbsim.aggregate/1 document; `reports` must share scenario and policy.
nlohmann::ordered_json aggregate_document(const std::vector<nlohmann::json>& reports);

}  // namespace lbsim
