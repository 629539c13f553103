// The engine's mechanisms made from the ordered list sim/mech/mechanisms.inc (mechanism.hpp).
#include <memory>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

#define LBSIM_MECHANISM(name) std::unique_ptr<Mechanism> make_##name(Simulation::Impl& core, std::uint16_t id);
#define LBSIM_MECHANISM_BEFORE_POLICIES(name) LBSIM_MECHANISM(name)
#include "sim/mech/mechanisms.inc"
#undef LBSIM_MECHANISM_BEFORE_POLICIES
#undef LBSIM_MECHANISM

namespace {
using Make = std::unique_ptr<Mechanism> (*)(Simulation::Impl&, std::uint16_t);
struct Listed {
  Make make;
  bool before_policies;  // made before the drivers' policies start (mechanisms.inc)
};
constexpr Listed kList[] = {
#define LBSIM_MECHANISM(name) {&make_##name, false},
#define LBSIM_MECHANISM_BEFORE_POLICIES(name) {&make_##name, true},
#include "sim/mech/mechanisms.inc"
#undef LBSIM_MECHANISM_BEFORE_POLICIES
#undef LBSIM_MECHANISM
};
// The mechanisms made before the policies come first, so that the list's order is the order in
// which they are made.
constexpr bool early_first() {
  bool late = false;
  for (const Listed& m : kList) {
    if (m.before_policies && late) return false;
    late = late || !m.before_policies;
  }
  return true;
}
static_assert(early_first(), "a mechanism made before the policies follows one made after them");
}  // namespace

void Simulation::Impl::make_mechanisms(bool before_policies) {
  if (before_policies) {
    mechs_.clear();
    mechs_.resize(std::size(kList));
  }
  for (std::size_t i = 0; i < std::size(kList); ++i)
    if (kList[i].before_policies == before_policies)
      mechs_[i] = kList[i].make(*this, static_cast<std::uint16_t>(kMechListed + i));  // null: not used
}

// The bare copy of the request path (sim_impl.hpp) runs when the scenario uses no mechanism of the
// list. Then no hook point may have a subscriber, since the bare copy would skip it: checked here,
// once.
void Simulation::Impl::choose_request_path() {
  bool any = false;
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
  if (Mechanism* x = listed(m.mech)) x->on_event(m.sub, m.arg);
  else check_fail("event of unknown mechanism", m.mech);
}

}  // namespace lbsim
