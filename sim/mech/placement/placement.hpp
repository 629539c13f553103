// Placement, a mechanism of the engine (sim/engine/mechanism.hpp; README.md beside this file):
// where each token's replicas are when that is not the core's fixed vnode ring. One entry of
// sim/mech/mechanisms.inc, made as one of two kinds by make_placement:
// - TabletPlacement (tablets.hpp): a tablet keyspace (Scenario::tablet_map), its migrations,
//   streaming and resizing, the drivers' tablet cache and the tablets-routing-v1 payload;
// - VnodeChanges (vnodes.hpp): a vnode keyspace whose ring changes (changes.events): pending
//   ranges while a node joins or leaves, then the ring switch and the drivers' token map refresh.
// Neither without tablets and without topology changes: the core's ring then is the placement.
#pragma once
#include <cstdint>

#include "sim/cluster/topology.hpp"
#include "sim/core/time.hpp"
#include "sim/engine/mechanism.hpp"
#include "sim/engine/simulation.hpp"

namespace lbsim {

class Placement : public Mechanism {
 public:
  using Core = Simulation::Impl;
  // Its events' sub-kinds (the event digest's names: event_name).
  enum Ev : std::uint16_t { kChange, kMigration, kChangeDone, kStreamChunk, kResizeTick, kEvents };
  const char* event_name(std::uint16_t sub) const override;

 protected:
  // Made before the drivers' policies start (mechanisms.inc): the nodes that join later are
  // unknown to the drivers and the coordinators until they join, so the policies start without
  // them. Each topology change's event is pushed here, before the drivers' detection timers (the
  // list's order; the legacy engine pushed them while it was built).
  Placement(Core& core, std::uint16_t id);
  void push(SimTime at, Ev sub, std::uint32_t arg);

  Core& core_;
  std::uint16_t id_;
  NodeId initial_ = 0;  // the nodes that are members at the start: [0, initial_)
};

}  // namespace lbsim
