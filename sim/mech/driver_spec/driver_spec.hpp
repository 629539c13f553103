// The drivers' speculative executions (scenario `speculative`: SpeculativeSpec), a mechanism of
// the engine (sim/engine/mechanism.hpp; README.md beside this file): after an execution is sent,
// a timer (a constant delay, or the Java 3.x percentile tracker's latency for its host) starts
// the operation's next execution unless it ended first; with `speculative.host` "new_plan" that
// execution takes its hosts from a plan of its own (gocql before PR #1531).
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <vector>

#include "policies/policy.hpp"
#include "sim/client/percentile_tracker.hpp"
#include "sim/engine/hooks.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/slab.hpp"
#include "sim/mech/driver_spec/driver_spec_spec.hpp"

namespace lbsim {

class DriverSpec final : public Mechanism {
 public:
  using Core = Simulation::Impl;
  // Its events: the constant delay's timer (one FIFO of deadlines, the earliest armed, as the
  // core's timeouts) and the percentile policy's (a heap: each execution's delay differs).
  enum Sub : std::uint16_t { kDelay, kPercentile };
  DriverSpec(Core& core, std::uint16_t id);
  DriverSpec(Core& core, std::uint16_t id, const SpeculativeSpec& spec);

  void on_event(std::uint16_t sub, std::uint32_t arg) override;
  // The names the event digest gave these timers while they were the core's (kTimer
  // kSpeculative, slot 0; kMechDriverSpec), so that every digest stays the same.
  const char* event_name(std::uint16_t sub) const override {
    return sub == kDelay ? "timer.speculative" : "driver_spec.percentile_timer";
  }
  void collect(RunResult& r) const override;

  // The hook points and the strategy (hooks.hpp).
  void sent(std::uint32_t op, std::uint32_t attempt, SendKind kind);  // attempt_sent
  void ended(std::uint32_t attempt, policy::ResponseKind kind);      // attempt_ended
  NodeId extra_host(std::uint32_t op);                                // extra_host (new_plan)

  // For tests (the core harness): what it counted, and its next timer.
  std::uint64_t speculative() const { return speculative_; }
  std::uint64_t same_host() const { return same_host_; }
  std::uint64_t no_delay() const { return no_delay_; }
  const PercentileTracker* tracker() const { return pct_.get(); }
  // The earliest pending deadline of the constant delay's FIFO or of the percentile heap
  // (the largest SimTime when none).
  SimTime next_deadline() const;

 private:
  struct Timer {
    SimTime at;
    std::uint32_t op, gen;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : op > o.op; }
  };
  void speculate(std::uint32_t op, std::uint32_t gen);
  void arm();  // the constant delay's FIFO: drops ended operations, arms its front
  void on_delay();
  void on_percentile();

  Core& core_;
  std::uint16_t id_;
  // SpeculativeSpec's figures it reads on every send.
  std::uint32_t max_speculative_;
  SimTime delay_;
  bool per_host_;
  bool new_plan_;
  Column<NodeId> first_host_;  // per operation slot: its first execution's host
  DeadlineFifo delays_;        // kind "constant": (sent + delay, op, gen)
  std::unique_ptr<PercentileTracker> pct_;  // kind "percentile"
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> pct_timers_;
  SimTime pct_armed_ = std::numeric_limits<SimTime>::max();  // the earliest kPercentile event pending
  std::uint64_t speculative_ = 0, same_host_ = 0, no_delay_ = 0;
  // new_plan: the scratch plan of the speculative execution being sent.
  policy::PlanArena arena_;
  policy::Plan* plan_ = nullptr;
};

}  // namespace lbsim
