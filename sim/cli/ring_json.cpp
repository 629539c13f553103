#include "sim/cli/ring_json.hpp"

namespace lbsim::cli {

nlohmann::ordered_json summary_json(const Summary& s) {
  return {{"count", s.count}, {"mean", s.mean},         {"stddev", s.stddev},
          {"min", s.min},     {"max", s.max},           {"max_over_mean", s.max_over_mean}};
}

nlohmann::ordered_json node_ownership_json(const TokenRing& ring, bool full) {
  const auto& topo = ring.topology();
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (NodeId n = 0; n < topo.size(); ++n) {
    const auto& o = ring.ownership()[n];
    nlohmann::ordered_json j{{"id", topo.nodes[n].id}};
    if (full) {
      j["dc"] = topo.nodes[n].dc;
      j["rack"] = topo.nodes[n].rack;
      j["num_tokens"] = topo.nodes[n].tokens.size();
    }
    j["primary_fraction"] = o.primary;
    j["replica_fraction"] = o.replica;
    nodes.push_back(std::move(j));
  }
  return nodes;
}

nlohmann::ordered_json id_list(const TokenRing& ring, std::span<const NodeId> ids) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (NodeId id : ids) a.push_back(ring.topology().nodes[id].id);
  return a;
}

}  // namespace lbsim::cli
