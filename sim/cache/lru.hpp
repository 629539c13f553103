// An exact LRU cache of partitions, for one node (or one shard under `per_shard`): keys are 64-bit
// key ids, the capacity is in bytes and every entry has its own size (issue 37, item 1).
//
// Contract:
//   access(key, size)  a read. Hit: the entry moves to the front (most recently used); its stored
//                      size is kept (`size` is ignored: a write changes a size, through update()).
//                      Miss: the entry is inserted at the front with `size`, then entries are
//                      evicted from the tail (least recently used) until the bytes in use fit the
//                      capacity. An entry larger than the whole capacity is never inserted (it would
//                      only empty the cache); it counts as a miss.
//   erase(key)         write invalidation: the entry, if cached, is dropped.
//   update(key, size)  write in place: a cached entry takes its new size without changing its
//                      recency (a write is not a read); if it grew, the tail is evicted until the
//                      bytes fit (which may evict the entry itself). An absent key stays absent.
//   clear()            a restart: every entry dropped; the hit/miss counters are kept (they count
//                      the run), reset_counters() zeroes them.
// Every operation is O(1) (expected, for the hash probe; eviction is O(1) per evicted entry).
// Nothing allocates once the cache has held its largest number of entries.
//
// Memory: at most 48 bytes per cached key, arrays included (tests/cache_lru_test.cpp measures
// memory_bytes() / size()). An entry is 24 bytes (key, two uint32 links, uint32 size) in a slab
// that grows by fixed chunks (so its slack is one chunk, not a doubling); the index is an
// open-addressing table of uint32 slot numbers (4 bytes a bucket) with linear probing, kept at a
// load in (1/4, 1/2] once it has grown (8 to 16 bytes per key), and backward-shift deletion, so
// no tombstones ever lengthen a probe. Hand-written: no Debian package offers an LRU with a byte
// capacity in this footprint (Boost's bimap/multi_index LRU pattern costs three node-based
// indices, well over 100 bytes per key; std::list + std::unordered_map about 100).
//
// Sizes are uint32 bytes (a partition of up to 4 GiB); at most 2^32 - 2 entries.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/core/check.hpp"

namespace lbsim {

class LruCache {
 public:
  static constexpr std::uint32_t kNil = 0xffffffffu;
  static constexpr std::uint32_t kChunkBits = 12;  // 4,096 entries (96 KiB) per slab chunk

  explicit LruCache(std::uint64_t capacity_bytes);

  // A read of `key`: true on a hit. See the contract above.
  bool access(std::uint64_t key, std::uint32_t size) {
    const std::uint32_t slot = find(key);
    if (slot != kNil) {
      ++hits_;
      move_to_front(slot);
      return true;
    }
    ++misses_;
    if (size > capacity_) return false;
    insert_front(key, size);
    evict_to_fit();
    return false;
  }

  // True when `key` is cached; no counter or recency changes.
  bool contains(std::uint64_t key) const { return find(key) != kNil; }
  bool erase(std::uint64_t key);
  bool update(std::uint64_t key, std::uint32_t size);
  void clear();
  void reset_counters() { hits_ = misses_ = 0; }

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::uint64_t evictions() const { return evictions_; }
  std::uint64_t used_bytes() const { return used_; }
  std::uint64_t capacity_bytes() const { return capacity_; }
  std::uint32_t size() const { return count_; }
  // Bytes of the slab chunks and the index table (the cache's own arrays).
  std::uint64_t memory_bytes() const;
  // Keys from the most to the least recently used (O(size); for tests and reports).
  std::vector<std::uint64_t> keys_mru_first() const;

 private:
  struct Entry {
    std::uint64_t key;
    std::uint32_t prev, next;  // toward the front (MRU) / the tail (LRU); kNil at the ends
    std::uint32_t size;
    std::uint32_t pad_;        // free-list link when the slot is free
  };
  static_assert(sizeof(Entry) == 24);

  Entry& at(std::uint32_t slot) { return chunks_[slot >> kChunkBits][slot & ((1u << kChunkBits) - 1)]; }
  const Entry& at(std::uint32_t slot) const { return chunks_[slot >> kChunkBits][slot & ((1u << kChunkBits) - 1)]; }

  // splitmix64's finaliser: key ids are often consecutive integers, which a plain multiplicative
  // hash would send to regular bucket patterns.
  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  std::uint32_t bucket_of(std::uint64_t key) const { return static_cast<std::uint32_t>(mix(key) & mask_); }

  std::uint32_t find(std::uint64_t key) const {
    for (std::uint32_t b = bucket_of(key);; b = (b + 1) & mask_) {
      const std::uint32_t s = table_[b];
      if (s == kNil) return kNil;
      if (at(s).key == key) return s;
    }
  }

  void unlink(std::uint32_t slot) {
    Entry& e = at(slot);
    if (e.prev != kNil) at(e.prev).next = e.next; else head_ = e.next;
    if (e.next != kNil) at(e.next).prev = e.prev; else tail_ = e.prev;
  }
  void link_front(std::uint32_t slot) {
    Entry& e = at(slot);
    e.prev = kNil;
    e.next = head_;
    if (head_ != kNil) at(head_).prev = slot; else tail_ = slot;
    head_ = slot;
  }
  void move_to_front(std::uint32_t slot) {
    if (slot == head_) return;
    unlink(slot);
    link_front(slot);
  }

  void insert_front(std::uint64_t key, std::uint32_t size);
  void evict_to_fit() {
    while (used_ > capacity_) remove_slot(tail_, true);
  }
  void remove_slot(std::uint32_t slot, bool eviction);
  void table_erase(std::uint64_t key);
  void grow_table();
  std::uint32_t alloc_slot();

  std::uint64_t capacity_;
  std::uint64_t used_ = 0;
  std::uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
  std::uint32_t count_ = 0;
  std::uint32_t head_ = kNil, tail_ = kNil;
  std::uint32_t free_ = kNil;       // free-list of slots
  std::uint32_t slots_used_ = 0;    // slots ever handed out (the slab's high-water mark)
  std::uint32_t mask_ = 0;          // table_.size() - 1
  std::vector<std::uint32_t> table_;
  std::vector<std::unique_ptr<Entry[]>> chunks_;
};

}  // namespace lbsim
