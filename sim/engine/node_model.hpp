// The database nodes as queues: per_shard (one FIFO server per shard) or shared (one FIFO queue
// served by `shards` threads), with speed factors, scheduled slow-downs, stop-the-world pauses,
// and down/up state.
//
// Because every queue is FIFO and a work item's service time is drawn when it arrives, its start
// and end follow at arrival from start = max(arrival, earliest free server) (exact for FIFO
// G/G/c), so queueing costs no events. Pauses are known in advance: work cannot start during a
// pause, and work in service when a pause begins finishes that much later. A node that goes down
// loses its queue: work that had not finished by then is dropped (went_down()).
//
// Expired work is shed: a work item that carries a deadline (the coordinator's request timeout)
// and would start after it is dropped without consuming service, as Cassandra drops expired
// messages ("Dropped" in nodetool tpstats) and ScyllaDB drops expired reads and writes. Because
// the start time is known at arrival, the decision is exact for a FIFO queue.
//
// Utilization and queue length are time averages: busy() and in_system() integrate up to a given
// instant, leaving out the part of queued work that lies in the future.
#pragma once
#include <cstdint>
#include <climits>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/engine/model_spec.hpp"

namespace lbsim {

struct NodeCounters {
  std::uint64_t coordinator_ops = 0;
  std::uint64_t replica_reads = 0;
  std::uint64_t replica_writes = 0;
  std::uint64_t dropped_coordinator = 0;  // expired before their service started (shed)
  std::uint64_t dropped_reads = 0;
  std::uint64_t dropped_writes = 0;
  SimTime busy = 0;     // server time used, including work scheduled after `now` (see snapshot())
  SimTime sojourn = 0;  // sum over work items of (end - arrival), likewise
};

// Counts and time integrals of a node up to one instant (NodeModel::snapshot).
struct NodeSnapshot {
  NodeCounters counters;
  SimTime busy = 0;       // integral of busy servers over [0, t]
  SimTime in_system = 0;  // integral of the number of work items waiting or in service over [0, t]
  std::vector<SimTime> server_busy;  // per server (shard), busy time over [0, t]
};

inline constexpr SimTime kNoDeadline = INT64_MAX;
inline constexpr SimTime kDropped = -1;  // NodeModel::enqueue: the item expired before its start
inline constexpr SimTime kAborted = -2;  // NodeModel::enqueue: the item was cancelled in service

class NodeModel {
 public:
  NodeModel(const NodeModelSpec& spec, std::size_t nodes, const FaultSpec& faults);

  // Work of `service` ns (before speed and slow factors) arriving at `now`; returns its end, or
  // kDropped when it would start after `deadline` (it then uses no server time), or kAborted when
  // it would still run at `abort_at`: it is cancelled then, its server free from that instant.
  // Work arrives in time order: `now` never decreases from one call to the next.
  SimTime enqueue(NodeId node, std::uint32_t shard, SimTime now, double service, SimTime deadline = kNoDeadline) {
    return enqueue_impl<false>(node, shard, now, service, deadline, kNoDeadline);
  }
  SimTime enqueue_abortable(NodeId node, std::uint32_t shard, SimTime now, double service, SimTime deadline,
                            SimTime abort_at) {
    return enqueue_impl<true>(node, shard, now, service, deadline, abort_at);
  }
  // The start of the work item of the last enqueue() (its dequeue, also when it was dropped).
  SimTime last_start() const { return last_start_; }

  // The node's counters and its exact busy and in-system integrals up to `t` (t >= the last
  // arrival): work already queued but scheduled after `t` is left out.
  NodeSnapshot snapshot(NodeId n, SimTime t) const;

  bool up(NodeId n) const { return hot_[n].up; }
  std::uint32_t epoch(NodeId n) const { return hot_[n].downs; }
  // True when the node went down after the epoch `e` was read and before `t`.
  bool went_down(NodeId n, std::uint32_t e, SimTime t) const {
    return e < hot_[n].downs && cold_[n].down_at[e] < t;
  }
  // The end of the pause covering `t`, or `t` when the node is not paused.
  SimTime paused_until(NodeId n, SimTime t) const {
    return hot_[n].has_pauses ? paused_until_slow(n, t) : t;
  }
  void set_down(NodeId n, SimTime t);
  void set_up(NodeId n, SimTime t);

