// The coordinators' speculative retry (cluster.speculative_retry, the table option), a mechanism
// of the engine (sim/engine/mechanism.hpp; README.md beside this file). A read whose replica list
// holds one live replica more than its consistency level needs keeps that spare back (the
// read_split strategy) and sends it at once (ALWAYS) or when a threshold has passed without the
// request being answered (Xms, or XXpercentile from a histogram per coordinator of its reads'
// latencies, which the read_done hook fills).
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/engine/hooks.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/model_spec.hpp"
#include "sim/mech/spec_retry/spec_retry_spec.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/slab.hpp"

namespace lbsim {

class SpecRetry final : public Mechanism {
 public:
  using Core = Simulation::Impl;
  SpecRetry(Core& core, std::uint16_t id);

  // The earliest pending speculation's time has come: the spares of the requests still waiting.
  void on_event(std::uint16_t sub, std::uint32_t arg) override;
  const char* event_name(std::uint16_t) const override { return "spec_retry.timer"; }
  void collect(RunResult& r) const override;  // RunResult::speculative_retry

  // The strategy and the hook (hooks.hpp).
  ReadSplit::Split split(std::uint32_t cr, std::size_t need, std::span<const NodeId> targets);
  void record(std::uint32_t cr);  // read_done: the read's latency into its coordinator's histogram

  // For tests (the core harness): the coordinator's threshold as a read would find it now
  // (a percentile threshold is refreshed first), the speculative reads sent so far (ALWAYS's
  // included), the pending speculations and the time of the earliest timer event pushed.
  SimTime threshold(NodeId coordinator);
  std::uint64_t reads() const { return reads_; }
  std::size_t pending() const { return timers_.size(); }
  SimTime armed() const { return armed_; }

 private:
  // The histogram of a coordinator's read latencies (utils/estimated_histogram.hh in ScyllaDB,
  // EstimatedHistogram / DecayingEstimatedHistogramReservoir in Cassandra: bucket offsets in
  // microseconds growing by 1.2) and the threshold computed from it.
  struct Node {
    std::vector<double> counts;
    double total = 0;
    SimTime threshold = 0;
    SimTime refreshed = 0;  // ScyllaDB: when last computed; Cassandra: the next periodic update
    bool computed = false;
  };
  struct Timer {
    SimTime at;
    std::uint32_t cr, gen;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : cr > o.cr; }
  };
  void refresh(Node& s) const;

  Core& core_;
  std::uint16_t id_;
  const SpecRetrySpec& spec_;
  SpecRetryMode mode_;
  std::vector<Node> nodes_;  // per coordinator (percentile modes)
  Column<NodeId> extra_;     // per request slot (a column of the core's crs_): its spare (threshold modes)
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  SimTime armed_ = std::numeric_limits<SimTime>::max();  // the earliest timer event pushed
  std::uint64_t reads_ = 0;  // speculative reads sent in the whole run (ALWAYS included)
};

}  // namespace lbsim
