// What the parsers of the mechanisms' specs read and write (sim/mech/specs.inc; issue 45). Each
// mechanism of that list defines, in its folder's <name>_config.cpp (compiled into lbsim_config):
//   void parse_<name>_spec(const MechSpecInput& in, MechSpecs& out): reads its keys and, when the
//     mechanism is on, stores its spec in out (a bad value is a ConfigError naming its JSON path);
//   const std::vector<MechKey>& <name>_spec_keys(): those keys, each with its section;
//   void <name>_spec_check(const Scenario& sc): the checks against other sections (workload,
//     loaders, keyspace), once the whole scenario is read;
//   void <name>_warmup(const Scenario& sc, SimTime end, std::vector<std::string>& out): the
//     warnings of a measurement window too short for it (scenario_warmup.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/engine/mech_specs.hpp"
#include "sim/engine/model_spec.hpp"

namespace lbsim {

struct Scenario;

// Where a mechanism's key sits: in `cluster`, `faults` or `changes`, or at the top of the document.
enum class MechSection : std::uint8_t { Cluster, Faults, Changes, Top };
struct MechKey {
  MechSection section;
  std::string key;
};

struct MechSpecInput {
  const jsonin::Object& cluster;  // /cluster, its keys already checked
  const jsonin::Json& root;       // the whole document; every section's own parser checks its keys
  const NodeModelSpec& nodes;     // the node model without the mechanisms' specs
  const Replication& replication; // the keyspace's (keyspace.tablets among it)
  // root[key] when the document has that section, else null.
  const jsonin::Json* top(const char* key) const {
    return root.is_object() && root.contains(key) ? &root[key] : nullptr;
  }
};

#define LBSIM_MECHANISM_SPEC(name)                                                  \
  void parse_##name##_spec(const MechSpecInput& in, MechSpecs& out);               \
  const std::vector<MechKey>& name##_spec_keys();                                   \
  void name##_spec_check(const Scenario& sc);                                       \
  void name##_warmup(const Scenario& sc, SimTime end, std::vector<std::string>& out);
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC

// The keys the listed mechanisms read in `section`, in the list's order.
std::vector<std::string> mechanism_keys(MechSection section);
// The listed parsers whose (first) key sits in `section`, in the list's order, into `out`. The
// scenario's parser calls it for each section where that section's own parser runs, so that a
// document's first error is the one it was before the mechanism had a folder.
void parse_mechanism_specs(const MechSpecInput& in, MechSection section, MechSpecs& out);
// Every listed check, in the list's order.
void check_mechanism_specs(const Scenario& sc);

}  // namespace lbsim
