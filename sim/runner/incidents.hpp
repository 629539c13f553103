// The incident gallery (configs/incidents/, docs/incidents.md): runs an incident scenario's
// policies that its figure reads and compares the figure with the published one. Used by
// `lbsim incidents` and tests/incidents_test.cpp.
#pragma once
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/incident.hpp"

namespace lbsim {

struct IncidentOutcome {
  std::string name;  // the scenario's name
  std::string file;
  Reproduces rep;
  bool quick = false;            // run with reproduces.test_set
  std::optional<double> value;   // lbsim's figure (none without a figure, or when it failed: `error`)
  std::string error;
  bool pass = false;             // status reproduced and the figure within tolerance
  std::map<std::string, nlohmann::json> reports;  // policy -> lbsim.report/1 (without "engine")
};

// The *.json files of `dir`, sorted by name. A missing folder is a ConfigError.
std::vector<std::string> incident_files(const std::string& dir);

// Loads the scenario (with reproduces.test_set when `quick`), runs the policies its figure reads
// (none when it has no figure) at the scenario's seed, and evaluates the figure. A
// scenario without `reproduces` is a ConfigError.
IncidentOutcome run_incident(const std::string& file, bool quick, const std::atomic<bool>* cancel = nullptr);

}  // namespace lbsim
