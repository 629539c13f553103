// The pending event set, ordered by (time, sequence): events at the same time fire in the order
// they were scheduled, so the order is total and reproducible.
//
// Contract: an event is (time, type, id) where `type` (< 16) selects the handler and `id`
// (< 2^24) indexes the handler's payload slab; the key packs seq << 28 | type << 24 | id, with a
// 36-bit sequence number that renumber() compacts before it runs out; payloads live out of line, so the set moves only
// two words. Events are scheduled no earlier than the last one popped (simulated time never goes
// back); the set still orders correctly an event scheduled earlier. No std::function; no
// allocation once the high-water mark is reached.
//
// Two structures, both hand-written (no Debian library offers either over a flat array; Boost.Heap's
// d_ary_heap keeps a stable-ordering wrapper per element and measured slower):
// - EventHeap: an implicit 4-ary min-heap. Four children per node halve the depth of a binary
//   heap and share one 64-byte cache line; `pop` picks the least child with conditional moves.
// - EventQueue: a calendar queue (Brown, "Calendar queues: a fast O(1) priority queue
//   implementation for the simulation event set problem", CACM 31(10), 1988) in the simulation's
//   own shape: a ring of `n` time slots of width 2^shift ns covering [cur, cur + n) slots from the
//   earliest pending event, each slot a short list sorted by (time, sequence) of 16-byte nodes
//   (the time's bits below the slot width, the key, the link), with a bitmap of the non-empty
//   slots; events beyond that horizon wait in an EventHeap, compared with the ring's earliest at
//   every pop. The slot width follows the median gap between popped events and the horizon the
//   scheduling delays (adapt(), every 4,096 pops); a crowded slot re-shapes from the pending
//   events' spread (respread()). A new geometry re-links the ring's nodes in place. Lanes
//   (push_lane) keep a FIFO server's far completions out of the ring until the one before them
//   pops. The pop order is the heap's exactly; only the cost differs.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "sim/core/int128.hpp"
#include "sim/engine/event_heap.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

class EventQueue {
 public:
  using Event = lbsim::Event;
  static constexpr std::uint32_t kIdBits = Event::kIdBits;
  static constexpr std::uint32_t kMaxId = Event::kMaxId;

  EventQueue() { reshape(kInitialShift, kInitialSlotsLog2); }

  void push(SimTime at, std::uint32_t type, std::uint32_t id) {
    const std::uint64_t key = next_key(type, id);
    sample_delay(at);
    place(at, key);
    ++size_;
  }

