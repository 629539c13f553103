// gocql's own token-to-replicas map and the "replica_source" parameter of GoTokenAware.
//
// Semantics of gocql topology.go (apache/cassandra-gocql-driver v1.3.2, 1c9ec8f6, 2023-03-27; the
// same code in scylladb/gocql @3703808c, 2026-08): placementStrategy.replicaMap, built per
// keyspace when the driver learns the ring (tokenAwareHostPolicy.updateReplicas).
// - SimpleStrategy (simpleStrategy.replicaMap): per ring token, the distinct owners of the ring
//   walk, up to rf. rf 0 gives an empty list, and Pick then asks the ring for the token's primary
//   owner (tokenRing.GetHostForToken): the map keeps the primary alone there.
// - NetworkTopologyStrategy (networkTopology.replicaMap): tokens whose owner's DC has rf 0 get no
//   list at all (the lookup then lands on the next listed token). From every other ring token,
//   one walk of the whole ring, DCs interleaved, while the list is shorter than the sum of the
//   RFs and some DC has not exactly its RF (a DC of the ring that the keyspace does not name, or a
//   named DC without nodes, keeps the walk going to the end). A host of a DC with rf 0 or already
//   full is passed over. A host of a rack not yet placed in its DC is appended and, when that
//   completes the DC's racks, the DC's deferred hosts are drained from the head up to the RF. A
//   host of a placed rack is deferred while racks are missing, and APPENDED once every rack of
//   its DC is placed. Nothing checks whether a host is already in the list (the source carries
//   "TODO: ensure we dont add the same host twice"): once a DC's racks are all placed, each further
//   token of that DC adds its owner, repeats included, and a host deferred twice is drained twice.
//   Whenever RF exceeds the racks of a DC, lists with a repeated host, and without a real replica,
//   follow (with vnodes: a host owning two tokens in the walk's reach).
// - The map is built once, at init, from every node of the view's topology (nodes joining or
//   leaving during a run are not followed). For a tablet keyspace it is refused: scylladb/gocql
//   routes by its tablet cache there, which Request::replicas already models.
#pragma once
#include <optional>

#include "policies/driver_replicas.hpp"
#include "policies/registry.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim::policy::go {

DriverReplicaMap gocql_replica_map(const Topology& topo, const Replication& repl);

// "replica_source": "correct" (Request::replicas, the default) or "gocql" (the map above). The
// latter needs the keyspace's replication in the BuildContext.
std::optional<Replication> replica_source_param(const jsonin::Object& o, const BuildContext& ctx);
inline constexpr const char* kReplicaSourceValues = "correct | gocql";

}  // namespace lbsim::policy::go
