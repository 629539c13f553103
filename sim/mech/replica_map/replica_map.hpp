// What the drivers' own replica maps do to operations (a policy's `replica_source` naming a
// driver's map: Policy::has_driver_replicas), a mechanism of the engine (sim/engine/mechanism.hpp;
// README.md beside this file): the routed operations whose driver list repeats a host, and the
// retries the plan sent back to the host that had just failed. The report's `replica_map`.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/engine/hooks.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/slab.hpp"

namespace lbsim {

class ReplicaMap final : public Mechanism {
 public:
  using Core = Simulation::Impl;
  ReplicaMap(Core& core, std::uint16_t id);

  void on_event(std::uint16_t sub, std::uint32_t arg) override;  // none: it has no events
  const char* event_name(std::uint16_t) const override { return "replica_map.none"; }
  void collect(RunResult& r) const override;

  // The hook points (hooks.hpp).
  void started(std::uint32_t op);                                     // op_started
  void sent(std::uint32_t op, std::uint32_t attempt, SendKind kind);  // attempt_sent

  // True when a driver's list names a host twice (or more).
  static bool repeats(std::span<const NodeId> list);
  const ReplicaMapResult& counts() const { return counts_; }  // for tests (the core harness)

 private:
  Core& core_;
  ReplicaMapResult counts_;
  Column<NodeId> prev_;  // per operation slot: the host of its last attempt
  std::vector<std::uint8_t> mapped_;  // per loader: its policy has a driver's map (fixed at init)
};

}  // namespace lbsim