  // Lanes: a lane holds the events of one FIFO server, its completions, scheduled in
  // non-decreasing time order and far ahead (behind a long queue). Only a lane's earliest event is
  // in the calendar; the others wait in the lane's FIFO, appended where it was last written, and
  // enter the calendar (with the sequence number of their scheduling) when the one before them
  // pops. The pop order stays exactly (time, sequence); what changes is the memory touched: at
  // 10,000 client threads a completion 100 ms ahead otherwise lands on a cold slot and a cold list.
  // An event earlier than its lane's last goes to the calendar on its own, so any lane assignment
  // is correct; a monotone one is what makes it fast. The caller reports every popped event of a
  // lane with popped() before the next pop.
  void set_lanes(std::size_t n) { lanes_.assign(n, Lane{}); }
  void push_lane(std::uint32_t lane, SimTime at, std::uint32_t type, std::uint32_t id) {
    // Only events kLaneAhead or more ahead use the FIFO (it costs instructions, and near slots
    // are warm anyway). A near one is placed on its own and leaves the FIFO untouched, so the
    // FIFO stays sorted and its head stays the one in the calendar.
    if (at - last_ < kLaneAhead) [[likely]] {
      push(at, type, id);
      return;
    }
    push_far(lane, at, type, id);
  }
  // Events waiting in the lanes' FIFOs (not yet in the calendar), for tests.
  std::size_t lane_waiting() const { return lane_waiting_; }
  // Whether popped() has anything to do (the caller may skip looking up the lane).
  bool lanes_active() const { return active_lanes_ != 0; }
  // Returns the key of the lane's event that this moved into the calendar, or kNoKey (no real
  // key: its sequence field is 2^36 - 1, which renumber() keeps every real key below). The caller may prefetch that event's payload: it pops one service
  // time later, and at 10,000 client threads its record is otherwise read cold (issue 14).
  static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
  std::uint64_t popped(std::uint32_t lane, const Event& e) {
    if (lanes_[lane].queued != 0 && lanes_[lane].head == e.key) return next_of(lane);
    return kNoKey;
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // The time of the event pop() would return (not empty()), for a caller that runs the queue up
  // to a time of its own (Simulation::external_advance: lbsim serve's paced scheduler).
  SimTime next_time() const {
    if (near_ > 0) {
      const std::size_t slot = first_slot();
      const Node& n = node(slots_[slot].head);
      const Event e{static_cast<SimTime>((bucket_of_slot(slot) << shift_) | n.low), n.key};
      if (event_less(e, far_min_)) return e.at;
    }
    return far_.top().at;
  }

  Event pop() {
    --size_;
    if (near_ > 0) {
      const std::size_t slot = first_slot();
      Slot& sl = slots_[slot];
      const Node& n = node(sl.head);
      const std::uint64_t b = bucket_of_slot(slot);
      Event out{static_cast<SimTime>((b << shift_) | n.low), n.key};
      if (event_less(out, far_min_)) {
        const std::uint32_t freed = sl.head;
        sl.head = n.next;
        release(freed);
        // Whether the slot is now empty is a coin toss (one or two events per slot): no branch.
        bits_[slot >> 6] &= ~(std::uint64_t{sl.head == kNil} << (slot & 63));
        --near_;
        cur_ = b;
        advance(out.at, out.key);
        return out;
      }
    }
    Event out = far_.pop();
    far_min_ = far_.empty() ? kNoEvent : far_.top();
    const std::uint64_t b = bucket(out.at);
    if (b > cur_) cur_ = b;
    advance(out.at, out.key);
    return out;
  }

  // Renumbering (renumber()), for tests: the sequence number from which the next adapt()
  // renumbers, and how many times it did.
  void set_renumber_at_for_test(std::uint64_t seq) { renumber_at_ = seq; }
  std::uint64_t renumbered() const { return renumbered_; }
  std::uint64_t next_seq() const { return seq_; }

  // Geometry, for tests and benchmarks.
  unsigned slot_shift() const { return shift_; }
  std::size_t slots() const { return mask_ + 1; }

 private:
  static constexpr std::uint32_t kNil = 0xffffffffu;
  static constexpr unsigned kInitialShift = 10;       // 1.024 us slots
  static constexpr unsigned kInitialSlotsLog2 = 12;   // 4,096 slots
  // 8,192 slots of 8 bytes: 64 KiB, which stays in cache. A ring of 2^16 slots (512 KiB) revisits
  // each line of slots once per turn, cold by then: at 10,000 client threads that was 1.7 cache
  // misses per operation (cachegrind, 1 MiB last level: 4.40M -> 3.82M misses per 300k ops, 0.3%
  // more instructions). Far events are the lanes' and the heap's.
  static constexpr unsigned kMaxSlotsLog2 = 13;
  static constexpr std::uint64_t kAdaptEvery = 1u << 12;
  static constexpr std::uint32_t kCrowded = 64;
  // 16 bytes: the time's bits below the slot width; the slot's own bucket gives the rest.
  struct Node {
    std::uint32_t low;
    std::uint32_t next;
    std::uint64_t key;
  };
  static constexpr unsigned kMaxShift = 32;  // so that `low` holds a slot's offsets
  struct Slot {
    std::uint32_t head = kNil, tail = kNil;  // sorted by (time, sequence); tail valid when head is
  };

  std::uint64_t bucket(SimTime at) const { return static_cast<std::uint64_t>(at) >> shift_; }
  std::uint32_t low_bits(SimTime at) const {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(at) & ((std::uint64_t{1} << shift_) - 1));
  }
  // The absolute bucket of a ring slot, and the time of a node in it.
  std::uint64_t bucket_of_slot(std::size_t slot) const { return cur_ + ((slot - (cur_ & mask_)) & mask_); }
  SimTime time_in(std::size_t slot, const Node& n) const {
    return static_cast<SimTime>((bucket_of_slot(slot) << shift_) | n.low);
  }
  // Order within one slot (one bucket): the low time bits, then the key.
  static bool node_less(const Node& a, const Node& b) {
    return ((u128(a.low) << 64) | a.key) < ((u128(b.low) << 64) | b.key);
  }

