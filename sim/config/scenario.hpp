// A scenario: everything one `lbsim run` needs, parsed and validated up front.
//
// Top-level keys: name, description, seed, cluster, keyspace, network, client or clients, workload,
// timeouts, retry, speculative, faults, changes, report, policies (configs/README.md documents each
// field). Validation is strict: unknown keys, wrong types and out-of-range values are ConfigErrors
// naming the JSON path and the allowed values, and impossible combinations (a DC-local CL with
// no replica in the client's DC, a policy's local DC that does not exist, ...) fail here, before
// any run.
//
// A scenario is immutable once built and holds no globals, so several runs (policies, seeds) can
// share it across threads. The ring is built once and shared.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/client/client_spec.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/config/cluster_config.hpp"
#include "sim/config/incident.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/engine/mech_specs.hpp"
#include "sim/engine/model_spec.hpp"
#include "sim/workload/workload_spec.hpp"

namespace lbsim {

// The seed of a scenario without "seed": it also seeds the token allocation, so every command that
// builds the ring from a scenario (run, analyze, ring, replicas, plan) must use it.
inline constexpr std::uint64_t kDefaultScenarioSeed = 1;

struct PolicyEntry {
  std::string name;          // as the report and the results file name use it
  jsonin::Json spec;         // the policy spec (registry format)
  std::string path;          // JSON path of the spec, for messages
};

// One load generator of `clients` (configs/README.md, "clients"): a full client block, a name,
// and optionally the policy it always runs.
struct LoaderSpec {
  std::string name;
  ClientSpec client;
  // The policy this loader always runs (a `policies` entry, or an inline spec named "inline");
  // null: the policy under comparison, as the one `client` runs it.
  std::shared_ptr<const PolicyEntry> policy;
};
inline constexpr std::size_t kMaxLoaders = 64;

struct ReportSpec {
  SimTime timeline_interval = 0;  // 0: chosen from the measurement window (Timeline::automatic)
};

struct Scenario {
  std::string name;
  std::string description;
  std::string file;  // "" when built from JSON in memory
  std::string dir;   // folder relative file references (topology_file, trace) resolve against
  std::uint64_t seed = 1;
  jsonin::Json doc;  // the document as validated (after --set patches)
  std::string hash;  // FNV-1a 64 of doc.dump(), hex

  ClusterTopologySpec cluster;  // cluster.topology: every node, including those that join later
  // The vnode token ring of the initial members (the driver's token map; the placement of vnode
  // keyspaces).
  std::shared_ptr<const TokenRing> ring;
  // Tablet keyspaces (keyspace.tablets): the initial tablet map, and the same in ring form (range
  // i = tablet i). Null for vnode keyspaces.
  std::shared_ptr<const TabletMap> tablet_map;
  std::shared_ptr<const TokenRing> tablets;
  // The tablet table's data in MiB (changes.migration.table_size_mb), which each release divides
  // by its count; 0 without tablets or a size.
  double tablet_table_mb = 0;
  ChangeSpec changes;
  NodeModelSpec nodes;
  // The specs of the mechanisms that keep theirs in their folders (sim/mech/specs.inc), each in its
  // slot when the mechanism is on.
  MechSpecs mech;
  NetworkSpec network;
  ClientSpec client;  // with `clients`: the first loader's
  // `clients` (several loaders, issue 36); empty with one `client`. They share the cluster, the
  // workload (one generator draws every loader's operations in start order), the timeouts, the
  // retry and speculative settings and the faults; each has its own place, load, CPU, connections,
  // policy instance and random streams.
  std::vector<LoaderSpec> loaders;
  WorkloadSpec workload;
  TimeoutSpec timeouts;
  RetrySpec retry;
  FaultSpec faults;
  ReportSpec report;
  std::vector<PolicyEntry> policies;
  std::vector<std::string> warnings;
  // Incident scenarios (configs/incidents/): the published figure the scenario reproduces; null
  // otherwise. `lbsim run` ignores it; `lbsim incidents` evaluates it.
  std::shared_ptr<const Reproduces> reproduces;

  const Topology& topology() const { return cluster.topology; }
  // Where replicas are: the tablet map for tablet keyspaces, else the vnode ring.
  const TokenRing& placement() const { return tablets ? *tablets : *ring; }
  const PolicyEntry* find_policy(const std::string& name) const;
};

// Reads, patches (`sets`, each "a.b.c=VALUE", see apply_set) and validates a scenario file.
Scenario load_scenario(const std::string& file, const std::vector<std::string>& sets = {});
// Validates a document already in memory; `file` names it in messages, `dir` resolves relative
// file references.
Scenario scenario_from_json(jsonin::Json doc, const std::string& file, const std::string& dir);

// Applies "PATH=VALUE" to a document before validation. PATH is dot-separated ("client.threads",
// "policies.0.policy.ordering") or a JSON pointer ("/client/threads"); VALUE is JSON, or a bare
// string when it does not parse as JSON. Missing intermediate objects are created; the last key may
// be new (validation then rejects unknown keys). VALUE null removes the key or array element, which
// must exist. Throws ConfigError naming the assignment.
void apply_set(jsonin::Json& doc, const std::string& assignment);

// Every assignment in order (apply_set), then one rule: a --set of one loop's key replaces the
// scenario's other loop. `client.threads` on an open-loop scenario drops its rate_ops_s (and
// arrivals, max_in_flight); `client.rate_ops_s` on a closed-loop one drops threads (and think). So
// `--set client.threads=64` is a closed loop of 64 threads whichever loop the file has. Keys an
// assignment wrote itself are kept (validation then names the conflict); PATH=null picks no loop.
void apply_sets(jsonin::Json& doc, const std::vector<std::string>& sets);

// The command line's --set options write distinct paths: a ConfigError when one writes the path of an
// earlier one ("client.threads" and "/client/threads" are one path) or an object holding it, which
// would silently drop the earlier value (a sweep's values are one --set PATH=V1,V2,...). A path
// inside an earlier one's ("--set client={...} --set client.threads=8") patches it and is kept.
void check_set_paths(const std::vector<std::string>& sets);

// A ConfigError of a document patched by `sets` (apply_set) and read from `file`: an error inside
// what a --set wrote is blamed on that --set ("--set PATH=V: /path: ..."), one at another JSON path
// on the file ("FILE:/path: ..."); an error that already names a file is returned as it is.
ConfigError blame_set(const ConfigError& e, const std::vector<std::string>& sets, const std::string& file);

// When a run of `w` ends (scenario time): warm-up + duration in duration mode with a timed warm-up;
// otherwise it is known only once the run has ended (sim/config/scenario_warmup.cpp).
std::optional<SimTime> scheduled_end(const WorkloadSpec& w);
// The warnings for a run of `sc` that ends at `end` before a mechanism's warm-up (issue 44.12): the
// percentile speculative_retry threshold's first refresh, the dynamic snitch's first scores, the
// heat-weighted load balancing's first meter tick. One per mechanism, naming its warm-up and `end`.
// scenario_from_json adds them to Scenario::warnings when scheduled_end knows the end; the engine
// adds them to the run's warnings otherwise.
std::vector<std::string> warmup_warnings(const Scenario& sc, SimTime end);

}  // namespace lbsim
