// The drivers' own failure detection (faults.driver_detection "driver"), a mechanism of the engine
// (sim/engine/mechanism.hpp; README.md beside this file): per host, the connection's idle clock,
// the heartbeat awaiting its answer, the cluster's DOWN event on its way and the reconnection
// schedule of loader 0's driver; detect.cpp gives each driver's rules and their sources.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/core/time.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/mech/detect/detect_spec.hpp"
#include "sim/metrics/run_result.hpp"

namespace lbsim {

class DriverDetect final : public Mechanism {
 public:
  using Core = Simulation::Impl;
  static constexpr SimTime kNever = std::numeric_limits<SimTime>::max();
  // When a connection sends a heartbeat.
  enum class IdleRule : std::uint8_t {
    Read,      // after `interval` without a read on the connection (Java 3.x, 4.x: reader idle)
    Write,     // ... without a request written to it (Node.js: the idle timer restarts at each send)
    Tick,      // a sweep every `interval`; a connection that read nothing since the last sweep (Python)
    Periodic,  // every `interval` whatever the traffic (gocql, Rust keepalives)
  };
  // What the cluster's DOWN event does to a host the driver still has connections to.
  enum class DownEventRule : std::uint8_t { Ignored, MarksDown, Probes };
  struct Params {
    DetectDriver driver = DetectDriver::Java3;
    IdleRule idle = IdleRule::Read;
    SimTime interval = 30 * kSec, timeout = 12 * kSec;
    SimTime first_tick = 30 * kSec;  // Periodic: the first heartbeat after a connection opens
    SimTime fail_after = 12 * kSec;  // from a heartbeat to the connection's close when none answers
    DownEventRule down_event = DownEventRule::Ignored;
    SimTime event_delay = 0;
    std::uint32_t timeout_threshold = 0;  // Node.js defunctReadTimeoutThreshold (0: none)
    bool exponential = true;
    SimTime reconnect_base = kSec, reconnect_max = 600 * kSec;
  };

  // Its per-host timers are pushed here, when the engine is built (mechanism.hpp).
  DriverDetect(Core& core, std::uint16_t id);

  void on_event(std::uint16_t sub, std::uint32_t node) override;  // the host's timer
  const char* event_name(std::uint16_t) const override { return "detect.driver_timer"; }
  void collect(RunResult& r) const override { r.detection = result_; }

  // The hook points (hooks.hpp).
  void written(NodeId n, SimTime at) { nodes_[n].last_write = std::max(nodes_[n].last_write, at); }
  void read(NodeId n, bool late);
  void client_timeout(NodeId n);
  void marked_down(NodeId n, const char* by);  // loader 0's driver marked the host down
  void status_event(NodeId n, bool up);         // the cluster's STATUS_CHANGE reaches the driver
  void arm(NodeId n);  // (re)pushes the host's timer at its next due time

  const Params& params() const { return p_; }

 private:
  struct Node {
    SimTime last_read = 0, last_write = 0, last_tick = 0;
    SimTime hb_deadline = kNever;  // a heartbeat awaiting its answer: the connection fails then
    SimTime event_at = kNever;     // a DOWN event from the cluster reaches the driver
    SimTime reconnect_at = kNever, reconnect_delay = 0;
    SimTime next_event = kNever;   // the host's pending timer (earlier pushes make later ones stale)
    std::uint32_t timed_out = 0;   // requests timed out on the client and not answered since
  };
  SimTime heartbeat_due(const Node& d) const;
  void send_heartbeat(NodeId n, Node& d);
  void mark_up(NodeId n, const char* by);

  Core& core_;
  std::uint16_t id_;
  Params p_;
  std::vector<Node> nodes_;
  DetectionResult result_;
};

}  // namespace lbsim
