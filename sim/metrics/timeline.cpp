#include "sim/metrics/timeline.hpp"

namespace lbsim {

Timeline::Point& Timeline::locate(SimTime since_start) {
  if (since_start < 0) since_start = 0;
  auto idx = static_cast<std::size_t>(since_start / interval_);
  while (idx >= kMaxPoints) {
    // Double the interval: merge points pairwise, in place.
    for (std::size_t i = 0; i < used_; ++i) {
      Point& m = points_[i / 2];
      if (i / 2 != i) {
        m.ops += points_[i].ops;
        m.errors += points_[i].errors;
        m.payloads += points_[i].payloads;
        m.fallback += points_[i].fallback;
        m.non_replica += points_[i].non_replica;
        m.hops += points_[i].hops;
        m.latency.merge(points_[i].latency);
        points_[i].ops = points_[i].errors = points_[i].payloads = points_[i].fallback = 0;
        points_[i].non_replica = points_[i].hops = 0;
        for (std::size_t n = 0; n < nodes_; ++n) {
          node_ops_[(i / 2) * nodes_ + n] += node_ops_[i * nodes_ + n];
          node_ops_[i * nodes_ + n] = 0;
        }
        points_[i].latency.clear();
      }
    }
    used_ = (used_ + 1) / 2;
    interval_ *= 2;
    idx = static_cast<std::size_t>(since_start / interval_);
  }
  if (idx >= used_) used_ = idx + 1;
  last_ = idx;
  last_lo_ = static_cast<SimTime>(idx) * interval_;
  last_hi_ = last_lo_ + interval_;
  return points_[idx];
}

}  // namespace lbsim
