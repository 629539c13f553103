// Throughput and tail latency over simulated time, in fixed intervals from the start of the
// measurement window. Memory is bounded: points are merged (histograms merge exactly) whenever
// more would be needed than the timeline keeps, so a 10x longer run uses the same memory with
// coarser points.
//
// Two ways to pick the interval:
// - fixed (report.timeline_interval_s): the given interval, doubled whenever more than kMaxPoints
//   points would be needed;
// - automatic (the default): the window's length is not known before a closed-loop run ends, so
//   the timeline starts fine (kAutoFinest) and keeps up to kAutoCapacity points, multiplying the
//   interval by 5 and 2 in turn (100 us, 500 us, 1 ms, 5 ms, ...) as the window grows. finish()
//   then merges them to the finest readable step (1, 2 or 5 x 10^k s) that covers the window in at
//   most kMaxPoints points: 26 to 64 points. Every such step is a whole multiple of the interval
//   kept (1 x 10^k divides all of them, 5 x 10^k all from itself up), and kAutoCapacity = 2 x
//   kMaxPoints keeps the interval at or below the step (a 2 x 10^k step needs 1 x 10^k points).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/metrics/histogram.hpp"

namespace lbsim {

class Timeline {
 public:
  static constexpr std::size_t kMaxPoints = 64;          // points of a finished timeline
  static constexpr std::size_t kAutoCapacity = 2 * kMaxPoints;
  static constexpr SimTime kAutoFinest = 100 * kUs;

  struct Point {
    std::uint64_t ops = 0;
    std::uint64_t errors = 0;
    std::uint64_t payloads = 0;  // tablets: answers carrying tablets-routing-v1 (misroutes)
    std::uint64_t fallback = 0;  // tablets: operations routed without a cached tablet
    std::uint64_t non_replica = 0;  // tablets: attempts coordinated by a node holding no replica
    std::uint64_t hops = 0;      // replica work items handed to another shard (cross-shard hops)
    LatencyHistogram latency;
  };

  // A fixed interval (doubled beyond kMaxPoints points).
  explicit Timeline(SimTime interval = kSec)
      : interval_(interval > 0 ? interval : kSec), capacity_(kMaxPoints), automatic_(false) {
    points_.reserve(capacity_);
  }
  // The interval chosen from the window at finish().
  static Timeline automatic() {
    Timeline t(kAutoFinest);
    t.capacity_ = kAutoCapacity;
    t.automatic_ = true;
    t.points_.reserve(t.capacity_);
    return t;
  }

  // `since_start` is the completion time minus the start of the measurement window (>= 0).
  void record_op(SimTime since_start, SimTime latency) {
    Point& p = points_[index(since_start)];
    ++p.ops;
    p.latency.record(latency);
  }
  void record_error(SimTime since_start) { ++points_[index(since_start)].errors; }
  void record_payload(SimTime since_start) { ++points_[index(since_start)].payloads; }
  void record_fallback(SimTime since_start) { ++points_[index(since_start)].fallback; }
  void record_non_replica(SimTime since_start) { ++points_[index(since_start)].non_replica; }
  void record_hop(SimTime since_start) { ++points_[index(since_start)].hops; }
  // Requests served per node over time (attempts arriving at each coordinator).
  void set_nodes(std::size_t n) {
    nodes_ = n;
    node_ops_.assign(n * points_.size(), 0);
  }
  void record_coordinator(SimTime since_start, std::uint32_t node) { ++node_ops_[index(since_start) * nodes_ + node]; }
  std::size_t nodes() const { return nodes_; }
  // cluster.cache (issue 37): replica cache lookups per node over time, hits and misses; kept only
  // after enable_cache() (set_nodes() first), so runs without a cache carry no series.
  void enable_cache() {
    cache_ = true;
    node_hits_.assign(nodes_ * points_.size(), 0);
    node_misses_.assign(nodes_ * points_.size(), 0);
  }
  bool has_cache() const { return cache_; }
  void record_cache(SimTime since_start, std::uint32_t node, bool hit) {
    const std::size_t i = index(since_start) * nodes_ + node;
    ++(hit ? node_hits_ : node_misses_)[i];
  }
  std::span<const std::uint64_t> node_hits(std::size_t i) const { return {node_hits_.data() + i * nodes_, nodes_}; }
  std::span<const std::uint64_t> node_misses(std::size_t i) const { return {node_misses_.data() + i * nodes_, nodes_}; }
  // Coordinator requests of point i, per node.
  std::span<const std::uint64_t> node_ops(std::size_t i) const { return {node_ops_.data() + i * nodes_, nodes_}; }

  // The end of the run: an automatic timeline merges its points to the readable step for a window
  // of this length (see above); a fixed one is left as it is.
  void finish(SimTime window);

  SimTime interval() const { return interval_; }
  bool is_automatic() const { return automatic_; }
  std::span<const Point> points() const { return {points_.data(), used_}; }

 private:
  // The point of an instant: times arrive nearly in order, so the last point's span answers most
  // calls without a division (issue 14).
  std::size_t index(SimTime since_start) {
    if (since_start >= last_lo_ && since_start < last_hi_) [[likely]] return last_;
    return locate(since_start);
  }
  std::size_t locate(SimTime since_start);
  // Merges every `factor` consecutive points into one and multiplies the interval by it.
  void coarsen(std::size_t factor);
  SimTime interval_;
  std::size_t capacity_;
  bool automatic_;
  std::size_t last_ = 0;
  SimTime last_lo_ = 0, last_hi_ = 0;  // point last_ spans [last_lo_, last_hi_) (empty at first)
  // Allocated as the run reaches them (at most capacity_ entries); the first used_ are in use.
  std::vector<Point> points_;
  std::size_t used_ = 0;
  std::size_t nodes_ = 0;
  std::vector<std::uint64_t> node_ops_;  // points_.size() x nodes_
  bool cache_ = false;
  std::vector<std::uint64_t> node_hits_, node_misses_;  // likewise, with enable_cache() only
};

}  // namespace lbsim
