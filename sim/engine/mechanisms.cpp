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

// A mechanism's event: its entry leaves the table before its handler runs (which may push more).
void Simulation::Impl::on_mech(std::uint32_t id) {
  const MechEvent m = mech_events_.take(id);
  switch (m.mech) {
    case kMechDriverSpec: on_pct_timer(); break;
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