  std::size_t size() const { return hot_.size(); }
  // A hint that work will soon arrive at (node, shard): its state, counters and server lines.
  void prefetch(NodeId n, std::uint32_t shard) const {
    __builtin_prefetch(&hot_[n]);
    __builtin_prefetch(&counters_[n]);
    const std::uint32_t servers = spec_->shards;
    __builtin_prefetch(servers_of(n) + (shard < servers ? shard : shard % servers));
  }
  std::uint32_t servers() const { return spec_->shards; }
  NodeCounters& counters(NodeId n) { return counters_[n]; }
  const NodeCounters& counters(NodeId n) const { return counters_[n]; }

 private:
  struct Window {
    SimTime start, end;
    double factor;
    std::int32_t shard = -1;  // slow: the one server it applies to, -1 all
  };
  // Ends of the work items of one server that may still be in the system, in FIFO order (so
  // non-decreasing); items that ended by the last arrival are popped lazily, once kTrimEvery are
  // held. A ring (capacity a power of 2, doubling when full): popping moves nothing (issue 14: a
  // vector compacted by erase copied its live half, about 57 instructions per operation at 10,000
  // client threads).
  struct Ends {
    static constexpr std::size_t kTrimEvery = 32;
    std::vector<SimTime> ring;
    std::size_t head = 0, count = 0;
    std::size_t size() const { return count; }
    SimTime operator[](std::size_t i) const { return ring[(head + i) & (ring.size() - 1)]; }
    void push(SimTime e) {
      if (count == ring.size()) grow();
      ring[(head + count) & (ring.size() - 1)] = e;
      ++count;
    }
    void pop_until(SimTime t) {
      const std::size_t mask = ring.size() - 1;
      while (count > 0 && ring[head] <= t) {
        head = (head + 1) & mask;
        --count;
      }
    }
    void clear() { head = count = 0; }
    void grow();
  };
  // The layout follows what an arrival reads (issue 14: at 3,000 nodes a node was 232 bytes over
  // four cache lines plus four heap blocks, each read cold): a node's state is 16 bytes in a
  // dense array, its counters one line, each server one line (its FIFO's ring apart), and what
  // only faults use (speed, downs, slow-downs, pauses) is read only when the flags say so.
  struct Hot {
    bool up = true;
    bool has_slow = false;
    bool has_pauses = false;
    std::uint32_t downs = 0;  // down_at.size(): the epoch
    double inv_speed = 1.0;   // 1 / speed, computed once (a division at every arrival otherwise)
  };
  struct alignas(64) Server {
    SimTime free_at = 0;
    SimTime busy = 0;  // server time used, including work scheduled after `now`
    Ends ends;
  };
  struct Cold {
    double speed = 1.0;
    std::vector<SimTime> down_at;  // time of each down, in order
    std::vector<Window> slow;      // sorted by start
    std::vector<Window> pauses;    // sorted, non-overlapping
  };
  struct alignas(64) Counters : NodeCounters {};
  Server* servers_of(NodeId n) { return &servers_[static_cast<std::size_t>(n) * spec_->shards]; }
  const Server* servers_of(NodeId n) const { return &servers_[static_cast<std::size_t>(n) * spec_->shards]; }
  // enqueue(), with the in-service abort compiled in only where it is used (reads on releases
  // that abort them): scenarios without it pay nothing for it.
  template <bool kAbort>
  SimTime enqueue_impl(NodeId node, std::uint32_t shard, SimTime now, double service, SimTime deadline,
                       SimTime abort_at);
  SimTime paused_until_slow(NodeId n, SimTime t) const;
  // Pause time of node n inside [a, b).
  SimTime paused_within(NodeId n, SimTime a, SimTime b) const;

  const NodeModelSpec* spec_;
  std::vector<Hot> hot_;
  std::vector<Counters> counters_;
  std::vector<Server> servers_;  // node n's are [n x shards, (n + 1) x shards)
  std::vector<Cold> cold_;
  SimTime last_start_ = 0;
};

}  // namespace lbsim
