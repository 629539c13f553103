// `lbsim compare`: one table of headline metrics, one column per policy, each value with its
// ratio to a baseline policy. Several reports of one policy (replicate seeds) become mean ± 95%
// CI (Student t), and a difference from the baseline is marked significant only when Welch's
// t-test gives p < 0.05. Reports of different scenarios (name or content hash) or schema versions
// are refused unless `force`: comparing them by mistake is easy and misleading.
#pragma once
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/replicates.hpp"
#include "sim/metrics/run_result.hpp"

namespace lbsim {

enum class CompareFormat { Text, Markdown, Csv, Json };

struct CompareOptions {
  std::string baseline;  // policy name; default: the scenario's first policy (policy.index)
  CompareFormat format = CompareFormat::Text;
  bool force = false;
  std::vector<std::string> files;  // the reports' files (load_reports), to name them in errors
};

struct Metric {
  std::string name;     // "latency p99"
  std::string pointer;  // JSON pointer into a report, "/latency_ms/p99"
  std::string unit;
  bool higher_is_better;
};
const std::vector<Metric>& compare_metrics();

struct Cell {
  Estimate value;
  double ratio = 0;    // mean / baseline mean (NaN when the baseline mean is 0: no ratio)
  double p_value = 1;  // Welch, against the baseline
  bool significant = false;
};

struct Comparison {
  std::string scenario;
  std::string baseline;
  std::vector<std::string> policies;            // column order: the baseline, then scenario order
  std::vector<std::size_t> replicates;          // per policy
  std::vector<Metric> metrics;                  // compare_metrics(), plus the read/write split when both occur
  std::vector<std::vector<Cell>> cells;         // [metric][policy]
  std::vector<std::string> warnings;
  std::vector<std::string> notes;               // how to read a row (e.g. the coordinating DCs of each policy)
};

// One policy's runs as the comparability warnings see them: means over its replicate reports.
struct PolicyLoad {
  std::string name;
  double throughput = 0;                     // successful operations per second
  double window_s = 0;                       // the measurement window (simulated seconds)
  std::array<double, kErrorKinds> errors{};  // failed operations in the window, by kind
  double shed = 0;                           // work items the nodes shed unexecuted (expired)
  std::string loop;                          // "open", "closed", "" (a report without client.loop)
  double rate_ops_s = 0;                     // open loop: the offered rate (0: a trace's own times)
};
PolicyLoad policy_load(const std::string& name, const std::vector<const nlohmann::json*>& reports);
PolicyLoad policy_load(const std::string& name, const std::vector<const nlohmann::ordered_json*>& reports);

// The failed operations by kind, "client_busy 5,041, unavailable 12", or "none".
std::string error_counts(const PolicyLoad& p);

// Why the policies' latencies may not be comparable, each warning naming the cause that applies:
// throughputs more than `tolerance` apart because operations failed or were shed (the error kinds
// and counts), because a closed loop runs each policy at its own load, or, in an open loop
// without errors, because a policy falls behind its arrivals. Empty when comparable.
std::vector<std::string> comparability_warnings(const std::vector<PolicyLoad>& policies, double tolerance = 0.05);

// Report files, or folders searched recursively for *.json documents with schema lbsim.report/1
// (other JSON files in folders are skipped; a named file must be a report). ConfigError on
// unreadable input or when nothing is found.
std::vector<nlohmann::json> load_reports(const std::vector<std::string>& inputs,
                                         std::vector<std::string>* files = nullptr);
Comparison compare_reports(const std::vector<nlohmann::json>& reports, const CompareOptions& opts);
std::string render_comparison(const Comparison& c, CompareFormat format);

}  // namespace lbsim
