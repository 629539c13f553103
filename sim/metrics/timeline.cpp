#include "sim/metrics/timeline.hpp"

namespace lbsim {

Timeline::Point& Timeline::point(SimTime since_start) {
  if (since_start < 0) since_start = 0;
  auto idx = static_cast<std::size_t>(since_start / interval_);
  while (idx >= kMaxPoints) {
    // Double the interval: merge points pairwise.
    std::vector<Point> merged((points_.size() + 1) / 2);
    for (std::size_t i = 0; i < points_.size(); ++i) {
      Point& m = merged[i / 2];
      m.ops += points_[i].ops;
      m.errors += points_[i].errors;
      m.latency.merge(points_[i].latency);
    }
    points_ = std::move(merged);
    interval_ *= 2;
    idx = static_cast<std::size_t>(since_start / interval_);
  }
  if (idx >= points_.size()) points_.resize(idx + 1);
  return points_[idx];
}

}  // namespace lbsim
