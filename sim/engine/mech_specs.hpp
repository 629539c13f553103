// The mechanisms' own specs (issue 45), one slot per line of sim/mech/specs.inc: each
// mechanism's parser (in its folder, compiled into lbsim_config) fills its slot with a struct of
// its own when the mechanism is on, and the mechanism reads it back. The core and the scenario's
// NodeModelSpec name none of them. A slot holds an immutable object shared by the copies of a
// scenario (a sweep copies scenarios, and no run changes a spec).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <utility>

namespace lbsim {

struct MechSpecs {
  enum Index : std::uint8_t {
#define LBSIM_MECHANISM_SPEC(name) k_##name,
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC
    kCount
  };
  std::array<std::shared_ptr<const void>, kCount> slot{};
  // The parts of the core's work that a mechanism takes over when it is on, so that the core
  // (which names no mechanism) knows to leave them.
  struct Claims {
    // The drivers' view of faults: the core's fixed faults.driver_detection_ms delays do not apply
    // (the gossip-side delays still do).
    bool driver_detection = false;
  } claims;

  // The spec of slot i (null: the mechanism is off).
  template <class T>
  const T* get(Index i) const {
    return static_cast<const T*>(slot[i].get());
  }
  template <class T>
  void set(Index i, T spec) {
    slot[i] = std::make_shared<const T>(std::move(spec));
  }
  void clear(Index i) { slot[i].reset(); }
};

}  // namespace lbsim
