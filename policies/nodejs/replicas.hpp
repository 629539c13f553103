// Shared by the Node.js driver policies (DataStax/Apache `cassandra-driver` 4.10.0, npm): the
// driver's own token-to-replicas map, the "replica_source" parameter that selects it, and the
// node-id list parameters ("hosts", "filter").
//
// The map (semantics of cassandra-driver 4.10.0 lib/metadata/index.js Metadata.buildTokens and
// getReplicas, lib/metadata/schema-parser.js getTokenToReplicaNetworkMapper / SimpleMapper):
// - The ring is every node's tokens, sorted; a token maps to the first ring token >= it, wrapping
//   to the first (the same ownership as sim/cluster/ring.hpp).
// - SimpleStrategy with rf > 1: the distinct owners of the ring walk from the primary, up to
//   min(rf, ring tokens). Any other rf (1, or 0): the primary alone.
// - NetworkTopologyStrategy: a ring walk that, per DC, takes a host whose rack is not yet placed;
//   a host of an already-placed rack is "skipped" into ONE list shared by all DCs (pushed only
//   while that list is shorter than the host's DC still needs), and when a DC's last rack is
//   placed the list's first entries (whatever their DC) are appended, up to what that DC still
//   needs, and counted for that DC. The walk stops when every DC has min(rf, its hosts). Two
//   consequences the driver ships with:
//   (1) a DC can be credited with another DC's skipped hosts, so one DC ends with more replicas
//       than its RF and another with fewer;
//   (2) the list is never cleared and every flush starts at its head, and a host met twice while
//       its rack is taken (vnodes) is pushed twice: one host can be appended twice, displacing a
//       real replica.
//   The lists keep those duplicates, and the policies yield a repeated host twice, as the driver
//   does (its RequestHandler tries whatever the plan yields, so a retry can go to the same host).
// - The map is built once, at init, from every node of the view's topology: nodes joining or
//   leaving during a run are not followed (the driver rebuilds it on topology events). A tablet
//   keyspace is mapped from the node tokens too: the 4.10 driver knows nothing of tablets.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policies/policy.hpp"
#include "policies/registry.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim::policy::nodejs {

class ReplicaMap {
 public:
  ReplicaMap() = default;
  ReplicaMap(const Topology& topo, const Replication& repl);

  // The list for the range owning `t` (empty when the ring is empty).
  std::span<const HostId> replicas(Token t) const;
  std::size_t ranges() const { return tokens_.size(); }
  Token token_at(std::size_t range) const { return tokens_[range]; }
  std::span<const HostId> replicas_at(std::size_t range) const {
    return {flat_.data() + offsets_[range], offsets_[range + 1] - offsets_[range]};
  }

 private:
  std::vector<Token> tokens_;          // sorted ring tokens
  std::vector<std::uint32_t> offsets_;  // range i's list is flat_[offsets_[i], offsets_[i+1])
  std::vector<HostId> flat_;
};

// "replica_source": "correct" (Request::replicas, the default) or "nodejs-4.10" (the map above,
// built at init from the view's topology and this replication). The latter needs the keyspace's
// replication in the BuildContext: without it the spec is refused.
struct ReplicaSource {
  std::optional<Replication> nodejs;  // set for "nodejs-4.10"
};
ReplicaSource replica_source_param(const jsonin::Object& o, const BuildContext& ctx);
inline constexpr const char* kReplicaSourceValues = "correct | nodejs-4.10";

// The replicas a plan starts from: the driver-computed list when a map is built, else the request's.
inline std::span<const HostId> replicas_for(const Request& req, const ReplicaMap* map) {
  return map != nullptr ? map->replicas(req.token) : req.replicas;
}

// A list of node ids ("hosts", "filter"); each id must exist when the topology is known.
std::optional<std::vector<std::string>> node_list_param(const jsonin::Object& o, std::string_view key,
                                                        const BuildContext& ctx);
// Per host of `topo`: 1 when its id is in `ids`.
std::vector<std::uint8_t> node_mask(const Topology& topo, const std::vector<std::string>& ids);

}  // namespace lbsim::policy::nodejs
