// The analytic load model applied to a scenario: one LoadModel per policy, with the scenario's
// ring, key distribution, read/write mix and consistency levels, unrouted fraction, node service
// times and capacities (shards x speed). Faults, retries and traces are not modelled: the result
// says so in `notes`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/analysis/load_model.hpp"
#include "sim/analysis/node_cache.hpp"
#include "sim/config/scenario.hpp"

namespace lbsim {

struct PolicyModel {
  std::string name;
  LoadModel model;
  // cluster.cache set (and the policy modelled): per-node Che (node_cache.hpp). Absent otherwise,
  // and then nothing of it is printed.
  std::optional<CacheModel> cache;
};

struct ScenarioModel {
  std::vector<PolicyModel> policies;
  std::vector<std::string> notes;
};

// `only`: model just these policies (by name); the others get `modelled = false` with the reason
// "not requested", so `policies` stays indexed like the scenario's. nullptr: all.
ScenarioModel analyze_scenario(const Scenario& sc, const std::vector<std::string>* only = nullptr);
nlohmann::ordered_json scenario_model_json(const Scenario& sc, const ScenarioModel& m);
std::string scenario_model_text(const Scenario& sc, const ScenarioModel& m);

}  // namespace lbsim

namespace lbsim {

struct RunResult;

// Simulated against expected, per node: shares and z-scores under multinomial sampling of
// operations (z = (count - N p) / sqrt(N p (1 - p))).
struct NodeGap {
  double coordinator_sim = 0, coordinator_model = 0, coordinator_z = 0;
  double reads_sim = 0, reads_model = 0, reads_z = 0;     // replica reads per operation
  double writes_sim = 0, writes_model = 0, writes_z = 0;  // replica writes per operation
};
std::vector<NodeGap> model_gaps(const LoadModel& model, const RunResult& run);
std::string model_gap_text(const Topology& topo, const LoadModel& model, const RunResult& run);

}  // namespace lbsim
