// Topology changes of a vnode keyspace (issue 11), the placement of a scenario without tablets
// whose ring changes (placement.hpp): the coordinators' ring, the ring being streamed to (pending
// ranges) and the drivers' token map, each switching at its own time. vnodes.cpp gives the rules
// and their sources.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/cluster/ring.hpp"
#include "sim/mech/placement/placement.hpp"

namespace lbsim {

class VnodeChanges final : public Placement {
 public:
  // Cassandra's RING_DELAY, how long a node that announced LEFT keeps running before it shuts its
  // client servers down (apache/cassandra 3.11 StorageService: cassandra.ring_delay_ms, 30 s by
  // default; ScyllaDB's ring_delay_ms is 30,000 too, scylladb/scylladb db/config.cc).
  static constexpr SimTime kRingDelay = 30 * kSec;

  VnodeChanges(Core& core, std::uint16_t id);
  void on_event(std::uint16_t sub, std::uint32_t arg) override;

  // The strategies (hooks.hpp): the drivers route with their token map, the coordinators with
  // theirs, writes also to the pending replicas while a change streams.
  std::uint32_t op_range(Token t) const { return static_cast<std::uint32_t>(dring_->range_index(t)); }
  std::span<const NodeId> driver_replicas(std::uint32_t range) const {
    return dring_->replicas_at(range, ReplicaOrder::Driver);
  }
  std::span<const NodeId> coordinator_replicas(std::uint32_t cr, bool read, std::array<NodeId, 64>& buf,
                                               std::uint32_t& pending);
  // The hook token_map: a driver detection carrying the new ring reached the drivers.
  void token_map(const TokenRing* ring) { dring_ = ring; }

  // For tests (the core harness): the coordinators' ring, the one being streamed to (null when no
  // change streams) and the drivers' token map.
  const TokenRing* coordinators_ring() const { return sring_; }
  const TokenRing* pending_ring() const { return pring_; }
  const TokenRing* drivers_ring() const { return dring_; }

 private:
  void on_change(std::uint32_t idx);
  // One ring change at a time (later events wait), streaming then switching.
  void start_change(std::uint32_t idx);
  void on_change_done(std::uint32_t idx);
  const TokenRing* member_ring(const std::vector<std::uint8_t>& members);

  const TokenRing* sring_ = nullptr;  // the coordinators' ring
  const TokenRing* pring_ = nullptr;  // the ring being streamed to (pending ranges), else null
  const TokenRing* dring_ = nullptr;  // the drivers' token map
  std::vector<std::unique_ptr<TokenRing>> rings_;
  std::vector<std::uint8_t> members_;  // per node: a member of the latest ring
  std::vector<std::uint32_t> queued_;  // changes waiting for the one streaming
  bool streaming_ = false;
};

}  // namespace lbsim
