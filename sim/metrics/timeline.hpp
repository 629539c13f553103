// Throughput and tail latency over simulated time, in fixed intervals from the start of the
// measurement window. Memory is bounded: when more than kMaxPoints intervals would be needed the
// interval doubles and adjacent points are merged (histograms merge exactly), so a 10x longer run
// uses the same memory with coarser points.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/metrics/histogram.hpp"

namespace lbsim {

class Timeline {
 public:
  static constexpr std::size_t kMaxPoints = 64;

  struct Point {
    std::uint64_t ops = 0;
    std::uint64_t errors = 0;
    std::uint64_t payloads = 0;  // tablets: answers carrying tablets-routing-v1 (misroutes)
    std::uint64_t fallback = 0;  // tablets: operations routed without a cached tablet
    std::uint64_t non_replica = 0;  // tablets: attempts coordinated by a node holding no replica
    std::uint64_t hops = 0;      // replica work items handed to another shard (cross-shard hops)
    LatencyHistogram latency;
  };

  // All kMaxPoints histograms are allocated up front (2.3 MiB), so memory does not depend on the
  // length of the run.
  explicit Timeline(SimTime interval = kSec) : interval_(interval > 0 ? interval : kSec), points_(kMaxPoints) {}

  // `since_start` is the completion time minus the start of the measurement window (>= 0).
  void record_op(SimTime since_start, SimTime latency) {
    Point& p = point(since_start);
    ++p.ops;
    p.latency.record(latency);
  }
  void record_error(SimTime since_start) { ++point(since_start).errors; }
  void record_payload(SimTime since_start) { ++point(since_start).payloads; }
  void record_fallback(SimTime since_start) { ++point(since_start).fallback; }
  void record_non_replica(SimTime since_start) { ++point(since_start).non_replica; }
  void record_hop(SimTime since_start) { ++point(since_start).hops; }
  // Requests served per node over time (attempts arriving at each coordinator).
  void set_nodes(std::size_t n) {
    nodes_ = n;
    node_ops_.assign(n * kMaxPoints, 0);
  }
  void record_coordinator(SimTime since_start, std::uint32_t node) {
    const std::size_t idx = static_cast<std::size_t>(&point(since_start) - points_.data());
    ++node_ops_[idx * nodes_ + node];
  }
  std::size_t nodes() const { return nodes_; }
  // Coordinator requests of point i, per node.
  std::span<const std::uint64_t> node_ops(std::size_t i) const { return {node_ops_.data() + i * nodes_, nodes_}; }

  SimTime interval() const { return interval_; }
  std::span<const Point> points() const { return {points_.data(), used_}; }

 private:
  // The point of an instant: times arrive nearly in order, so the last point's span answers most
  // calls without a division (issue 14).
  Point& point(SimTime since_start) {
    if (since_start >= last_lo_ && since_start < last_hi_) [[likely]] return points_[last_];
    return locate(since_start);
  }
  Point& locate(SimTime since_start);
  SimTime interval_;
  std::size_t last_ = 0;
  SimTime last_lo_ = 0, last_hi_ = 0;  // point last_ spans [last_lo_, last_hi_) (empty at first)
  std::vector<Point> points_;  // kMaxPoints entries; the first used_ are in use
  std::size_t used_ = 0;
  std::size_t nodes_ = 0;
  std::vector<std::uint64_t> node_ops_;  // kMaxPoints x nodes_
};

}  // namespace lbsim
