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
//   continuing idx. The driver visits remote DCs in HashSet order of their names; lbsim visits them
//   in DC index order (order of first appearance in the topology), which is deterministic.
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
};

std::unique_ptr<Policy> make_dc_round_robin(const DcRoundRobinOptions& opts);

}  // namespace lbsim::policy
