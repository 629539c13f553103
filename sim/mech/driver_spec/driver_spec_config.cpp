// The scenario's `speculative` (the drivers' speculative executions): its parser, key and checks,
// compiled into lbsim_config (sim/mech/specs.inc; configs/README.md "timeouts, retry,
// speculative" gives the options' provenance). Absent, or "enabled": false: no speculative
// execution, no event, no draw.
#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"
#include "sim/mech/driver_spec/driver_spec_spec.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

void parse_driver_spec_spec(const MechSpecInput& in, MechSpecs& out) {
  out.clear(MechSpecs::k_driver_spec);
  const Json* j = in.top("speculative");
  if (!j) return;
  Object o(*j, "/speculative",
           {"enabled", "kind", "delay_ms", "max_speculative", "host", "percentile", "tracker", "min_recorded",
            "interval_ms", "highest_trackable_ms"});
  SpeculativeSpec s;
  const bool enabled = o.boolean("enabled", true);
  s.kind = o.choice<SpecKind>("kind", {{"constant", SpecKind::Constant}, {"percentile", SpecKind::Percentile}},
                              SpecKind::Constant);
  s.host = o.choice<SpecHostSource>("host", {{"plan", SpecHostSource::Plan}, {"new_plan", SpecHostSource::NewPlan}},
                                    SpecHostSource::Plan);
  const bool pct = s.kind == SpecKind::Percentile;
  if (pct && o.has("delay_ms"))
    jsonin::fail(o.path_of("delay_ms"), "applies to kind \"constant\" only; kind \"percentile\" takes its delay from "
                                        "the tracker (percentile, tracker, min_recorded, interval_ms, highest_trackable_ms)");
  if (!pct)
    for (const char* k : {"percentile", "tracker", "min_recorded", "interval_ms", "highest_trackable_ms"})
      if (o.has(k)) jsonin::fail(o.path_of(k), "applies to kind \"percentile\" only (speculative.kind is \"constant\")");
  if (pct && s.host == SpecHostSource::NewPlan)
    jsonin::fail(o.path_of("host"), "\"new_plan\" is gocql's, which has no percentile policy; allowed with kind "
                                    "\"percentile\" (Java 3.x): \"plan\"");
  s.delay = from_ms(o.number("delay_ms", 1e-3, 3.6e6, to_ms(s.delay)));
  s.max_speculative = static_cast<std::uint32_t>(o.integer("max_speculative", 1, 10, s.max_speculative));
  // PercentileSpeculativeExecutionPolicy: 0 <= percentile < 100 (its checkArgument).
  s.percentile = o.number("percentile", 0, 100, s.percentile);
  if (s.percentile >= 100) jsonin::fail(o.path_of("percentile"), "must be in [0, 100) (100 excluded), got 100");
  s.per_host = o.choice<bool>("tracker", {{"per_host", true}, {"cluster_wide", false}}, true);
  s.min_recorded = static_cast<std::uint32_t>(o.integer("min_recorded", 0, 100000000, s.min_recorded));
  s.interval = from_ms(o.number("interval_ms", 1, 8.64e7, to_ms(s.interval)));
  s.highest_trackable_ms = o.integer("highest_trackable_ms", 1, 3600000, s.highest_trackable_ms);
  if (enabled) out.set(MechSpecs::k_driver_spec, s);
}

const std::vector<MechKey>& driver_spec_spec_keys() {
  static const std::vector<MechKey> keys{{MechSection::Top, "speculative"}};
  return keys;
}

// The percentile tracker is per client process: with several loaders each would need its own.
void driver_spec_spec_check(const Scenario& sc) {
  const SpeculativeSpec* s = sc.mech.get<SpeculativeSpec>(MechSpecs::k_driver_spec);
  if (s && s->kind == SpecKind::Percentile && !sc.loaders.empty())
    jsonin::fail("/speculative/kind", "\"percentile\" is not modelled with several loaders (each loader's driver "
                                      "would need its own tracker); use \"constant\" or one \"client\"");
}

void driver_spec_warmup(const Scenario&, SimTime, std::vector<std::string>&) {}

}  // namespace lbsim
