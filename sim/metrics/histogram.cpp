#include "sim/metrics/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace lbsim {

SimTime LatencyHistogram::bucket_low(std::size_t index) {
  const std::size_t q = index >> kSubBits;
  if (q <= 1) return static_cast<SimTime>(index);
  const std::size_t shift = q - 1;
  return static_cast<SimTime>((index - shift * 128) << shift);
}

SimTime LatencyHistogram::bucket_width(std::size_t index) {
  const std::size_t q = index >> kSubBits;
  return q <= 1 ? 1 : SimTime{1} << (q - 1);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = other.lo_; i <= other.hi_ && i < kBuckets; ++i) counts_[i] += other.counts_[i];
  lo_ = std::min(lo_, other.lo_);
  hi_ = std::max(hi_, other.hi_);
  if (other.count_) {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  clamped_ += other.clamped_;
  sum_ += other.sum_;
}

void LatencyHistogram::clear() {
  if (lo_ <= hi_) std::fill(counts_.begin() + static_cast<std::ptrdiff_t>(lo_), counts_.begin() + static_cast<std::ptrdiff_t>(hi_) + 1, 0);
  lo_ = kBuckets;
  hi_ = 0;
  count_ = clamped_ = 0;
  sum_ = 0;
  min_ = kMaxValue;
  max_ = 0;
}

double LatencyHistogram::mean() const {
  if (count_ == 0) return 0;
  return static_cast<double>(sum_) / static_cast<double>(count_);
}

SimTime LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<std::uint64_t>(rank, 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t i = lo_; i <= hi_; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const SimTime mid = bucket_low(i) + bucket_width(i) / 2;
      return std::clamp(mid, min(), max_);
    }
  }
  return max_;
}

LatencyHistogram LatencyHistogram::from_buckets(const std::vector<std::pair<std::size_t, std::uint64_t>>& buckets,
                                                SimTime min, SimTime max, double sum) {
  LatencyHistogram h;
  for (const auto& [i, c] : buckets) {
    if (i >= kBuckets || c == 0) continue;
    h.counts_[i] += c;
    h.lo_ = std::min(h.lo_, i);
    h.hi_ = std::max(h.hi_, i);
    h.count_ += c;
  }
  if (h.count_) {
    h.min_ = min;
    h.max_ = max;
  }
  h.sum_ = static_cast<u128>(std::max(0.0, sum));
  return h;
}

}  // namespace lbsim
