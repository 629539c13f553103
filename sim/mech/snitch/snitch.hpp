// Cassandra's DynamicEndpointSnitch (cluster.dynamic_snitch), a mechanism of the engine
// (sim/engine/mechanism.hpp; README.md beside this file). Each coordinator keeps, per replica it
// read from, an exponentially decaying reservoir of response latencies in whole ms and a score
// recomputed every update interval; reads order their replicas by it (the read_order strategy).
#pragma once
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/cluster/coordination.hpp"
#include "sim/core/rng.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/slab.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/mech/snitch/snitch_spec.hpp"

namespace lbsim {

class Snitch final : public Mechanism {
 public:
  using Core = Simulation::Impl;
  enum Sub : std::uint16_t { kUpdate, kReset };
  Snitch(Core& core, std::uint16_t id);

  void start() override;
  const SnitchSpec& spec() const;  // its spec (snitch_spec.hpp), present whenever it is made
  void on_event(std::uint16_t sub, std::uint32_t arg) override;
  const char* event_name(std::uint16_t sub) const override { return sub == kUpdate ? "snitch.update" : "snitch.reset"; }
  void streams(std::vector<std::pair<std::string, const Rng*>>& out) const override {
    out.emplace_back("dynamic_snitch", &rng_);
  }

  // The hook points and the strategy (hooks.hpp).
  void sent(std::uint32_t job);  // read_sent: when the request left
  void answer(std::uint32_t job, NodeId coordinator, NodeId replica, SimTime at);  // read_answer: its latency, at `at`
  void answer_unneeded(std::uint32_t job);     // the answer travels anyway (one network draw)
  // DynamicEndpointSnitch.sortedByProximity over the live replicas, then the CL's first targets.
  std::size_t targets(const ClNeed& need, NodeId node, std::span<const NodeId> replicas, std::span<NodeId> out);

  // For tests (the core harness): coordinator c's score of replica r, -1 when it has none.
  double score(NodeId c, NodeId r) const;

 private:
  struct Sample {  // one weighted sample of a reservoir
    double priority = 0, weight = 0;
    std::int64_t value_ms = 0;
  };
  struct Host {
    std::vector<Sample> samples;  // a min-heap on priority, at most kSnitchWindow (snitch.cpp)
    std::int64_t start_s = 0, next_rescale_s = 0;
    std::uint64_t count = 0;
    double score = 0;
    bool scored = false;  // has a score (no score reads as 0.0)
  };
  struct Pending {  // a response on its way: recorded when it arrives (at)
    SimTime at;
    std::uint64_t seq;
    NodeId coordinator, replica;
    std::int64_t latency_ms;
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void drain();
  void record(NodeId coordinator, NodeId replica, std::int64_t latency_ms, SimTime at);

  Core& core_;
  std::uint16_t id_;
  // Per coordinator: the replicas it has heard from (memory grows with the pairs that talk, not N^2).
  std::vector<std::unordered_map<NodeId, Host>> hosts_;
  Column<SimTime> job_sent_;  // per job slot (a column of the core's jobs_): when its message left
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  std::uint64_t seq_ = 0;
  Rng rng_;
};

}  // namespace lbsim
