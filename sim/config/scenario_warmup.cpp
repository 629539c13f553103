// Warnings for a run that ends before a mechanism has warmed up (issue 44.12): until then it acts on
// its starting state, not on the run's latencies or hit rates, so a short run understates (or
// overstates) it. Each mechanism of sim/mech/specs.inc gives its own (<name>_warmup in its folder's
// <name>_config.cpp, from the warm-up times of its logic, whose header gives their sources).
#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"

namespace lbsim {

std::optional<SimTime> scheduled_end(const WorkloadSpec& w) {
  if (w.duration > 0 && w.warmup_ops == 0) return w.warmup + w.duration;
  return std::nullopt;
}

std::vector<std::string> warmup_warnings(const Scenario& sc, SimTime end) {
  std::vector<std::string> out;
  // The mechanisms whose checks live in their folders (sim/mech/specs.inc), in the list's order.
#define LBSIM_MECHANISM_SPEC(name) name##_warmup(sc, end, out);
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC
  return out;
}

}  // namespace lbsim
