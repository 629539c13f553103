// The 3.x DC-aware round-robin family: DCAwareRoundRobinPolicy and the Scylla fork's
// RackAwareRoundRobinPolicy share one implementation (dc_aware.cpp); the rack-aware variant only
// splits the local DC's live hosts into a local-rack list and a remote-racks list.
//
// Semantics (J3 policies/DCAwareRoundRobinPolicy.java, RackAwareRoundRobinPolicy.java):
// - Live hosts are kept per DC (and per local rack / remote racks) as CopyOnWriteArrayLists.
// - init() sets the index to a random value in [0, max(hosts, 1)); every plan takes
//   idx = index++ (an int that wraps, never reset) and keeps incrementing it for every host it
//   yields: local lists first (local rack, then remote racks), each rotated from idx.
// - After the local hosts: stop if the CL is DC-local and remote DCs are not allowed for it;
//   otherwise each remote DC's first `used_hosts_per_remote_dc` live hosts, rotated with the same
//   continuing idx. Remote DCs are visited in the driver's order: the iteration order of
//   `new HashSet<String>(perDcLiveHosts.keySet())` (java_hash_order.hpp), the map's keys being the
//   DCs in the order their first host came up (keys are never removed); lbsim reads that order as
//   it is when each remote DC is reached, the driver once when the remote part starts (the two
//   differ only if a DC's first host comes up in between).
// Startup (Cluster.java Manager.init, scylla-3.x @07d0f665 around lines 1776 and 1816), modelled
// when the spec names its `contact_points`: the policy's init() gets only the reachable contact
// points (so the index is uniform over them: 0 with one contact point, every time a client
// connects) and the default local DC and rack are those of the first of them; every other host
// then enters by onAdd -> onUp, appended, in the order of Metadata.allHosts() (a ConcurrentHashMap
// keyed by host_id: lbsim takes topology order, assumed). The contact points' own order is their
// HashSet<Host> order (by endpoint hash): lbsim takes the order given. Without `contact_points`
// lbsim's approximation: init() over every up host in topology order, the index uniform over
// them, the default local DC and rack those of node 0.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policies/plan_util.hpp"

namespace lbsim::policy {

struct DcRoundRobinOptions {
  std::optional<std::string> local_dc;    // default: DC of the first host (contact point)
  bool rack_aware = false;
  std::optional<std::string> local_rack;  // rack-aware: default rack of the first host
  // Rack-aware distance() of local-DC hosts in other racks: LOCAL before scylladb/java-driver
  // PR #588 (the default, as in the 3.x releases up to 2025-08), REMOTE after it.
  Distance remote_rack_distance = Distance::Local;
  int used_hosts_per_remote_dc = 0;
  bool allow_remote_dcs_for_local_cl = false;
  std::vector<std::string> contact_points;  // node ids; empty: init() over every up host
};

// Java 3.x Cluster.Manager.init with `contact_points` (see above): the up hosts in the order the
// policy learns them, and how many of them init() gets (the reachable contact points first).
// Without contact points: every up host in topology order, all given to init().
struct StartupOrder {
  std::vector<HostId> hosts;
  std::size_t init_hosts = 0;
};
StartupOrder java3_startup_order(const ClusterView& view, const std::vector<std::string>& contact_points);

std::unique_ptr<Policy> make_dc_round_robin(const DcRoundRobinOptions& opts);

}  // namespace lbsim::policy
