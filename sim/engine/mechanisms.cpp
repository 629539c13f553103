// The engine's mechanisms made from the ordered list sim/mech/mechanisms.inc (mechanism.hpp).
#include <memory>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

#define LBSIM_MECHANISM(name) std::unique_ptr<Mechanism> make_##name(Simulation::Impl& core, std::uint16_t id);
#include "sim/mech/mechanisms.inc"
#undef LBSIM_MECHANISM

void Simulation::Impl::make_mechanisms() {
  using Make = std::unique_ptr<Mechanism> (*)(Simulation::Impl&, std::uint16_t);
  static constexpr Make kList[] = {
#define LBSIM_MECHANISM(name) &make_##name,
#include "sim/mech/mechanisms.inc"
#undef LBSIM_MECHANISM
  };
  mechs_.clear();
  for (std::size_t i = 0; i < std::size(kList); ++i)
    mechs_.push_back(kList[i](*this, static_cast<std::uint16_t>(kMechListed + i)));  // null: not used
}

// The bare copy of the request path (sim_impl.hpp) runs when the scenario uses no mechanism: none of
// the list's, and none of those still in the core (tablets, vnode changes). Then no hook point may
// have a subscriber, since the bare copy would skip it: checked here, once.
void Simulation::Impl::choose_request_path() {
  bool any = tablets_ || vnode_changes_ || streaming_;
  for (const auto& m : mechs_) any = any || m != nullptr;
  hooked_ = any;
  if (hooked_) return;
  const std::size_t subscribers = hooks_.subscribers();
  if (subscribers != 0)
    check_fail("a hook point has a subscriber but no mechanism is on (the bare request path would skip it)",
               subscribers);
}

// A mechanism's event: its entry leaves the table before its handler runs (which may push more).
void Simulation::Impl::on_mech(std::uint32_t id) {
  const MechEvent m = mech_events_.take(id);
  switch (m.mech) {
    case kMechPlacement:
      switch (m.sub) {
        case kChange: on_change(m.arg); break;
        case kMigration: on_migration(m.arg); break;
        case kChangeDone: on_change_done(m.arg); break;
        case kStreamChunk: on_stream_chunk(m.arg); break;
        case kResizeTick: on_resize_tick(m.arg); break;
        default: check_fail("placement event of unknown kind", m.sub);
      }
      break;
    default:
      if (Mechanism* x = listed(m.mech)) x->on_event(m.sub, m.arg);
      else check_fail("event of unknown mechanism", m.mech);
  }
}

}  // namespace lbsim
