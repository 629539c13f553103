// faults.driver_detection and faults.heartbeat (how the driver notices that a node went down
// silently or came back; configs/README.md "faults"): their parser, keys and checks, compiled into
// lbsim_config (sim/mech/specs.inc). "fixed" (the default) leaves it to the core's
// faults.driver_detection_ms; "driver" turns the mechanism on and claims the drivers' side of
// detection from the core (MechSpecs::claims).
#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"
#include "sim/mech/detect/detect_spec.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

void parse_detect_spec(const MechSpecInput& in, MechSpecs& out) {
  out.clear(MechSpecs::k_detect);
  out.claims.driver_detection = false;
  const Json* f = in.top("faults");
  if (!f || !f->is_object()) return;  // the faults' own parser reports a faults that is no object
  const auto find = [&](const char* key) { return f->contains(key) ? &(*f)[key] : nullptr; };
  const std::string fp = "/faults";
  bool driver = false;
  if (const Json* m = find("driver_detection")) {
    const std::string path = jsonin::key_path(fp, "driver_detection");
    const std::string v = jsonin::as_string(*m, path);
    if (v != "fixed" && v != "driver") jsonin::fail(path, "unknown value '" + v + "'; valid: fixed, driver");
    driver = v == "driver";
  }
  if (driver && find("driver_detection_ms"))
    jsonin::fail(jsonin::key_path(fp, "driver_detection_ms"),
                 "applies to \"driver_detection\": \"fixed\" only (with \"driver\" the driver's heartbeat, events and "
                 "reconnection decide; faults.heartbeat overrides their intervals)");
  DetectSpec b;
  if (const Json* hb = find("heartbeat")) {
    const std::string hp = jsonin::key_path(fp, "heartbeat");
    if (!driver) jsonin::fail(hp, "applies to \"driver_detection\": \"driver\" only");
    Object h(*hb, hp, {"driver", "interval_ms", "timeout_ms", "reconnect_base_ms", "reconnect_max_ms"});
    b.driver = h.choice<DetectDriver>("driver", {{"auto", DetectDriver::Auto}, {"java3", DetectDriver::Java3},
                                                 {"java4", DetectDriver::Java4}, {"python", DetectDriver::Python},
                                                 {"go", DetectDriver::Go}, {"rust", DetectDriver::Rust},
                                                 {"nodejs", DetectDriver::Nodejs}},
                                      DetectDriver::Auto);
    b.interval = from_ms(h.number("interval_ms", 1, 3.6e6, 0));
    b.timeout = from_ms(h.number("timeout_ms", 1, 3.6e6, 0));
    b.reconnect_base = from_ms(h.number("reconnect_base_ms", 1, 3.6e6, 0));
    b.reconnect_max = from_ms(h.number("reconnect_max_ms", 1, 3.6e6, 0));
    if (b.reconnect_base > 0 && b.reconnect_max > 0 && b.reconnect_max < b.reconnect_base)
      jsonin::fail(h.path_of("reconnect_max_ms"), "must be at least reconnect_base_ms");
  }
  if (!driver) return;
  out.set(MechSpecs::k_detect, b);
  out.claims.driver_detection = true;
}

const std::vector<MechKey>& detect_spec_keys() {
  static const std::vector<MechKey> keys{{MechSection::Faults, "driver_detection"}, {MechSection::Faults, "heartbeat"}};
  return keys;
}

// It keeps per-client state that lbsim holds once (each host's connection clocks): with several
// loaders each process would need its own.
void detect_spec_check(const Scenario& sc) {
  if (sc.mech.get<DetectSpec>(MechSpecs::k_detect) && !sc.loaders.empty())
    jsonin::fail("/faults/driver_detection", "\"driver\" is not modelled with several loaders (each loader's driver "
                                             "would need its own connection clocks); use \"fixed\" or one \"client\"");
}

void detect_warmup(const Scenario&, SimTime, std::vector<std::string>&) {}

}  // namespace lbsim
