// The pending event set: an implicit binary min-heap of 16-byte keys ordered by (time, sequence).
//
// Contract: an event is (time, type, id) where `type` (< 16) selects the handler and `id`
// (< 2^24) indexes the handler's payload slab; payloads live out of line, so the heap moves only
// two words. The sequence number makes the order total and reproducible: events at the same time
// fire in the order they were scheduled. No allocation once the heap has reached its high-water
// mark; no std::function.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/core/time.hpp"

namespace lbsim {

class EventQueue {
 public:
  static constexpr std::uint32_t kIdBits = 24;
  static constexpr std::uint32_t kMaxId = (1u << kIdBits) - 1;

  struct Event {
    SimTime at;
    std::uint64_t key;  // seq << 28 | type << 24 | id
    std::uint32_t type() const { return static_cast<std::uint32_t>(key >> kIdBits) & 0xf; }
    std::uint32_t id() const { return static_cast<std::uint32_t>(key) & kMaxId; }
  };

  void push(SimTime at, std::uint32_t type, std::uint32_t id) {
    if (id > kMaxId) throw std::length_error("event payload index exceeds 2^24 (too many requests in flight)");
    Event e{at, (seq_++ << 28) | (std::uint64_t{type} << kIdBits) | id};
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!less(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }

  Event pop() {
    const Event out = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n > 0) {
      std::size_t i = 0;
      for (;;) {
        std::size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && less(heap_[c + 1], heap_[c])) ++c;
        if (!less(heap_[c], last)) break;
        heap_[i] = heap_[c];
        i = c;
      }
      heap_[i] = last;
    }
    return out;
  }

  std::uint64_t scheduled() const { return seq_; }

 private:
  static bool less(const Event& a, const Event& b) { return a.at < b.at || (a.at == b.at && a.key < b.key); }
  std::vector<Event> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace lbsim
