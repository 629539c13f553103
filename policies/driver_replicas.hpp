// A driver's own token-to-replicas map, as the Go and Python drivers precompute it: one list per
// ring token, kept as the driver builds it (duplicates included), looked up by the first token >=
// the request's token, wrapping to the first (gocql tokenRingReplicas.replicasFor, python-driver
// TokenMap.get_replicas: bisect_left). The builders are in policies/go/replicas.hpp and
// policies/python/replicas.hpp; the Node.js driver's map (policies/nodejs/replicas.hpp) predates
// this one and keeps its own storage.
//
// Policies take the map's list instead of Request::replicas when their "replica_source" names a
// driver; the default "correct" builds nothing, draws nothing and changes nothing.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "policies/policy.hpp"

namespace lbsim::policy {

class DriverReplicaMap {
 public:
  // Appends the list of ring token `t`; tokens must come in ascending order.
  void add(Token t, std::span<const HostId> hosts) {
    if (offsets_.empty()) offsets_.push_back(0);
    tokens_.push_back(t);
    flat_.insert(flat_.end(), hosts.begin(), hosts.end());
    offsets_.push_back(static_cast<std::uint32_t>(flat_.size()));
  }
  // The list for the range owning `t` (empty when the map is).
  std::span<const HostId> replicas(Token t) const {
    if (tokens_.empty()) return {};
    auto i = static_cast<std::size_t>(std::lower_bound(tokens_.begin(), tokens_.end(), t) - tokens_.begin());
    if (i == tokens_.size()) i = 0;
    return replicas_at(i);
  }
  std::size_t ranges() const { return tokens_.size(); }
  Token token_at(std::size_t i) const { return tokens_[i]; }
  std::span<const HostId> replicas_at(std::size_t i) const {
    return {flat_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]};
  }

 private:
  std::vector<Token> tokens_;
  std::vector<std::uint32_t> offsets_;  // list i is flat_[offsets_[i], offsets_[i + 1])
  std::vector<HostId> flat_;
};

// The replicas a plan starts from: the driver's list when a map is built, else the request's.
inline std::span<const HostId> replicas_from(const Request& req, const DriverReplicaMap* map) {
  return map != nullptr ? map->replicas(req.token) : req.replicas;
}

// The ring as the drivers sort it: every (token, owner) of the topology, ascending.
inline std::vector<std::pair<Token, HostId>> sorted_ring(const Topology& topo) {
  std::vector<std::pair<Token, HostId>> ring;
  for (HostId h = 0; h < topo.size(); ++h)
    for (Token t : topo.nodes[h].tokens) ring.emplace_back(t, h);
  std::sort(ring.begin(), ring.end());
  return ring;
}

// SimpleStrategy as gocql (simpleStrategy.replicaMap) and the Python driver
// (SimpleStrategy.make_token_replica_map) build it: for each ring token, walking clockwise, the
// first `rf` distinct owners.
inline DriverReplicaMap simple_strategy_map(std::span<const std::pair<Token, HostId>> ring, std::size_t rf) {
  DriverReplicaMap out;
  const std::size_t n = ring.size();
  std::vector<HostId> list;
  for (std::size_t i = 0; i < n; ++i) {
    list.clear();
    for (std::size_t j = 0; j < n && list.size() < rf; ++j) {
      const HostId h = ring[(i + j) % n].second;
      if (std::find(list.begin(), list.end(), h) == list.end()) list.push_back(h);
    }
    out.add(ring[i].first, list);
  }
  return out;
}

}  // namespace lbsim::policy
