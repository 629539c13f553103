#include "sim/cache/lru.hpp"

#include <algorithm>

namespace lbsim {

namespace {
constexpr std::uint32_t kInitialBuckets = 16;
}

LruCache::LruCache(std::uint64_t capacity_bytes)
    : capacity_(capacity_bytes), mask_(kInitialBuckets - 1), table_(kInitialBuckets, kNil) {}

std::uint32_t LruCache::alloc_slot() {
  if (free_ != kNil) {
    const std::uint32_t s = free_;
    free_ = at(s).pad_;
    return s;
  }
  const std::uint32_t s = slots_used_++;
  if ((s >> kChunkBits) == chunks_.size()) chunks_.push_back(std::make_unique<Entry[]>(std::size_t{1} << kChunkBits));
  return s;
}

void LruCache::grow_table() {
  std::vector<std::uint32_t> old(table_.size() * 2, kNil);
  old.swap(table_);
  mask_ = static_cast<std::uint32_t>(table_.size() - 1);
  for (std::uint32_t s : old) {
    if (s == kNil) continue;
    std::uint32_t b = bucket_of(at(s).key);
    while (table_[b] != kNil) b = (b + 1) & mask_;
    table_[b] = s;
  }
}

void LruCache::insert_front(std::uint64_t key, std::uint32_t size) {
  // Keep the load at most 1/2: linear probing's expected probe count stays below 2.5 (Knuth,
  // TAOCP vol. 3, 6.4) for a miss.
  if (std::uint64_t{count_ + 1} * 2 > table_.size()) grow_table();
  const std::uint32_t slot = alloc_slot();
  Entry& e = at(slot);
  e.key = key;
  e.size = size;
  link_front(slot);
  std::uint32_t b = bucket_of(key);
  while (table_[b] != kNil) b = (b + 1) & mask_;
  table_[b] = slot;
  ++count_;
  used_ += size;
}

// Backward-shift deletion (Knuth's Algorithm R, TAOCP vol. 3, 6.4): the entries after the freed
// bucket that would be unreachable move back, so lookups never meet a tombstone.
void LruCache::table_erase(std::uint64_t key) {
  std::uint32_t i = bucket_of(key);
  while (at(table_[i]).key != key) i = (i + 1) & mask_;
  for (std::uint32_t j = i;;) {
    table_[i] = kNil;
    for (;;) {
      j = (j + 1) & mask_;
      if (table_[j] == kNil) return;
      const std::uint32_t home = bucket_of(at(table_[j]).key);
      // table_[j] may stay unless its home lies cyclically in (i, j].
      const bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
      if (!stays) break;
    }
    table_[i] = table_[j];
    i = j;
  }
}

void LruCache::remove_slot(std::uint32_t slot, bool eviction) {
  Entry& e = at(slot);
  table_erase(e.key);
  unlink(slot);
  used_ -= e.size;
  --count_;
  if (eviction) ++evictions_;
  e.pad_ = free_;
  free_ = slot;
}

bool LruCache::erase(std::uint64_t key) {
  const std::uint32_t slot = find(key);
  if (slot == kNil) return false;
  remove_slot(slot, false);
  return true;
}

bool LruCache::update(std::uint64_t key, std::uint32_t size) {
  const std::uint32_t slot = find(key);
  if (slot == kNil) return false;
  if (size > capacity_) {
    remove_slot(slot, false);
    return true;
  }
  Entry& e = at(slot);
  used_ = used_ - e.size + size;
  e.size = size;
  evict_to_fit();
  return true;
}

void LruCache::clear() {
  std::fill(table_.begin(), table_.end(), kNil);
  head_ = tail_ = free_ = kNil;
  slots_used_ = 0;  // the chunks stay allocated and are handed out again in order
  count_ = 0;
  used_ = 0;
}

std::uint64_t LruCache::memory_bytes() const {
  return chunks_.size() * (std::uint64_t{1} << kChunkBits) * sizeof(Entry) + table_.capacity() * sizeof(std::uint32_t);
}

std::vector<std::uint64_t> LruCache::keys_mru_first() const {
  std::vector<std::uint64_t> out;
  out.reserve(count_);
  for (std::uint32_t s = head_; s != kNil; s = at(s).next) out.push_back(at(s).key);
  return out;
}

}  // namespace lbsim
