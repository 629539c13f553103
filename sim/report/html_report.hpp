// `lbsim report`: one self-contained HTML page (inline CSS and SVG; no scripts, fonts or URLs)
// over a folder of lbsim.report/1 run reports, lbsim.aggregate/1 replicate aggregates and
// lbsim.sweep/1 sweep documents.
//
// The page holds, for run reports: a scenario summary, the `lbsim compare` table (computed by
// compare_reports, not here), per-node coordinator and replica load bars per policy with each
// policy's mean, latency percentile curves (HDR style, log "percentile" axis to 99.99 %, decoded
// from each report's "histogram" buckets; replicate seeds are merged), and throughput, p99 and
// requests per node over scenario time (the scenario's events marked at their times; p99 on a
// log axis beyond a 20x range; one scale for every policy's per-node chart; a note instead of a
// chart of fewer than 3 points). Aggregates get a table of mean ± 95 % CI; each sweep gets one
// line chart per metric against the swept parameter, one line per policy (latency on a log axis
// beyond a 20x range, as for runs; CPU fractions as percentages). The summary's seeds column is
// the number of seeds with the seeds named ("1 (seed 5)"), its client CPU a percentage, as in the
// text report. Tick labels take the precision their step needs, so no two read alike.
//
// Stable hooks for tests and styling: every chart is an <svg class="chart"> inside a
// <figure class="chart-figure" id="fig-..."> inside a <section class="report-section" id="sec-...">:
//   sec-summary, sec-compare (table), sec-load (fig-coordinator-load, fig-replica-load),
//   sec-latency (fig-latency-percentiles), sec-timeline (fig-throughput-time, fig-p99-time),
//   sec-aggregates (table), sec-sweep-<n> (fig-sweep-<n>-<metric id with dots as dashes>).
//
// Contract: the output is a pure function of the documents (folders are read in sorted path order,
// sweeps are ordered by content): the same inputs give byte-identical HTML. No timestamps.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/histogram.hpp"

namespace lbsim {

struct ReportInputs {
  std::vector<nlohmann::json> reports;     // lbsim.report/1
  std::vector<std::string> report_files;   // the file of each report (named in errors)
  std::vector<nlohmann::json> aggregates;  // lbsim.aggregate/1
  std::vector<nlohmann::json> sweeps;      // lbsim.sweep/1
  // Run reports found under a sweep document's folder and of the sweep's scenario: the sweep's
  // own grid runs (`lbsim sweep --out DIR` writes them there). They are shown through the sweep,
  // not mixed into the run sections (their scenarios differ by the swept values).
  std::size_t sweep_runs = 0;
};

struct HtmlReportOptions {
  std::string baseline;  // compare-table baseline policy; default: the first policy
  bool force = false;    // as `lbsim compare --force`: mix scenarios/schemas with a warning
};

// Files, or folders searched recursively (sorted paths) for *.json documents, classified by their
// "schema". Other JSON files in folders are skipped; a named file must be one of the three kinds.
// Reports of a sweep's grid (see sweep_runs) are counted, not kept.
// ConfigError when nothing usable is found or a named file is unreadable.
ReportInputs load_report_inputs(const std::vector<std::string>& inputs);

std::string render_html_report(const ReportInputs& in, const HtmlReportOptions& opts);

// Decodes a report's "histogram" object (non-zero [index, count] buckets of LatencyHistogram's
// log-linear encoding, plus exact min/max) back into a histogram; `mean_ms` restores the sum.
LatencyHistogram histogram_from_report(const nlohmann::json& histogram, double mean_ms);

}  // namespace lbsim
