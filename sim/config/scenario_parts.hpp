// Private to sim/config: the parsers of the scenario's sections (scenario.cpp assembles them).
// Each takes the section's JSON and its path and throws ConfigError naming the offending field.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "sim/config/scenario.hpp"

namespace lbsim::scenario_detail {

using jsonin::Json;

// A duration distribution in microseconds: a bare number (constant) or
// {"dist": "constant", "us"} | {"dist": "exponential", "mean_us"} |
// {"dist": "lognormal", "mean_us", "p99_us"} | {"dist": "empirical", "percentiles": [[p, us], ...]}.
// A distribution's unit in a scenario: its key ("us": "us", "mean_us", "p99_us"), its noun in
// errors, the factor to the engine's unit, and the bounds of values (a lognormal's mean has its own
// lower bound).
struct DistUnit {
  const char* key;
  const char* noun;
  double scale;
  double min;
  double lognormal_mean_min;
  double max;
};
Dist parse_dist_in(const Json& j, const std::string& path, const DistUnit& u);
Dist parse_dist(const Json& j, const std::string& path);  // microseconds

// Keys of "cluster" besides the topology ones (the mechanisms' among them: sim/mech/specs.inc).
const std::vector<std::string>& node_model_keys();
NodeModelSpec parse_node_model(const Json& cluster, const std::string& path, const Topology& topo,
                               const std::optional<Sharding>& sharding);
NetworkSpec parse_network(const Json* j, const std::string& path, const Topology& topo);
TimeoutSpec parse_timeouts(const Json* j, const std::string& path);
RetrySpec parse_retry(const Json* j, const std::string& path);
FaultSpec parse_faults(const Json* j, const std::string& path, const Topology& topo, const NodeModelSpec& nodes,
                       const ChangeSpec& changes);
// Why node n is not a member of the cluster throughout [from, to] (it joins at its add_node, leaves
// at its decommission or remove_node: `changes`), or "" when it is; `at_end`: only `to` is outside.
std::string membership_problem(NodeId n, SimTime from, SimTime to, const Topology& topo, const ChangeSpec& changes,
                               bool& at_end);
// "changes": the nodes that add_node events bring (read before the topology is built, so their
// tokens are allocated with the others), then the events themselves against the full topology.
// `paths`, when given, gets each joining node's JSON path.
std::vector<NodeSpec> parse_joining_nodes(const Json* j, const std::string& path,
                                          std::vector<std::string>* paths = nullptr);
ChangeSpec parse_changes(const Json* j, const std::string& path, const Topology& topo, std::size_t initial_nodes,
                         const Replication& repl);

// `extra`: further keys the object may hold, read by the caller (a `clients` entry's name, policy).
ClientSpec parse_client(const Json* j, const std::string& path, const Topology& topo,
                        const std::vector<std::string>& extra = {});
WorkloadSpec parse_workload(const Json& j, const std::string& path, const std::string& dir);
// A trace file, streamed once (sim/workload/trace_reader.hpp): its errors and its summary.
std::shared_ptr<const TraceSummary> summarize_trace(const std::string& file, const std::string& where);

}  // namespace lbsim::scenario_detail
