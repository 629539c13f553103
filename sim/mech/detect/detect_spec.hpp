// The drivers' own failure detection's spec (faults.driver_detection "driver" and
// faults.heartbeat; parsed by detect_config.cpp into its MechSpecs slot, present only with
// "driver"). With it the driver notices a silent death and a return by its own mechanisms
// (detect.cpp): idle heartbeats and their timeouts, the cluster's DOWN events where the driver
// heeds them, Node.js's timed-out-request threshold, and the reconnection schedule. Without it
// ("fixed", lbsim's original rule) the core's faults.driver_detection_ms decides.
#pragma once
#include <cstdint>

#include "sim/core/time.hpp"

namespace lbsim {

// Whose defaults: Auto takes the driver of the policy being run (policies/registry.hpp).
enum class DetectDriver : std::uint8_t { Auto, Java3, Java4, Python, Go, Rust, Nodejs };

// faults.heartbeat: overrides of the driver's defaults (0 = the driver's default).
struct DetectSpec {
  DetectDriver driver = DetectDriver::Auto;
  SimTime interval = 0;        // heartbeat / keepalive interval
  SimTime timeout = 0;         // how long a heartbeat waits for its answer
  SimTime reconnect_base = 0;  // the reconnection policy's first delay
  SimTime reconnect_max = 0;   // its cap
};

}  // namespace lbsim