  std::uint64_t next_key(std::uint32_t type, std::uint32_t id) {
    if (id > kMaxId) throw std::length_error("event payload index exceeds 2^24 (too many requests in flight)");
    return (seq_++ << Event::kSeqShift) | (std::uint64_t{type} << kIdBits) | id;
  }
  // One placement in 8 samples its scheduling delay (adapt() sizes the horizon from them): the
  // first, the ninth, ... (a countdown: fewer instructions per event than a counter and a mask).
  void sample_delay(SimTime at) {
    if (--delay_in_ == 0) [[unlikely]] {
      delay_in_ = 8;
      ++placed_;
      ++delays_[std::bit_width(static_cast<std::uint64_t>(at > last_ ? at - last_ : 0))];
    }
  }

  // A lane's FIFO: blocks of 32 events from a pool shared by all lanes (a lane costs 32 bytes
  // until it is used; a vector per lane would double, and 40,000 lanes of deques would each
  // allocate a block up front).
  struct Lane {
    std::uint64_t head = 0;   // the key of the lane's event in the calendar (when queued > 0)
    SimTime last = 0;         // the time of the last event appended
    std::uint32_t queued = 0; // the head and the events in the FIFO
    std::uint32_t first = kNil, tail = kNil;  // FIFO blocks
    std::uint16_t rd = 0, wr = 0;             // read position in `first`, write position in `tail`
  };
  static constexpr std::uint32_t kBlockEvents = 32;
  // 4 ms: beyond a few network hops and service times, so that only events behind a long queue
  // (the ring would otherwise widen its slots to cover them) take a lane.
  static constexpr SimTime kLaneAhead = 4'000'000;
  void append(Lane& l, const Event& e) {
    if (l.tail == kNil || l.wr == kBlockEvents) {
      std::uint32_t b = free_block_;
      if (b != kNil) {
        free_block_ = block_next_[b];
      } else {
        b = static_cast<std::uint32_t>(blocks_.size());
        blocks_.emplace_back(new Event[kBlockEvents]);
        block_next_.push_back(kNil);
      }
      block_next_[b] = kNil;
      if (l.tail != kNil) block_next_[l.tail] = b;
      else l.first = b;
      l.tail = b;
      l.wr = 0;
    }
    blocks_[l.tail][l.wr++] = e;
    ++lane_waiting_;
  }
  Event take_front(Lane& l) {
    const Event e = blocks_[l.first][l.rd++];
    --lane_waiting_;
    if (l.first == l.tail && l.rd == l.wr) {  // empty: its one block goes back to the pool
      block_next_[l.first] = free_block_;
      free_block_ = l.first;
      l.first = l.tail = kNil;
      l.rd = l.wr = 0;
    } else if (l.rd == kBlockEvents) {
      const std::uint32_t next = block_next_[l.first];
      block_next_[l.first] = free_block_;
      free_block_ = l.first;
      l.first = next;
      l.rd = 0;
    }
    return e;
  }

  [[gnu::noinline]] void push_far(std::uint32_t lane, SimTime at, std::uint32_t type, std::uint32_t id) {
    const std::uint64_t key = next_key(type, id);
    ++size_;
    Lane& l = lanes_[lane];
    if (l.queued == 0 || at < l.last) {
      if (l.queued == 0) {  // the lane's head
        l.head = key;
        l.last = at;
        l.queued = 1;
        ++active_lanes_;
      }
      sample_delay(at);
      place(at, key);
      return;
    }
    append(l, {at, key});
    l.last = at;
    ++l.queued;
  }
  // The lane's head popped: the next event of its FIFO enters the calendar.
  [[gnu::noinline]] std::uint64_t next_of(std::uint32_t lane) {
    Lane& l = lanes_[lane];
    if (--l.queued == 0) {
      --active_lanes_;
      return kNoKey;
    }
    const Event next = take_front(l);
    l.head = next.key;
    sample_delay(next.at);
    place(next.at, next.key);
    return next.key;
  }

  // The eighth, sixteenth, ... pop samples its gap; adapt() after kAdaptEvery pops, and a
  // renumbering when the sequence numbers near their end (it rewrites the popped event's key too,
  // so that the caller's popped() still finds its lane's head).
  void advance(SimTime at, std::uint64_t& popped_key) {
    if (--gap_in_ == 0) [[unlikely]] {
      gap_in_ = 8;
      ++gaps_[std::bit_width(static_cast<std::uint64_t>(at > last_ ? at - last_ : 0))];
      last_ = at;
      if (++gap_samples_ == kAdaptEvery / 8) {
        adapt();
        if (seq_ >= renumber_at_) [[unlikely]] renumber(popped_key);
      }
      return;
    }
    last_ = at;
  }

