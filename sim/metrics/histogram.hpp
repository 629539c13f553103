// A mergeable HDR-style log-linear latency histogram over integer nanoseconds.
//
// Contract:
// - Values 0..255 ns have exact buckets; above that every octave [2^k, 2^(k+1)) is split into 128
//   equal buckets, so a reported value (the bucket midpoint) is within 1/256 (0.39 %) of every
//   value recorded in the bucket. Range: 0 to 1 hour; larger values are clamped to 1 hour and
//   counted in `clamped()`. Negative values are recorded as 0.
// - Fixed memory (4,562 counters, 36 KiB) whatever the number of values: no per-value storage.
// - merge() adds another histogram bucket by bucket (over the span of its non-zero buckets);
//   merging is exact, associative and commutative, so per-seed histograms can be combined later.
// - count, min, max and the sum (for the mean) are exact.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/int128.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 7;                 // 128 buckets per octave
  static constexpr SimTime kMaxValue = 3600 * kSec;  // 1 hour
  static constexpr std::size_t kBuckets = 4562;      // index_of(kMaxValue) + 1

  LatencyHistogram() : counts_(kBuckets, 0) {}

  void record(SimTime v) {
    if (v < 0) v = 0;
    if (v > kMaxValue) {
      v = kMaxValue;
      ++clamped_;
    }
    const std::size_t i = index_of(v);
    ++counts_[i];
    if (i < lo_) lo_ = i;
    if (i > hi_) hi_ = i;
    ++count_;
    sum_ += static_cast<u128>(v);
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
  }
  void merge(const LatencyHistogram& other);
  void clear();

  std::uint64_t count() const { return count_; }
  std::uint64_t clamped() const { return clamped_; }
  SimTime min() const { return count_ ? min_ : 0; }
  SimTime max() const { return max_; }
  double mean() const;  // ns; 0 when empty
  // The value at percentile p in [0, 100]: the midpoint of the bucket holding the
  // ceil(p/100 * count)-th smallest value, clamped to [min, max]. 0 when empty.
  SimTime percentile(double p) const;

  static constexpr std::size_t index_of(SimTime v) {
    const auto u = static_cast<std::uint64_t>(v);
    if (u < 256) return static_cast<std::size_t>(u);
    const int k = 63 - __builtin_clzll(u);  // octave, >= 8
    const int shift = k - kSubBits;
    return static_cast<std::size_t>(shift) * 128 + static_cast<std::size_t>(u >> shift);
  }
  static SimTime bucket_low(std::size_t index);
  static SimTime bucket_width(std::size_t index);
  const std::vector<std::uint64_t>& buckets() const { return counts_; }
  // Restores a histogram from its non-zero buckets (index, count) and exact extremes.
  static LatencyHistogram from_buckets(const std::vector<std::pair<std::size_t, std::uint64_t>>& buckets,
                                       SimTime min, SimTime max, double sum);

 private:
  std::vector<std::uint64_t> counts_;
  // Every non-zero bucket lies in [lo_, hi_] (empty: lo_ > hi_): merge and clear touch only that
  // span, so coarsening a timeline costs the latency range, not the 4,562 buckets.
  std::size_t lo_ = kBuckets, hi_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t clamped_ = 0;
  u128 sum_ = 0;
  SimTime min_ = kMaxValue;
  SimTime max_ = 0;
};

static_assert(LatencyHistogram::index_of(LatencyHistogram::kMaxValue) + 1 == LatencyHistogram::kBuckets);

}  // namespace lbsim
