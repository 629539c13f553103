// The list sim/mech/specs.inc run in order: the mechanisms' keys, parsers and checks.
#include "sim/config/mech_spec_input.hpp"

namespace lbsim {

std::vector<std::string> mechanism_keys(MechSection section) {
  std::vector<std::string> out;
#define LBSIM_MECHANISM_SPEC(name)                  \
  for (const MechKey& k : name##_spec_keys())       \
    if (k.section == section) out.push_back(k.key);
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC
  return out;
}

void parse_mechanism_specs(const MechSpecInput& in, MechSection section, MechSpecs& out) {
#define LBSIM_MECHANISM_SPEC(name) \
  if (name##_spec_keys().front().section == section) parse_##name##_spec(in, out);
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC
}

void check_mechanism_specs(const Scenario& sc) {
#define LBSIM_MECHANISM_SPEC(name) name##_spec_check(sc);
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC
  (void)sc;
}

}  // namespace lbsim