  // The 36-bit sequence numbers would run out after 6.9e10 pushes (an hour of simulated time at
  // 3M operations per second), and equal-time events would then pop out of order. Checked every
  // kAdaptEvery pops (no cost per push), from 2^32 pushes before the end, far more than 4,096 pops
  // ever schedule: every pending event gets the sequence number of its rank in (time, key) order,
  // from 1, and the event just popped 0. The map is monotone, so every structure keeps its order
  // (sorted slots, the heap, the lanes' FIFOs) and only the keys change.
  [[gnu::noinline]] void renumber(std::uint64_t& popped_key) {
    std::vector<Event> all;
    all.reserve(size_);
    for_each_pending([&](const Event& e) { all.push_back(e); });
    for (const Lane& l : lanes_) {
      if (l.queued <= 1) continue;  // the head is in the calendar
      for (std::uint32_t b = l.first, rd = l.rd; b != kNil; b = block_next_[b], rd = 0)
        for (std::uint32_t i = rd; i < (b == l.tail ? l.wr : kBlockEvents); ++i) all.push_back(blocks_[b][i]);
    }
    std::sort(all.begin(), all.end(), event_less);
    constexpr std::uint64_t kLow = (std::uint64_t{1} << Event::kSeqShift) - 1;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> to;  // old key -> new key, by old key
    to.reserve(all.size() + 1);
    to.emplace_back(popped_key, popped_key & kLow);
    for (std::size_t i = 0; i < all.size(); ++i)
      to.emplace_back(all[i].key, (std::uint64_t{i + 1} << Event::kSeqShift) | (all[i].key & kLow));
    std::sort(to.begin(), to.end());
    const auto map = [&](std::uint64_t k) {
      const auto it = std::lower_bound(to.begin(), to.end(), std::pair<std::uint64_t, std::uint64_t>{k, 0});
      if (it == to.end() || it->first != k) throw std::logic_error("event queue: renumbering lost an event");
      return it->second;
    };
    for (const Slot& sl : slots_)
      for (std::uint32_t i = sl.head; i != kNil; i = node(i).next) node(i).key = map(node(i).key);
    far_.rekey(map);
    if (far_min_.key != kNoEvent.key) far_min_.key = map(far_min_.key);
    for (Lane& l : lanes_) {
      if (l.queued == 0) continue;
      l.head = map(l.head);
      for (std::uint32_t b = l.first, rd = l.rd; b != kNil; b = block_next_[b], rd = 0)
        for (std::uint32_t i = rd; i < (b == l.tail ? l.wr : kBlockEvents); ++i) blocks_[b][i].key = map(blocks_[b][i].key);
    }
    popped_key &= kLow;
    seq_ = all.size() + 1;
    ++renumbered_;
  }

  // (at, key) travel in registers: an Event built on the stack and read back as one 16-byte load
  // stalls on store forwarding (measured: a third of this function's time).
  [[gnu::always_inline]] void place(SimTime at, std::uint64_t key) {
    ++placed_since_;
    if (bucket(at) - cur_ > mask_) {  // beyond the horizon (or, against the contract, before `cur_`)
      far_.push({at, key});
      if (event_less({at, key}, far_min_)) far_min_ = {at, key};
      return;
    }
    const std::uint32_t idx = alloc();
    node(idx).low = low_bits(at);
    node(idx).key = key;
    insert(idx, bucket(at) & mask_);
  }

  // Links node idx (its event within the horizon, `low` set for the current width) into its
  // slot's sorted list.
  [[gnu::always_inline]] void insert(std::uint32_t idx, std::size_t slot) {
    Node& nd = node(idx);
    Slot& sl = slots_[slot];
    if (sl.head == kNil) {
      nd.next = kNil;
      sl.head = sl.tail = idx;
      bits_[slot >> 6] |= std::uint64_t{1} << (slot & 63);
    } else if (!node_less(nd, node(sl.tail))) {  // the usual case: after everything in the slot
      nd.next = kNil;
      node(sl.tail).next = idx;
      sl.tail = idx;
    } else {
      std::uint32_t* link = &sl.head;
      std::uint32_t walked = 0;
      while (!node_less(nd, node(*link))) {
        link = &node(*link).next;
        ++walked;
      }
      nd.next = *link;
      *link = idx;
      // A crowded slot: the width is far too large for the events pending (say, thousands
      // scheduled before the first pop); re-shape from their spread, at most once per `size_`
      // placements so that the cost stays O(1) per event.
      if (walked > kCrowded && 2 * placed_since_ >= near_ + far_.size() && !reshaping_) {
        ++near_;
        respread();  // re-links everything pending, this event included
        return;
      }
    }
    ++near_;
  }

