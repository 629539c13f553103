// Placement (placement.hpp): the factory choosing its kind, the part both kinds share (the
// initial membership and the topology changes' events) and the event digest's names.
#include "sim/mech/placement/placement.hpp"

#include <array>
#include <memory>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/placement/tablets.hpp"
#include "sim/mech/placement/vnodes.hpp"

namespace lbsim {

std::unique_ptr<Mechanism> make_placement(Placement::Core& core, std::uint16_t id) {
  if (core.sc_.tablet_map) return std::make_unique<TabletPlacement>(core, id);
  if (core.sc_.changes.any()) return std::make_unique<VnodeChanges>(core, id);
  return nullptr;
}

Placement::Placement(Core& core, std::uint16_t id) : core_(core), id_(id) {
  const ChangeSpec& ch = core.sc_.changes;
  initial_ = ch.initial_nodes == 0 ? static_cast<NodeId>(core.n_) : ch.initial_nodes;
  // Nodes that join later are unknown to the driver and the coordinators until they join.
  for (NodeId n = initial_; n < core.n_; ++n) {
    core.view_.set_up(n, false);
    core.view_.set_known(n, false);
    core.server_up_[n] = 0;
  }
  for (std::uint32_t i = 0; i < ch.events.size(); ++i) push(ch.events[i].at, kChange, i);
  // A replica set that changes during the run can lose or invalidate a scheduled answer.
  if (ch.any()) core.answers_fixed_ = false;
}

void Placement::push(SimTime at, Ev sub, std::uint32_t arg) { core_.push_mech(at, id_, sub, arg); }

const char* Placement::event_name(std::uint16_t sub) const {
  static constexpr std::array<const char*, kEvents> kNames{"placement.change", "placement.migration",
                                                           "placement.change_done", "placement.stream_chunk",
                                                           "placement.resize_tick"};
  return sub < kNames.size() ? kNames[sub] : "placement.unknown";
}

}  // namespace lbsim
