// Topology changes of vnode keyspaces (issue 11; not yet in sim/mech/placement, which has the
// tablet keyspaces' changes): the ring being streamed to, the coordinators' switch and the
// drivers' token map refresh.
#include <algorithm>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

void Simulation::Impl::init_vnode_changes() {
  sring_ = dring_ = &ring_;
  if (sc_.tablet_map) return;  // sim/mech/placement
  const ChangeSpec& ch = sc_.changes;
  const std::uint32_t initial = ch.initial_nodes == 0 ? static_cast<std::uint32_t>(n_) : ch.initial_nodes;
  // Nodes that join later are unknown to the driver and the coordinators until they join.
  for (NodeId n = initial; n < n_; ++n) {
    view_.set_up(n, false);
    view_.set_known(n, false);
    server_up_[n] = 0;
  }
  for (std::uint32_t i = 0; i < ch.events.size(); ++i) push_mech(ch.events[i].at, kMechPlacement, kChange, i);
  vnode_members_.assign(n_, 0);
  for (NodeId n = 0; n < initial; ++n) vnode_members_[n] = 1;
  vnode_changes_ = ch.any();
}

std::span<const NodeId> Simulation::Impl::server_replicas(std::uint32_t range, Token token, bool read,
                                                          std::array<NodeId, 64>& buf, std::uint32_t& pending) const {
  pending = 0;
  const auto cur = sring_->replicas_at(range, ReplicaOrder::Server);
  if (read || !pring_) return cur;
  // Pending ranges: the replicas of the ring being streamed to that do not hold the range now.
  std::size_t k = 0;
  for (NodeId h : cur) buf[k++] = h;
  for (NodeId h : pring_->replicas(token, ReplicaOrder::Server))
    if (std::find(cur.begin(), cur.end(), h) == cur.end() && k < buf.size()) {
      buf[k++] = h;
      ++pending;
    }
  return {buf.data(), k};
}

void Simulation::Impl::on_change(std::uint32_t idx) {
  const ChangeEvent& e = sc_.changes.events[idx];
  if (e.kind == ChangeKind::RemoveNode) node_removed(e.nodes[0]);  // even if its removal waits
  if (streaming_) queued_changes_.push_back(idx);
  else start_vnode_change(idx);
}

// Vnode keyspaces (Cassandra, ScyllaDB without tablets): a joining node takes its tokens, a
// decommissioned or removed one gives its ranges away. While the data streams (changes.
// streaming_s), writes also go to the ranges' pending replicas (the new ring's replicas that do
// not hold the range now) and reads stay on the old ones; then the coordinators switch to the new
// ring. The driver refreshes its token map, and its policies add or remove the host, after its
// detection delay from the switch (a node is announced NEW_NODE once it is NORMAL); a
// decommissioned node shuts down kRingDelay after the switch. Concurrent changes are serialized,
// as Cassandra requires.
const TokenRing* Simulation::Impl::member_ring(const std::vector<std::uint8_t>& members) {
  std::vector<NodeSpec> nodes;
  std::vector<NodeId> to_full;
  for (NodeId n = 0; n < n_; ++n)
    if (members[n]) {
      nodes.push_back(topo_.nodes[n]);
      to_full.push_back(n);
    }
  const TokenRing local(Topology::build(std::move(nodes)), ring_.replication());
  rings_.push_back(std::make_unique<TokenRing>(local.renumbered(topo_, to_full)));
  return rings_.back().get();
}

void Simulation::Impl::start_vnode_change(std::uint32_t idx) {
  const ChangeEvent& e = sc_.changes.events[idx];
  for (NodeId n : e.nodes) {
    if (e.kind == ChangeKind::AddNode) {
      vnode_members_[n] = 1;
      server_up_[n] = 1;  // gossip knows the joining node; it takes pending writes
    } else {
      vnode_members_[n] = 0;
      if (e.kind == ChangeKind::RemoveNode) node_removed(n);  // dead; the others stream its ranges
    }
  }
  pring_ = member_ring(vnode_members_);
  streaming_ = true;
  push_mech(now_ + sc_.changes.streaming, kMechPlacement, kChangeDone, idx);
}

void Simulation::Impl::on_change_done(std::uint32_t idx) {
  const ChangeEvent& e = sc_.changes.events[idx];
  sring_ = pring_;
  pring_ = nullptr;
  streaming_ = false;
  for (NodeId n : e.nodes) {
    switch (e.kind) {
      case ChangeKind::AddNode: schedule_detection(n, true, sring_, +1); break;
      case ChangeKind::Decommission: {
        // LEFT: the coordinators use the new ring now, the driver drops the host (and refreshes
        // its token map) after its detection delay. The node itself shuts its client servers
        // and messaging down kRingDelay later (apache/cassandra 3.11 StorageService: leaveRing()
        // announces LEFT and sleeps RING_DELAY, then finishLeaving runs shutdownClientServers()
        // and stops messaging); until then it still answers what it is sent, as a coordinator
        // only (it owns no range). Its shutdown is a `kill`: the driver's connections close.
        schedule_detection(n, false, sring_, -1);
        const SimTime at = now_ + kRingDelay;
        faults_.push_back({at, n, FaultKind::Kill, 0, 1.0});
        q_.push(at, kFault, static_cast<std::uint32_t>(faults_.size() - 1));
        break;
      }
      case ChangeKind::RemoveNode: {
        // Already down (and detected as such): only the driver's token map changes.
        schedule_driver_detection(n, false, sring_, -1);
        break;
      }
    }
  }
  if (!queued_changes_.empty()) {
    const std::uint32_t next = queued_changes_.front();
    queued_changes_.erase(queued_changes_.begin());
    start_vnode_change(next);
  }
}

}  // namespace lbsim
