// The Python driver's own token-to-replicas map and the "replica_source" parameter of
// PythonTokenAware.
//
// Semantics of datastax/python-driver 3.25.0 cassandra/metadata.py (Debian python3-cassandra
// 3.25.0, which tests/python_driver_test.cpp runs as an oracle): ReplicationStrategy
// make_token_replica_map, a list per ring token, looked up by TokenMap.get_replicas.
// - SimpleStrategy: the distinct owners of the ring walk from the token, up to rf.
// - NetworkTopologyStrategy: the DCs one after the other, in the order in which they first own a
//   token on the sorted ring (so a list is grouped by DC, not interleaved). Per DC with rf > 0,
//   a walk of that DC's tokens from its first token at or after the list's ring position, one lap,
//   stopping when the DC's RF is placed or as many hosts as the DC has were appended by the walk
//   itself. A host already in the list is passed over; a host of a placed rack, while racks are
//   missing, goes to `skipped_hosts`, a plain list: a vnode host met twice there is queued twice.
//   When the DC's last rack is placed the queue is appended from its head, up to the RF, without
//   checking the list. So a DC with two racks or more and an RF two above its racks (or above its
//   nodes) can list a host twice and lose a real replica. The walk's own stop counts only the
//   hosts it appended itself, not the drained ones.
// - The map is built once, at init, from every node of the view's topology (nodes joining or
//   leaving during a run are not followed); 3.25 knows nothing of tablets, so a tablet keyspace is
//   mapped from the node tokens too.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "policies/driver_replicas.hpp"
#include "policies/registry.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim::policy::python {

DriverReplicaMap python325_replica_map(const Topology& topo, const Replication& repl);

// DC index -> rank of the DC in the map's lists: the order in which the DCs first own a token on the
// sorted ring (`dc_to_token_offset`, a defaultdict filled along the ring). DCs with RF 0 keep a
// rank; they have no entries in any list.
std::vector<std::uint32_t> dc_ring_order(const Topology& topo);

// "replica_source": "correct" (Request::replicas, the default) or "python-3.25" (the map above).
// The latter needs the keyspace's replication in the BuildContext.
std::optional<Replication> replica_source_param(const jsonin::Object& o, const BuildContext& ctx);
inline constexpr const char* kReplicaSourceValues = "correct | python-3.25";

}  // namespace lbsim::policy::python
