// Fixed-type object pools for event payloads, and a FIFO ring of deadlines.
//
// StableChunks<T>: objects constructed in place, in chunks of 64 that never move, for types that
// cannot move (an arena that live plans point into). Indexing costs two dependent loads, where a
// std::deque's index arithmetic cost about 55 instructions per operation (issue 14), and there is
// no allocation header per object.
//
// Slab<T>: alloc() returns an index that stays valid until release(); released indexes are reused
// (LIFO), so steady state allocates nothing. T must have a `gen` member, bumped on release, which
// lets timers and late events recognise a recycled slot.
//
// Column<U>: per-slot state kept beside a Slab rather than in T (a dense 4-byte tag that timers
// scan, or state only one feature uses). The owner declares it as a member and registers it once
// with slab.add_column(column, fill); from then on the column has exactly capacity() entries:
// add_column sizes it to the slots allocated so far, and every alloc() that grows the slab grows
// each registered column with it, new entries set to `fill`. So column[i] is valid for every slot
// ever returned by alloc(), and reading or writing it is one indexed access, with no bounds test
// (a Debug build checks it). release() leaves columns alone: an entry keeps the value last
// written until its owner writes it again, as a std::vector would (callers that need a reset
// write it, e.g. a dead tag when the slot's request ends). A column that is never registered
// stays empty and costs nothing; a registered one costs its entries' memory and, only when the
// slab grows, their growth — never anything per alloc() or release() of a reused slot.
// Lifetime: neither a column nor its slab moves or is copied after add_column (both are
// non-copyable), and the column outlives every later alloc() of its slab — members of one owner.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "sim/core/check.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

template <class T>
class StableChunks {
 public:
  StableChunks() = default;
  StableChunks(const StableChunks&) = delete;
  StableChunks& operator=(const StableChunks&) = delete;
  ~StableChunks() {
    for (std::size_t i = 0; i < size_; ++i) (*this)[i].~T();
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if ((size_ >> kBits) == chunks_.size()) chunks_.push_back(std::make_unique<Chunk>());
    T* p = ::new (static_cast<void*>(chunks_.back()->bytes + (size_ & kMask) * sizeof(T))) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  T& operator[](std::size_t i) {
    return *std::launder(reinterpret_cast<T*>(chunks_[i >> kBits]->bytes + (i & kMask) * sizeof(T)));
  }
  std::size_t size() const { return size_; }

 private:
  static constexpr unsigned kBits = 6;
  static constexpr std::size_t kMask = (std::size_t{1} << kBits) - 1;
  struct Chunk {
    alignas(T) std::byte bytes[sizeof(T) << kBits];
  };
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::size_t size_ = 0;
};

// What a Slab grows: its registered columns, through one virtual call per column per growth.
class SlabColumnBase {
 public:
  SlabColumnBase() = default;
  SlabColumnBase(const SlabColumnBase&) = delete;
  SlabColumnBase& operator=(const SlabColumnBase&) = delete;
  virtual void grow_to(std::size_t n) = 0;

 protected:
  ~SlabColumnBase() = default;
};

template <class U>
class Column final : public SlabColumnBase {
 public:
  U& operator[](std::size_t i) {
    LBSIM_DCHECK(i < v_.size(), "column read beyond its slab's capacity (or never registered)");
    return v_[i];
  }
  const U& operator[](std::size_t i) const {
    LBSIM_DCHECK(i < v_.size(), "column read beyond its slab's capacity (or never registered)");
    return v_[i];
  }
  std::size_t size() const { return v_.size(); }  // its slab's capacity once registered
  bool registered() const { return registered_; }

 private:
  template <class T>
  friend class Slab;
  void grow_to(std::size_t n) override { v_.resize(n, fill_); }
  std::vector<U> v_;
  U fill_{};
  bool registered_ = false;
};

template <class T>
class Slab {
 public:
  Slab() = default;
  Slab(const Slab&) = delete;
  Slab& operator=(const Slab&) = delete;
  // Registers `c` (see the header): sized to capacity() now, grown with the slab from now on.
  template <class U>
  void add_column(Column<U>& c, U fill) {
    LBSIM_DCHECK(!c.registered_, "a column registered twice");
    c.registered_ = true;
    c.fill_ = fill;
    c.grow_to(items_.size());
    columns_.push_back(&c);
  }
  std::uint32_t alloc() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      ++live_;
      return i;
    }
    items_.emplace_back();
    for (SlabColumnBase* c : columns_) c->grow_to(items_.size());
    ++live_;
    return static_cast<std::uint32_t>(items_.size() - 1);
  }
  void release(std::uint32_t i) {
    LBSIM_DCHECK(live_ > 0 && i < items_.size(), "slab slot released twice or never allocated");
    const std::uint32_t g = items_[i].gen + 1;
    items_[i] = T{};
    items_[i].gen = g;
    free_.push_back(i);
    --live_;
  }
  T& operator[](std::uint32_t i) { return items_[i]; }
  const T& operator[](std::uint32_t i) const { return items_[i]; }
  std::size_t live() const { return live_; }
  std::size_t capacity() const { return items_.size(); }

 private:
  std::vector<T> items_;
  std::vector<std::uint32_t> free_;
  std::vector<SlabColumnBase*> columns_;
  std::size_t live_ = 0;
};

// A FIFO of (deadline, id, gen) with non-decreasing deadlines (push clamps a deadline up to the
// last one pushed; callers push "now + constant" or, for coordinators that fix the deadline at
// dequeue, "start + constant" when the work ends, so the clamp is at most the small disorder of
// send times or of coordinator service times; an answer after its request's deadline never
// counts as a success either way).
class DeadlineFifo {
 public:
  struct Entry {
    SimTime at;
    std::uint32_t id;
    std::uint32_t gen;
  };
  [[gnu::always_inline]] void push(SimTime at, std::uint32_t id, std::uint32_t gen) {  // inlined: one store and a test
    if (at < last_) at = last_;
    last_ = at;
    if (size_ == cap_) grow();
    buf_[(head_ + size_) & (cap_ - 1)] = {at, id, gen};
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  const Entry& front() const { return buf_[head_]; }
  void pop() {
    head_ = (head_ + 1) & (cap_ - 1);
    --size_;
  }
  bool armed = false;  // an event for front() is in the event queue

 private:
  // The new ring is left uninitialized (`new Entry[n]`, not a zero-filled vector): its unused half
  // then costs no resident memory until the FIFO fills it (issue 14, memory per operation).
  void grow() {
    const std::size_t n = cap_ == 0 ? 64 : cap_ * 2;
    std::unique_ptr<Entry[]> next(new Entry[n]);
    for (std::size_t i = 0; i < size_; ++i) next[i] = buf_[(head_ + i) & (cap_ - 1)];
    buf_ = std::move(next);
    cap_ = n;
    head_ = 0;
  }
  std::unique_ptr<Entry[]> buf_;
  std::size_t cap_ = 0;
  std::size_t head_ = 0, size_ = 0;
  SimTime last_ = 0;
};

}  // namespace lbsim
