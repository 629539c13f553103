// The `reproduces` block of an incident scenario (configs/incidents/<name>.json): which published
// incident the scenario reproduces, the published figure, and how lbsim computes the same figure
// from its reports. `lbsim run` ignores the block (it is not part of the scenario's hash);
// `lbsim incidents` (sim/runner/incidents.hpp) runs the scenario and compares. configs/README.md,
// "Incidents (`reproduces`)", documents every key.
//
// A figure is a small expression over the reports of the scenario's policies (JSON documents of
// schema lbsim.report/1, keyed by policy name):
//   {"kind": "value", "policy": P, "path": "/json/pointer"}           one number of P's report
//   {"kind": "timeline_sum", "policy": P, "field": F, "node": i, "from_s": a, "to_s": b}
//        the sum of timeline.points[].F over the points with a <= t_s < b (F a number, or a
//        per-node array such as coordinator_ops, then its element i)
//   {"kind": "ratio", "num": FIG, "den": FIG}                          num / den
//   {"kind": "change", "new": FIG, "old": FIG}                         new / old - 1
//   {"kind": "max" | "min" | "sum", "of": [FIG, ...]}          (sum: e.g. a rack's coordinator_ops)
// A value or timeline_sum may also name its run: "seed" (the simulation seed instead of the
// scenario's: run-to-run spread as max / min over seeds) and "set" (a list of --set patches, as
// test_set: a comparison of two client settings, e.g. client.connections shard_aware / plain).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/json_reader.hpp"

namespace lbsim {

struct Figure {
  enum class Kind { Value, TimelineSum, Ratio, Change, Max, Min, Sum };
  Kind kind = Kind::Value;
  std::string policy;  // Value, TimelineSum
  std::string path;    // Value: a JSON pointer into the report
  std::string field;   // TimelineSum
  std::optional<std::size_t> node;
  double from_s = 0, to_s = 0;
  std::vector<Figure> of;  // Ratio, Change: {num or new, den or old}; Max, Min, Sum: the operands
  std::optional<std::uint64_t> seed;  // Value, TimelineSum: the run's seed (default: the scenario's)
  std::vector<std::string> set;       // Value, TimelineSum: --set patches of the run (after test_set)
  // The run a Value or TimelineSum reads: the policy name alone without seed and set (so earlier
  // incidents keep their report names), else policy~seed-S~PATH=VALUE...
  std::string run_key() const;
};

// The start of `source` for a finding of lbsim's own, which has no thread.
inline constexpr std::string_view kOwnFinding = "lbsim's own finding";

struct Reproduces {
  std::string source;  // owner/repo#N
  std::string claim;
  double published = 0;
  std::string published_text;  // as the thread writes it ("4:1:1"), optional
  bool reproduced = true;      // status "reproduced" (default) or "not-reproduced"
  std::string reason;          // why not reproduced (required then)
  std::optional<Figure> figure;  // required when reproduced
  double absolute = -1, relative = -1;  // tolerance band: |lbsim - published| <= absolute, or <= relative x |published|
  std::string tolerance_reason;
  std::map<std::string, std::string> setup;  // parameter -> its source in the thread, or "assumed ..."
  std::vector<std::string> test_set;         // --set patches for the test's shortened run
};

// Parses and validates `reproduces` at JSON path `path`; `policies` are the scenario's policy
// names (a figure may only name these) and `nodes` its node count (a timeline_sum's node index).
Reproduces parse_reproduces(const jsonin::Json& j, const std::string& path, const std::vector<std::string>& policies,
                            std::size_t nodes);

// The policies a figure reads, sorted and unique.
std::vector<std::string> figure_policies(const Figure& f);
// The runs a figure reads (one leaf Value or TimelineSum per distinct run_key), sorted by key.
std::vector<Figure> figure_runs(const Figure& f);

// The figure's value on the reports (run_key -> report; the policy name for a run without seed and set). Throws std::runtime_error when a
// report lacks a path or a denominator is zero.
double evaluate_figure(const Figure& f, const std::map<std::string, nlohmann::json>& reports);

// Whether `value` is within the tolerance band around the published figure.
bool within_tolerance(const Reproduces& r, double value);
// The band as text: "± 0.5" or "± 10 %".
std::string tolerance_text(const Reproduces& r);

}  // namespace lbsim
