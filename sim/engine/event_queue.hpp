// The pending event set: an implicit 4-ary min-heap of 16-byte keys ordered by (time, sequence).
// Four children per node halve the depth of a binary heap, and the four children of a node share
// one 64-byte cache line (the array is aligned so that they do); `pop` picks the least child with
// comparisons the compiler turns into conditional moves. Hand-written: no Debian library offers a
// d-ary heap over a flat array (Boost.Heap's d_ary_heap keeps a stable-ordering wrapper per
// element and is measured slower here).
//
// Contract: an event is (time, type, id) where `type` (< 16) selects the handler and `id`
// (< 2^24) indexes the handler's payload slab; payloads live out of line, so the heap moves only
// two words. The sequence number makes the order total and reproducible: events at the same time
// fire in the order they were scheduled. No allocation once the heap has reached its high-water
// mark; no std::function.
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "sim/core/int128.hpp"
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
    const Event e{at, (seq_++ << 28) | (std::uint64_t{type} << kIdBits) | id};
    std::size_t i = heap_.size();
    heap_.push_back(e);
    Event* h = base();
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!less(e, h[parent])) break;
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
          const std::size_t a = less(h[first + 1], h[first]) ? first + 1 : first;
          const std::size_t b = less(h[first + 3], h[first + 2]) ? first + 3 : first + 2;
          c = less(h[b], h[a]) ? b : a;
        } else {
          for (std::size_t k = first + 1; k < n; ++k)
            if (less(h[k], h[c])) c = k;
        }
        if (!less(h[c], last)) break;
        h[i] = h[c];
        i = c;
      }
      h[i] = last;
    }
    return out;
  }

  std::uint64_t scheduled() const { return seq_; }

 private:
  static constexpr std::size_t kArity = 4;
  // (at, key) as one unsigned 128-bit number (times are never negative): one compare, no branch.
  static bool less(const Event& a, const Event& b) {
    using U = u128;
    return ((U(static_cast<std::uint64_t>(a.at)) << 64) | a.key) < ((U(static_cast<std::uint64_t>(b.at)) << 64) | b.key);
  }
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
  std::uint64_t seq_ = 0;
};

}  // namespace lbsim
