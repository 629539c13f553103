// The events of the engine's mechanisms (issue 45): every one travels as the queue's kMech kind
// whose id indexes this table's entry (mechanism, sub-kind, argument), so that the queue's 16
// kinds hold the core's hot ones in a dense switch, no id carries a flag bit, and a mechanism has
// 65,536 sub-kinds and a full 32-bit argument. An entry lives from its push to its pop; the order
// of events is the queue's (time, sequence), which the table does not touch.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/check.hpp"

namespace lbsim {

struct MechEvent {
  std::uint16_t mech = 0;  // the mechanism's index in the engine's ordered list
  std::uint16_t sub = 0;   // its own kind of event
  std::uint32_t arg = 0;   // its argument (a node, a slot, a decision number)
};

class MechEvents {
 public:
  // The id of a new entry (recycled ids first: the table stays as large as the most pending).
  std::uint32_t add(const MechEvent& e) {
    if (free_.empty()) {
      slots_.push_back(e);
      return static_cast<std::uint32_t>(slots_.size() - 1);
    }
    const std::uint32_t id = free_.back();
    free_.pop_back();
    slots_[id] = e;
    return id;
  }
  const MechEvent& peek(std::uint32_t id) const { return slots_[id]; }
  // The entry of a popped event; its id is free again.
  MechEvent take(std::uint32_t id) {
    LBSIM_DCHECK(id < slots_.size(), "a mechanism event outside the table");
    free_.push_back(id);
    return slots_[id];
  }
  std::size_t pending() const { return slots_.size() - free_.size(); }

 private:
  std::vector<MechEvent> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace lbsim
