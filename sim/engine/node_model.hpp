// The database nodes as queues: per_shard (one FIFO server per shard) or shared (one FIFO queue
// served by `shards` threads), with speed factors, scheduled slow-downs, stop-the-world pauses,
// and down/up state.
//
// Because every queue is FIFO and a work item's service time is drawn when it arrives, its start
// and end follow at arrival from start = max(arrival, earliest free server) (exact for FIFO
// G/G/c), so queueing costs no events. Pauses are known in advance: work cannot start during a
// pause, and work in service when a pause begins finishes that much later. A node that goes down
// loses its queue: work that had not finished by then is dropped (went_down()).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/engine/model_spec.hpp"

namespace lbsim {

struct NodeCounters {
  std::uint64_t coordinator_ops = 0;
  std::uint64_t replica_reads = 0;
  std::uint64_t replica_writes = 0;
  SimTime busy = 0;     // server time used
  SimTime sojourn = 0;  // sum over work items of (end - arrival): time-integral of the queue
};

class NodeModel {
 public:
  NodeModel(const NodeModelSpec& spec, std::size_t nodes, const FaultSpec& faults);

  // Work of `service` ns (before speed and slow factors) arriving at `now`; returns its end.
  SimTime enqueue(NodeId node, std::uint32_t shard, SimTime now, double service);

  bool up(NodeId n) const { return nodes_[n].up; }
  std::uint32_t epoch(NodeId n) const { return static_cast<std::uint32_t>(nodes_[n].down_at.size()); }
  // True when the node went down after the epoch `e` was read and before `t`.
  bool went_down(NodeId n, std::uint32_t e, SimTime t) const {
    const auto& d = nodes_[n].down_at;
    return e < d.size() && d[e] < t;
  }
  // The end of the pause covering `t`, or `t` when the node is not paused.
  SimTime paused_until(NodeId n, SimTime t) const;
  void set_down(NodeId n, SimTime t);
  void set_up(NodeId n, SimTime t);

  std::size_t size() const { return nodes_.size(); }
  std::uint32_t servers() const { return spec_->shards; }
  NodeCounters& counters(NodeId n) { return nodes_[n].counters; }
  const NodeCounters& counters(NodeId n) const { return nodes_[n].counters; }

 private:
  struct Window {
    SimTime start, end;
    double factor;
  };
  struct Node {
    bool up = true;
    double speed = 1.0;
    std::vector<SimTime> free_at;  // per server
    std::vector<SimTime> down_at;  // time of each down, in order
    std::vector<Window> slow;      // sorted by start
    std::vector<Window> pauses;    // sorted, non-overlapping
    NodeCounters counters;
  };
  const NodeModelSpec* spec_;
  std::vector<Node> nodes_;
};

}  // namespace lbsim
