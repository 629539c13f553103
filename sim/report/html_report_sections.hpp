// Internal to the HTML report (html_report*.cpp): the chart sections. See html_report.hpp for
// the ids they carry.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// "mean ± ci" with short numbers; plain mean when ci is 0.
std::string mean_ci(double mean, double ci);

}  // namespace lbsim::html
