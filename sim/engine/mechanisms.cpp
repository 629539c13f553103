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

}  // namespace lbsim
