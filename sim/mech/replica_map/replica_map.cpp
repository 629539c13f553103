// What the drivers' own replica maps do to operations, a mechanism of the engine
// (sim/engine/mechanism.hpp). The maps themselves are the policies' (policies/driver_replicas.hpp:
// gocql's topology.go networkTopology.replicaMap, the Python driver 3.25's metadata.py
// NetworkTopologyStrategy.make_token_replica_map, the Node.js driver 4.10's
// lib/metadata/schema-parser.js; docs/policies.md cites the versions). Every driver yields a
// listed host as often as it is listed, so a repeated host is the retry target of its first copy:
// this mechanism counts how often a started operation's list repeats a host and how often a retry
// on the plan's next host went back to the host of the attempt before.
#include <memory>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/replica_map/replica_map.hpp"

namespace lbsim {

std::unique_ptr<Mechanism> make_replica_map(ReplicaMap::Core& core, std::uint16_t id) {
  if (!core.policy_->has_driver_replicas()) return nullptr;  // the driver's map is built at init
  return std::make_unique<ReplicaMap>(core, id);
}

ReplicaMap::ReplicaMap(Core& core, std::uint16_t) : core_(core) {
  core.ops_.add_column(prev_, NodeId{0});
  for (const auto& l : core.loaders_) mapped_.push_back(l->policy->has_driver_replicas() ? 1 : 0);
  Hooks& h = core.hooks_;
  h.op_started.add(this, [](void* s, std::uint32_t op) { static_cast<ReplicaMap*>(s)->started(op); });
  h.attempt_sent.add(this, [](void* s, std::uint32_t op, std::uint32_t attempt, SendKind kind) {
    static_cast<ReplicaMap*>(s)->sent(op, attempt, kind);
  });
}

bool ReplicaMap::repeats(std::span<const NodeId> l) {
  for (std::size_t i = 1; i < l.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (l[i] == l[j]) return true;
  return false;
}

// A routed operation of a loader whose policy reads a driver's map: does its list repeat a host?
void ReplicaMap::started(std::uint32_t id) {
  const auto& op = core_.ops_[id];
  const std::uint32_t loader = core_.op_loader(id);
  if (!op.routed || !mapped_[loader]) return;
  ++counts_.ops;
  if (repeats(core_.loaders_[loader]->policy->driver_replicas(op.token))) ++counts_.repeated;
}

// A retry on the plan's next host (not a same-host retry decision, not a speculative execution)
// that the plan sent to the host of the attempt before: the plan yielded it again.
void ReplicaMap::sent(std::uint32_t id, std::uint32_t a, SendKind kind) {
  const NodeId host = core_.attempts_[a].host;
  if (kind == SendKind::NextHost) {
    ++counts_.retries;
    if (prev_[id] == host) ++counts_.retries_same_host;
  }
  prev_[id] = host;
}

void ReplicaMap::on_event(std::uint16_t sub, std::uint32_t) { check_fail("replica map event of unknown kind", sub); }

void ReplicaMap::collect(RunResult& r) const { r.replica_map = counts_; }

}  // namespace lbsim
