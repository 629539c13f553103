// Vnode keyspaces (Cassandra, ScyllaDB without tablets; issue 11): a joining node takes its
// tokens, a decommissioned or removed one gives its ranges away. While the data streams (changes.
// streaming_s), writes also go to the ranges' pending replicas (the new ring's replicas that do
// not hold the range now) and reads stay on the old ones; then the coordinators switch to the new
// ring. The driver refreshes its token map, and its policies add or remove the host, after its
// detection delay from the switch (a node is announced NEW_NODE once it is NORMAL); a
// decommissioned node shuts down kRingDelay after the switch. Concurrent changes are serialized,
// as Cassandra requires. Each live pending replica adds one to the writes' block count
// (Simulation::Impl::add_pending_to_need), as Cassandra's and ScyllaDB's pending endpoints do.
#include "sim/mech/placement/vnodes.hpp"

#include <algorithm>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/placement/placement_spec.hpp"

namespace lbsim {

VnodeChanges::VnodeChanges(Core& core, std::uint16_t id) : Placement(core, id) {
  sring_ = dring_ = &core.ring_;
  members_.assign(core.n_, 0);
  for (NodeId n = 0; n < initial_; ++n) members_[n] = 1;
  Hooks& k = core.hooks_;
  k.op_range.claim(this, [](void* s, Token t) { return static_cast<VnodeChanges*>(s)->op_range(t); });
  k.driver_replicas.claim(
      this, [](void* s, std::uint32_t range, Token) { return static_cast<VnodeChanges*>(s)->driver_replicas(range); });
  k.coordinator_replicas.claim(
      this, [](void* s, std::uint32_t cr, bool read, std::array<NodeId, 64>& buf, std::uint32_t& pending) {
        return static_cast<VnodeChanges*>(s)->coordinator_replicas(cr, read, buf, pending);
      });
  k.token_map.add(this, [](void* s, const TokenRing* ring) { static_cast<VnodeChanges*>(s)->token_map(ring); });
}

void VnodeChanges::on_event(std::uint16_t sub, std::uint32_t arg) {
  switch (sub) {
    case kChange: on_change(arg); break;
    case kChangeDone: on_change_done(arg); break;
    default: check_fail("vnode change event of unknown kind", sub);
  }
}

std::span<const NodeId> VnodeChanges::coordinator_replicas(std::uint32_t cr, bool read, std::array<NodeId, 64>& buf,
                                                           std::uint32_t& pending) {
  // The ring may have changed since the driver planned (or since an LWT's previous round): the
  // range is the coordinator's.
  auto& c = core_.crs_[cr];
  c.range = static_cast<std::uint32_t>(sring_->range_index(c.token));
  pending = 0;
  const auto cur = sring_->replicas_at(c.range, ReplicaOrder::Server);
  if (read || !pring_) return cur;
  // Pending ranges: the replicas of the ring being streamed to that do not hold the range now.
  std::size_t k = 0;
  for (NodeId h : cur) buf[k++] = h;
  for (NodeId h : pring_->replicas(c.token, ReplicaOrder::Server))
    if (std::find(cur.begin(), cur.end(), h) == cur.end() && k < buf.size()) {
      buf[k++] = h;
      ++pending;
    }
  return {buf.data(), k};
}

void VnodeChanges::on_change(std::uint32_t idx) {
  const ChangeEvent& e = core_.sc_.changes.events[idx];
  if (e.kind == ChangeKind::RemoveNode) core_.node_removed(e.nodes[0]);  // even if its removal waits
  if (streaming_) queued_.push_back(idx);
  else start_change(idx);
}

const TokenRing* VnodeChanges::member_ring(const std::vector<std::uint8_t>& members) {
  std::vector<NodeSpec> nodes;
  std::vector<NodeId> to_full;
  for (NodeId n = 0; n < core_.n_; ++n)
    if (members[n]) {
      nodes.push_back(core_.topo_.nodes[n]);
      to_full.push_back(n);
    }
  const TokenRing local(Topology::build(std::move(nodes)), core_.ring_.replication());
  rings_.push_back(std::make_unique<TokenRing>(local.renumbered(core_.topo_, to_full)));
  return rings_.back().get();
}

void VnodeChanges::start_change(std::uint32_t idx) {
  const ChangeEvent& e = core_.sc_.changes.events[idx];
  for (NodeId n : e.nodes) {
    if (e.kind == ChangeKind::AddNode) {
      members_[n] = 1;
      core_.server_up_[n] = 1;  // gossip knows the joining node; it takes pending writes
    } else {
      members_[n] = 0;
      if (e.kind == ChangeKind::RemoveNode) core_.node_removed(n);  // dead; the others stream its ranges
    }
  }
  pring_ = member_ring(members_);
  streaming_ = true;
  push(core_.now_ + core_.sc_.mech.get<PlacementSpec>(MechSpecs::k_placement)->streaming, kChangeDone, idx);
}

void VnodeChanges::on_change_done(std::uint32_t idx) {
  const ChangeEvent& e = core_.sc_.changes.events[idx];
  sring_ = pring_;
  pring_ = nullptr;
  streaming_ = false;
  for (NodeId n : e.nodes) {
    switch (e.kind) {
      case ChangeKind::AddNode: core_.schedule_detection(n, true, sring_, +1); break;
      case ChangeKind::Decommission: {
        // LEFT: the coordinators use the new ring now, the driver drops the host (and refreshes
        // its token map) after its detection delay. The node itself shuts its client servers
        // and messaging down kRingDelay later (apache/cassandra 3.11 StorageService: leaveRing()
        // announces LEFT and sleeps RING_DELAY, then finishLeaving runs shutdownClientServers()
        // and stops messaging); until then it still answers what it is sent, as a coordinator
        // only (it owns no range). Its shutdown is a `kill`: the driver's connections close.
        core_.schedule_detection(n, false, sring_, -1);
        core_.schedule_fault({core_.now_ + kRingDelay, n, FaultKind::Kill, 0, 1.0});
        break;
      }
      case ChangeKind::RemoveNode:
        // Already down (and detected as such): only the driver's token map changes.
        core_.schedule_driver_detection(n, false, sring_, -1);
        break;
    }
  }
  if (!queued_.empty()) {
    const std::uint32_t next = queued_.front();
    queued_.erase(queued_.begin());
    start_change(next);
  }
}

}  // namespace lbsim
