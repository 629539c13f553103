// The Python driver's DC-aware round-robin family: DCAwareRoundRobinPolicy and the Scylla fork's
// RackAwareRoundRobinPolicy share one implementation (policies/python/round_robin.cpp).
//
// Semantics (scylladb/python-driver cassandra/policies.py, read at 76430785, 2026-08; the same in
// every release since 3.28.0-scylla, and DCAwareRoundRobinPolicy as in datastax/python-driver 3.29):
// - Live hosts are kept per DC in a dict of tuples (and, rack-aware, per (dc, rack)). on_up appends
//   a host to its DC's tuple, on_down removes it and deletes the DC's key once its tuple is empty,
//   so a DC whose hosts all went down and came back moves to the end of the dict's order.
// - populate() sets the position to randint(0, len(all hosts) - 1): the contact points' whole
//   cluster, not the local DC. Every plan takes pos = position and increments it (a Python int:
//   never wraps).
// - DC-aware plan: the local DC's hosts rotated by pos % len, then, for each other DC in dict
//   order, the first used_hosts_per_remote_dc hosts of its tuple, NOT rotated, for every CL (the
//   Python driver has no allow_remote_dcs_for_local_cl).
// - Rack-aware plan: the local rack's hosts rotated by p1 = pos % len(rack) (0 when the rack has
//   no live host), then the local DC's hosts of other racks, rotated by p1 % len(others) -- the
//   already reduced p1, not pos: with one live local-rack host (or none) every plan starts the
//   other racks at the same host --, then the remote DCs as above.
// - distance(): LOCAL for the local DC (rack-aware: LOCAL_RACK, distance_tier 0, for the local
//   rack), REMOTE for the first used_hosts_per_remote_dc live hosts of a remote DC's tuple,
//   IGNORED otherwise (and for every remote host when used_hosts_per_remote_dc is 0).
// Cluster.connect (cassandra/cluster.py, scylladb/python-driver 3.29.5-scylla; the same flow in
// datastax/python-driver 3.25.0), modelled when the spec names its `contact_points`:
// - _add_resolved_hosts() adds the contact points without DC or rack (they are unknown until the
//   control connection reads system.local and system.peers), so populate() files them all under
//   `_dc(host)` = local_dc (or '' when unset) and sets the position to randint(0, len(contact
//   points) - 1).
// - ControlConnection._connect_host_in_lbp() takes its host from `lbp.make_query_plan()`: the
//   contact-point tuple rotated by that position (down ones passed over), and the plan advances the
//   position by one; the first application plan therefore uses randint(0, C - 1) + 1.
// - _refresh_node_list_and_token_map() then gives the control host its DC and rack
//   (_update_location_info: on_down, then on_up, which also picks the default local_dc: the DC of
//   the first host marked up whose endpoint is a contact point) and walks system.peers: contact
//   points move the same way, new hosts arrive by add_host -> on_add -> on_up. Each tuple is thus
//   in discovery order: the control host, then the peers' rows; the DCs' dict order likewise.
// lbsim takes the peers' rows in topology order (assumed: the real order is the scan order of the
// server's system.peers table, which lbsim does not know), and treats the contact points' set order
// as the order given (the control host is uniform over them either way).
// Without `contact_points`, the approximation below: populate() over every host of the metadata
// (ClusterView::is_known: not the nodes that have not joined yet).
// Approximations:
// - populate() builds each tuple from a set, so the driver's order inside a DC is the hash order of
//   the hosts' endpoints (randomized per process by PYTHONHASHSEED); lbsim uses topology order,
//   and the dict's first DC order is the DCs' order of first appearance among the live hosts.
// - The default local DC of DCAwareRoundRobinPolicy is the DC of the first host marked up (the
//   control connection's contact point): here the DC of the first host, as for the Java policies.
// - `self._position += 1` is not atomic in the driver; lost increments under threads are ignored.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policies/policy.hpp"

namespace lbsim::policy {

struct PythonRoundRobinOptions {
  std::optional<std::string> local_dc;    // DC-aware default: the DC of the first host
  bool rack_aware = false;
  std::optional<std::string> local_rack;  // rack-aware (required by the driver's constructor)
  std::int64_t used_hosts_per_remote_dc = 0;
  // Cluster(contact_points=...): node ids; empty = the populate-over-every-host approximation.
  std::vector<std::string> contact_points;
};

std::unique_ptr<Policy> make_python_round_robin(const PythonRoundRobinOptions& opts);

}  // namespace lbsim::policy
