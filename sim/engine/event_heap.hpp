// The event of the pending event set (sim/engine/event_queue.hpp) and EventHeap, the implicit
// 4-ary min-heap that holds the events beyond the calendar's horizon: four children per node halve
// the depth of a binary heap and share one 64-byte cache line; `pop` picks the least child with
// conditional moves. Hand-written: Boost.Heap's d_ary_heap keeps a stable-ordering wrapper per
// element and measured slower.
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "sim/core/int128.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

struct Event {
  static constexpr std::uint32_t kIdBits = 24;
  static constexpr std::uint32_t kMaxId = (1u << kIdBits) - 1;
  SimTime at;
  std::uint64_t key;  // seq << 28 | type << 24 | id
  std::uint32_t type() const { return static_cast<std::uint32_t>(key >> kIdBits) & 0xf; }
  std::uint32_t id() const { return static_cast<std::uint32_t>(key) & kMaxId; }
  std::uint64_t seq() const { return key >> kSeqShift; }
  static constexpr unsigned kSeqShift = kIdBits + 4;
  static std::uint32_t type_of(std::uint64_t key) { return static_cast<std::uint32_t>(key >> kIdBits) & 0xf; }
};

// (at, key) as one unsigned 128-bit number (times are never negative): one compare, no branch.
inline bool event_less(const Event& a, const Event& b) {
  return ((u128(static_cast<std::uint64_t>(a.at)) << 64) | a.key) < ((u128(static_cast<std::uint64_t>(b.at)) << 64) | b.key);
}

class EventHeap {
 public:
  void push(const Event& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    Event* h = base();
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!event_less(e, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = e;
  }

  bool empty() const { return heap_.size() == 0; }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return base()[0]; }

  Event pop() {
    Event* h = base();
    const Event out = h[0];
    const Event last = h[heap_.size() - 1];
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n > 0) {
      std::size_t i = 0;
      for (;;) {
        const std::size_t first = kArity * i + 1;
        if (first >= n) break;
        std::size_t c = first;
        if (first + kArity <= n) {  // all four children: a branch-free tournament
          const std::size_t a = event_less(h[first + 1], h[first]) ? first + 1 : first;
          const std::size_t b = event_less(h[first + 3], h[first + 2]) ? first + 3 : first + 2;
          c = event_less(h[b], h[a]) ? b : a;
        } else {
          for (std::size_t k = first + 1; k < n; ++k)
            if (event_less(h[k], h[c])) c = k;
        }
        if (!event_less(h[c], last)) break;
        h[i] = h[c];
        i = c;
      }
      h[i] = last;
    }
    return out;
  }

  // Every pending event, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < heap_.size(); ++i) f(base()[i]);
  }
  // Rewrites every key through `f`, which must keep their order (EventQueue::renumber).
  template <class F>
  void rekey(F&& f) {
    for (std::size_t i = 0; i < heap_.size(); ++i) base()[i].key = f(base()[i].key);
  }

 private:
  static constexpr std::size_t kArity = 4;
  // Element 0 sits at offset 48 of a 64-byte line, so children 4i+1..4i+4 fill one line.
  template <class T>
  struct Aligned64 {
    using value_type = T;
    Aligned64() = default;
    template <class U>
    Aligned64(const Aligned64<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
    template <class U>
    bool operator==(const Aligned64<U>&) const { return true; }
  };
  struct Storage {
    std::vector<Event, Aligned64<Event>> v;
    std::size_t size() const { return v.empty() ? 0 : v.size() - kPad; }
    void push_back(const Event& e) {
      if (v.empty()) v.resize(kPad);
      v.push_back(e);
    }
    void pop_back() { v.pop_back(); }
  };
  static constexpr std::size_t kPad = 3;
  Event* base() { return heap_.v.data() + kPad; }
  const Event* base() const { return heap_.v.data() + kPad; }
  Storage heap_;
};

}  // namespace lbsim
