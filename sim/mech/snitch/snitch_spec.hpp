// The dynamic snitch's spec (cluster.dynamic_snitch; parsed by snitch_config.cpp into its
// MechSpecs slot, present only when the snitch is on). The values are the release's
// cassandra.yaml defaults unless the scenario overrides them (snitch_config.cpp gives the sources).
#pragma once
#include "sim/core/time.hpp"

namespace lbsim {

struct SnitchSpec {
  SimTime update = 100 * kMs;    // dynamic_snitch_update_interval(_in_ms)
  SimTime reset = 600000 * kMs;  // dynamic_snitch_reset_interval(_in_ms); 0: never
  double badness = 0.1;          // dynamic_snitch_badness_threshold
};

}  // namespace lbsim
