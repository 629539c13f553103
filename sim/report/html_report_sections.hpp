// Internal to the HTML report (html_report*.cpp): the chart sections. See html_report.hpp for
// the ids they carry.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/svg.hpp"

namespace lbsim::html {

// One policy's run reports (replicate seeds), sorted by seed.
struct PolicyRuns {
  std::string name;
  std::vector<const nlohmann::json*> runs;
};

std::string figure(const std::string& id, const std::string& svg, const std::string& caption);
std::string section(const std::string& id, const std::string& title, const std::string& body);

// sec-load, sec-latency, sec-timeline.
std::string load_section(const std::vector<PolicyRuns>& policies);
std::string latency_section(const std::vector<PolicyRuns>& policies);
std::string timeline_section(const std::vector<PolicyRuns>& policies);
// sec-sweep-<index>.
std::string sweep_section(const nlohmann::json& sweep, std::size_t index);

// Latency on a log axis when the chart's positive y values span more than 20x (runs' p99 over time,
// sweeps' latency charts): otherwise a 2 ms line lies flat at zero under a 2,000 ms one. The y
// label gets ", log scale" inside its closing parenthesis ("p99 latency (ms, log scale)").
void log_axis_beyond_20x(svg::LineChart& c);

// "mean ± ci" with short numbers; plain mean when ci is 0.
std::string mean_ci(double mean, double ci);

}  // namespace lbsim::html