  // The node pool: one array indexed by node number (the slots and links hold numbers, not
  // pointers, so growing it may move it). One load reaches a node; with chunks of 4,096 it took
  // two dependent loads, on the path of every pop.
  Node& node(std::uint32_t i) { return pool_[i]; }
  const Node& node(std::uint32_t i) const { return pool_[i]; }
  std::uint32_t alloc() {
    if (free_ != kNil) {
      const std::uint32_t i = free_;
      free_ = node(i).next;
      return i;
    }
    if (nodes_ == pool_.size()) pool_.resize(std::max<std::size_t>(4096, 2 * pool_.size()));
    return nodes_++;
  }
  void release(std::uint32_t i) {
    node(i).next = free_;
    free_ = i;
  }

  // The first non-empty slot from cur_'s, cyclically (near_ > 0): the earliest bucket.
  std::size_t first_slot() const {
    const std::size_t p = cur_ & mask_;
    std::size_t w = p >> 6;
    std::uint64_t word = bits_[w] & (~std::uint64_t{0} << (p & 63));
    const std::size_t wmask = bits_.size() - 1;
    while (word == 0) {
      w = (w + 1) & wmask;
      word = bits_[w];
    }
    return (w << 6) + static_cast<std::size_t>(std::countr_zero(word));
  }

  // Every kAdaptEvery pops, the geometry that the last period asks for: slots as wide as the
  // median gap between popped events rounded up to a power of 2 (one to two events per slot; the
  // median ignores idle jumps), and a horizon (slots x width) beyond the delay that 15/16 of the
  // scheduled events had; when 2^13 slots cannot reach that horizon, wider slots. Gaps and
  // delays are sampled one in 8.
  void adapt() {
    gap_samples_ = 0;
    unsigned shift = 0;
    const std::uint64_t gaps = kAdaptEvery / 8;
    for (std::uint64_t below = gaps_[0]; below * 2 < gaps && shift < 63;) below += gaps_[++shift];
    gaps_.fill(0);
    unsigned horizon = 0;  // log2 of the delay that 15/16 of the placements stayed below
    for (std::uint64_t above = placed_ - delays_[0]; above * 16 > placed_ && horizon < 63;) above -= delays_[++horizon];
    placed_ = 0;
    delays_.fill(0);
    const unsigned cur_log2n = static_cast<unsigned>(std::countr_zero(mask_ + 1));  // never shrinks
    // Nor does the horizon: a shorter one would move every event beyond it into the heap (at
    // 500,000 pending, late in an overload run, that held the ring's nodes and a heap of most of
    // them at once: +39 bytes per operation in flight). Only a crowded slot (respread) narrows it.
    horizon = std::min(std::max(horizon, shift_ + cur_log2n), kMaxShift + kMaxSlotsLog2);
    shift = std::min(shift, kMaxShift);
    if (horizon > shift + kMaxSlotsLog2) shift = horizon - kMaxSlotsLog2;
    const unsigned log2n = std::clamp(horizon > shift ? horizon - shift : 0u, cur_log2n, kMaxSlotsLog2);
    // Hysteresis: the current slots may be up to 4x wider or 2x narrower than asked for, as long
    // as the horizon suffices (delay estimates near 2^(shift + 13) would otherwise flip the width
    // back and forth, each time re-sorting everything pending).
    const bool keep = shift_ <= shift + 2 && shift <= shift_ + 1 && shift_ + cur_log2n >= horizon;
    if (!keep) reshape(shift, log2n);
  }

