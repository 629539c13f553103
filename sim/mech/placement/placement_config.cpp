// changes.migration and changes.streaming_s (configs/README.md "changes"): the placement's parser,
// keys and checks, compiled into lbsim_config (sim/mech/specs.inc). The spec is present with a
// tablet keyspace or with topology events; tablet keyspaces take "migration" (required with
// events: no published figure gives defaults), vnode keyspaces "streaming_s" (required with
// events). The changes' events themselves are the core's (sim/config/scenario_changes.cpp); they
// were checked before this parser runs.
#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"
#include "sim/mech/placement/placement_spec.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

void parse_placement_spec(const MechSpecInput& in, MechSpecs& out) {
  out.clear(MechSpecs::k_placement);
  const bool tablets = in.replication.tablets.has_value();
  const Json* j = in.top("changes");
  if (!j || !j->is_object()) {
    if (tablets) out.set(MechSpecs::k_placement, PlacementSpec{});
    return;
  }
  const Json* ev = j->contains("events") ? &(*j)["events"] : nullptr;
  const bool events = ev && ev->is_array() && !ev->empty();
  if (!tablets && !events && !j->contains("migration") && !j->contains("streaming_s")) return;
  const Json& changes = *j;
  std::vector<std::string> keys{"events"};
  for (std::string& k : mechanism_keys(MechSection::Changes)) keys.push_back(std::move(k));
  Object o(changes, "/changes", keys);
  PlacementSpec s;
  if (!tablets) {
    // Vnode keyspaces: one streaming duration per ring change (no published figure: required).
    if (o.has("migration"))
      jsonin::fail(o.path_of("migration"), "tablet migrations need a tablet keyspace (keyspace.tablets); vnode "
                                           "keyspaces take \"streaming_s\"");
    if (events && !o.has("streaming_s"))
      jsonin::fail(o.path_of("streaming_s"), "required with topology events in a vnode keyspace: the time a join, "
                                             "decommission or removenode streams before ownership switches");
    s.streaming = from_ms(o.number("streaming_s", 1e-6, 1e6, 1.0) * 1e3);
    out.set(MechSpecs::k_placement, std::move(s));
    return;
  }
  if (o.has("streaming_s"))
    jsonin::fail(o.path_of("streaming_s"), "vnode keyspaces only; tablet keyspaces take \"migration\"");
  if (const Json* m = o.find("migration")) {
    // No defaults for the migration cost: no published per-migration measurement exists
    // (configs/README.md, "changes"), so a scenario states its own.
    // The table's data (MiB); each release derives its tablet count and size from it. The old
    // "tablet_size_mb" was a tablet's size under lbsim's own count rule, which releases that count
    // otherwise did not keep: refused with its table_size_mb (scenario.cpp, which knows the count).
    Json mig = *m;
    if (mig.is_object() && mig.contains("tablet_size_mb")) {
      const std::string lp = jsonin::key_path(o.path_of("migration"), "tablet_size_mb");
      if (mig.contains("table_size_mb")) jsonin::fail(lp, "give \"table_size_mb\" alone (\"tablet_size_mb\" is refused)");
      s.legacy_tablet_size_mb = jsonin::as_number(mig["tablet_size_mb"], lp, 0, 1e7);
      s.legacy_tablet_size_path = lp;
      mig.erase("tablet_size_mb");
    }
    Object mo(mig, o.path_of("migration"), {"latency_ms", "table_size_mb", "stream_mb_s", "max_in_per_shard",
                                            "max_out_per_shard", "node_stream_mb_s", "cpu_send_us_per_mb",
                                            "cpu_receive_us_per_mb"});
    s.migration_latency = from_ms(mo.number("latency_ms", 0, 3.6e6));
    s.table_size_mb = s.legacy_tablet_size_mb >= 0 ? 0 : mo.number("table_size_mb", 0, 1e12);
    s.stream_mb_s = mo.number("stream_mb_s", 1e-3, 1e7);
    s.max_in_per_shard = static_cast<std::uint32_t>(mo.integer("max_in_per_shard", 1, 1024, 2));
    s.max_out_per_shard = static_cast<std::uint32_t>(mo.integer("max_out_per_shard", 1, 1024, 2));
    // The streaming cost (sim/mech/placement/streaming.cpp): 0 = none, the default.
    s.node_stream_mb_s = mo.number("node_stream_mb_s", 0, 1e7, 0);
    s.cpu_send_us_per_mb = mo.number("cpu_send_us_per_mb", 0, 1e7, 0);
    s.cpu_receive_us_per_mb = mo.number("cpu_receive_us_per_mb", 0, 1e7, 0);
  } else if (events) {
    jsonin::fail(o.path_of("migration"), "required with topology events: {\"latency_ms\", \"table_size_mb\", "
                                         "\"stream_mb_s\"} (no published figure gives defaults)");
  }
  out.set(MechSpecs::k_placement, std::move(s));
}

const std::vector<MechKey>& placement_spec_keys() {
  static const std::vector<MechKey> keys{{MechSection::Changes, "migration"}, {MechSection::Changes, "streaming_s"}};
  return keys;
}

void placement_spec_check(const Scenario&) {}

void placement_warmup(const Scenario&, SimTime, std::vector<std::string>&) {}

}  // namespace lbsim
