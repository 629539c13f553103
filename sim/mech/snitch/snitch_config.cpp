// cluster.dynamic_snitch (Cassandra releases only): its parser, keys and warm-up check, compiled
// into lbsim_config (sim/mech/specs.inc). true / false, or an object overriding the release's
// cassandra.yaml defaults; absent: on with a Cassandra release.
//
// Cassandra's DynamicEndpointSnitch is on by default in every Cassandra release (Config.java
// dynamic_snitch = true), with the defaults of the release's conf/cassandra.yaml. 3.11:
// dynamic_snitch_update_interval_in_ms 100, dynamic_snitch_reset_interval_in_ms 600000,
// dynamic_snitch_badness_threshold 0.1 (datastax/cass-config-definitions 9898218,
// cassandra-yaml-cassandra-3.11.6.edn; 4.0.0 has the same three). 4.1 and 5.0 renamed them
// dynamic_snitch_update_interval: 100ms and dynamic_snitch_reset_interval: 600000ms; their
// badness threshold 1.0 is trunk's conf/cassandra.yaml (apache/cassandra 002190748b), assumed for
// 4.1 and 5.0: not checked at those tags (configs/README.md).
#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"
#include "sim/mech/snitch/snitch_spec.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

namespace {
// The release's default: on with its cassandra.yaml values for a Cassandra release, else off.
bool snitch_default(ServerRelease r, SnitchSpec& out) {
  const ServerRules rules = server_rules(r);
  if (r == ServerRelease::Unspecified || rules.scylla) return false;
  out.update = 100 * kMs;
  out.reset = 600000 * kMs;
  out.badness = r == ServerRelease::Cassandra311 ? 0.1 : 1.0;
  return true;
}
}  // namespace

void parse_snitch_spec(const MechSpecInput& in, MechSpecs& out) {
  const jsonin::Object& o = in.cluster;
  SnitchSpec b;
  bool on = snitch_default(in.nodes.server, b);
  const Json* j = o.find("dynamic_snitch");
  if (j != nullptr) {
    const std::string path = o.path_of("dynamic_snitch");
    if (!on)
      jsonin::fail(path, fmt::format("is a Cassandra option; cluster.server '{}' has no dynamic snitch (valid with: "
                                     "cassandra-3.11, cassandra-4.1, cassandra-5.0)",
                                     server_rules(in.nodes.server).name));
    if (!j->is_object()) {
      on = jsonin::as_bool(*j, path);
    } else {
      Object so(*j, path, {"update_interval_ms", "reset_interval_ms", "badness_threshold"});
      b.update = from_ms(so.number("update_interval_ms", 1, 3.6e6, to_ms(b.update)));
      b.reset = from_ms(so.number("reset_interval_ms", 0, 8.64e7, to_ms(b.reset)));
      b.badness = so.number("badness_threshold", 0, 1000, b.badness);
    }
  }
  if (on) out.set(MechSpecs::k_snitch, b);
  else out.clear(MechSpecs::k_snitch);
}

const std::vector<MechKey>& snitch_spec_keys() {
  static const std::vector<MechKey> keys{{MechSection::Cluster, "dynamic_snitch"}};
  return keys;
}

void snitch_spec_check(const Scenario&) {}

void snitch_warmup(const Scenario& sc, SimTime end, std::vector<std::string>& out) {
  const SnitchSpec* b = sc.mech.get<SnitchSpec>(MechSpecs::k_snitch);
  auto format_seconds = [](SimTime t) { return fmt::format("{:.6g} s", to_sec(t)); };
  if (b && end < b->update)
    out.push_back(fmt::format(
        "cluster.dynamic_snitch warms up at {}: its first scores come at the first update "
        "(dynamic_snitch_update_interval, cluster.dynamic_snitch.update_interval_ms), before which replicas keep "
        "the proximity order; the run ends at {}",
        format_seconds(b->update), format_seconds(end)));
}

}  // namespace lbsim