  // A geometry from the pending events themselves: about two slots per event over the median
  // distance of pending events from now (its power of 2, from a histogram: no allocation).
  void respread() {
    std::array<std::uint64_t, 65> d{};
    for_each_pending([&](const Event& e) { ++d[std::bit_width(static_cast<std::uint64_t>(e.at > last_ ? e.at - last_ : 0))]; });
    const std::size_t placed = near_ + far_.size();  // lanes' FIFOs are not in the calendar
    unsigned k = 0;
    for (std::uint64_t below = d[0]; 2 * below < placed && k < 63;) below += d[++k];
    const std::uint64_t half = std::max<std::uint64_t>(placed / 2, 1);
    const std::uint64_t spread = std::uint64_t{1} << k;  // the median distance is below it
    const std::uint64_t width2 = 2 * spread / half;
    const unsigned shift = width2 == 0 ? 0 : std::min(kMaxShift, static_cast<unsigned>(std::bit_width(width2) - 1));
    const unsigned span = static_cast<unsigned>(std::bit_width(spread >> shift)) + 1;
    const unsigned cur_log2n = static_cast<unsigned>(std::countr_zero(mask_ + 1));
    reshape(shift, std::clamp(span, cur_log2n, kMaxSlotsLog2));
  }

  template <class F>
  void for_each_pending(F&& f) const {
    for (std::size_t s = 0; s < slots_.size(); ++s)
      for (std::uint32_t i = slots_[s].head; i != kNil; i = node(i).next) f(Event{time_in(s, node(i)), node(i).key});
    far_.for_each(f);
  }

  // A new geometry: the ring's nodes are re-linked into the new slots where they are (no copy);
  // those now beyond the horizon move to the heap. Events already in the heap stay there (pop
  // compares both), so nothing pending is copied but those few.
  void reshape(unsigned shift, unsigned log2n) {
    reshaping_ = true;  // re-linking never re-shapes
    const std::vector<Slot> old = std::move(slots_);
    const unsigned old_shift = shift_;
    const std::size_t old_mask = mask_;
    const std::uint64_t old_cur = cur_;
    shift_ = std::min(shift, kMaxShift);
    mask_ = (std::size_t{1} << log2n) - 1;
    slots_.assign(mask_ + 1, Slot{});
    bits_.assign(std::max<std::size_t>(1, (mask_ + 1) >> 6), 0);
    near_ = 0;
    cur_ = bucket(last_);
    for (std::size_t s = 0; s < old.size(); ++s) {
      const std::uint64_t b = old_cur + ((s - (old_cur & old_mask)) & old_mask);
      for (std::uint32_t i = old[s].head; i != kNil;) {
        Node& n = node(i);
        const std::uint32_t next = n.next;
        const SimTime at = static_cast<SimTime>((b << old_shift) | n.low);
        if (bucket(at) - cur_ > mask_) {
          far_.push({at, n.key});
          if (event_less({at, n.key}, far_min_)) far_min_ = {at, n.key};
          release(i);
        } else {
          n.low = low_bits(at);
          insert(i, bucket(at) & mask_);
        }
        i = next;
      }
    }
    placed_since_ = 0;
    reshaping_ = false;
  }

  std::vector<Slot> slots_;
  std::vector<std::uint64_t> bits_;   // non-empty slots
  std::vector<Node> pool_;
  std::uint32_t nodes_ = 0;  // nodes ever handed out (the pool's high-water mark)
  std::uint32_t free_ = kNil;
  std::size_t mask_ = 0;
  unsigned shift_ = 0;
  std::uint64_t cur_ = 0;   // the bucket of the earliest event in the ring (slots count from it)
  SimTime last_ = 0;        // the time of the last popped event
  std::size_t near_ = 0, size_ = 0;
  EventHeap far_;
  // far_'s earliest event, kNoEvent (later than any event) while it is empty: pop compares with it
  // without looking at the heap.
  static constexpr Event kNoEvent{std::numeric_limits<SimTime>::max(), ~std::uint64_t{0}};
  Event far_min_ = kNoEvent;
  std::uint64_t seq_ = 0;
  std::uint64_t renumber_at_ = (std::uint64_t{1} << 36) - (std::uint64_t{1} << 32);
  std::uint64_t renumbered_ = 0;
  std::uint32_t delay_in_ = 1, gap_in_ = 8;  // placements / pops until the next sample
  std::uint64_t gap_samples_ = 0, placed_ = 0, placed_since_ = 0;
  std::vector<Lane> lanes_;
  std::size_t active_lanes_ = 0;  // lanes with queued > 0
  std::size_t lane_waiting_ = 0;
  std::vector<std::unique_ptr<Event[]>> blocks_;
  std::vector<std::uint32_t> block_next_;
  std::uint32_t free_block_ = kNil;
  bool reshaping_ = false;
  std::array<std::uint64_t, 65> delays_{};  // sampled placements by bit width of (at - last popped)
  std::array<std::uint64_t, 65> gaps_{};  // sampled pops by bit width of the gap since the previous
};

}  // namespace lbsim
