#include "sim/metrics/timeline.hpp"

namespace lbsim {

void Timeline::coarsen(std::size_t factor) {
  for (std::size_t i = 1; i < used_; ++i) {
    const std::size_t j = i / factor;
    if (j == i) continue;
    Point& m = points_[j];
    Point& p = points_[i];
    m.ops += p.ops;
    m.errors += p.errors;
    m.payloads += p.payloads;
    m.fallback += p.fallback;
    m.non_replica += p.non_replica;
    m.hops += p.hops;
    m.latency.merge(p.latency);
    p.ops = p.errors = p.payloads = p.fallback = p.non_replica = p.hops = 0;
    p.latency.clear();
    for (std::size_t n = 0; n < nodes_; ++n) {
      node_ops_[j * nodes_ + n] += node_ops_[i * nodes_ + n];
      node_ops_[i * nodes_ + n] = 0;
    }
    if (cache_)
      for (std::size_t n = 0; n < nodes_; ++n) {
        node_hits_[j * nodes_ + n] += node_hits_[i * nodes_ + n];
        node_hits_[i * nodes_ + n] = 0;
        node_misses_[j * nodes_ + n] += node_misses_[i * nodes_ + n];
        node_misses_[i * nodes_ + n] = 0;
      }
  }
  used_ = (used_ + factor - 1) / factor;
  interval_ *= static_cast<SimTime>(factor);
  last_ = 0;
  last_lo_ = last_hi_ = 0;  // the cached span is stale
}

std::size_t Timeline::locate(SimTime since_start) {
  if (since_start < 0) since_start = 0;
  auto idx = static_cast<std::size_t>(since_start / interval_);
  while (idx >= capacity_) {
    // Fixed: double the interval. Automatic: 1 x 10^k -> 5 x 10^k -> 10^(k+1), so every readable
    // step at or above the interval stays a whole multiple of it.
    std::size_t factor = 2;
    if (automatic_) {
      SimTime v = interval_;
      while (v % 10 == 0) v /= 10;
      factor = v == 5 ? 2 : 5;
    }
    coarsen(factor);
    idx = static_cast<std::size_t>(since_start / interval_);
  }
  if (idx >= points_.size()) {
    points_.resize(idx + 1);
    node_ops_.resize((idx + 1) * nodes_, 0);
    if (cache_) {
      node_hits_.resize((idx + 1) * nodes_, 0);
      node_misses_.resize((idx + 1) * nodes_, 0);
    }
  }
  if (idx >= used_) used_ = idx + 1;
  last_ = idx;
  last_lo_ = static_cast<SimTime>(idx) * interval_;
  last_hi_ = last_lo_ + interval_;
  return idx;
}

void Timeline::finish(SimTime window) {
  if (!automatic_ || window <= 0) return;
  // The finest 1, 2, 5 x 10^k step at or above the interval kept that covers the window in at
  // most kMaxPoints points.
  const SimTime last = used_ > 0 ? static_cast<SimTime>(used_ - 1) * interval_ : 0;  // the last point's start
  SimTime decade = 1;
  while (decade * 10 <= interval_) decade *= 10;
  for (;; decade *= 10)
    for (const SimTime mantissa : {1, 2, 5}) {
      const SimTime step = mantissa * decade;
      if (step < interval_ || step % interval_ != 0) continue;
      const auto max_points = static_cast<SimTime>(kMaxPoints);
      if ((window + step - 1) / step > max_points || last / step >= max_points) continue;
      if (step > interval_) coarsen(static_cast<std::size_t>(step / interval_));
      return;
    }
}

}  // namespace lbsim
