#include "sim/cluster/topology.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include <boost/sort/pdqsort/pdqsort.hpp>
#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/int128.hpp"

namespace lbsim {

Topology Topology::build(std::vector<NodeSpec> nodes, const std::string& path) {
  Topology t;
  if (nodes.empty()) throw ConfigError(path, "must list at least one node");
  if (nodes.size() > 0xfffffff0u) throw ConfigError(path, "too many nodes");
  std::unordered_map<std::string, std::size_t> ids;
  std::unordered_map<std::string, std::uint32_t> dc_of;
  std::unordered_map<std::string, std::uint32_t> rack_of;  // key: dc + '\0' + rack
  // The first token (in node, then token order) that an earlier one repeats, found by one sort
  // instead of a hash map of every token (a 3,000 x 256 ring spent 7% of `analyze` there).
  struct Owned {
    Token token;
    std::size_t node, k;
  };
  std::vector<Owned> owned;
  {
    std::size_t total_tokens = 0;
    for (const auto& n : nodes) total_tokens += n.tokens.size();
    owned.reserve(total_tokens);
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (std::size_t k = 0; k < nodes[i].tokens.size(); ++k) owned.push_back({nodes[i].tokens[k], i, k});
  // (token, node, k) as one unsigned 128-bit number (node and k are below 2^32): a branch-free
  // comparison, which Boost.Sort's branch-free pdqsort sorts about twice as fast as std::sort.
  auto order = [](const Owned& o) {
    return (static_cast<u128>(token_order(o.token)) << 64) | (static_cast<u128>(o.node) << 32) | o.k;
  };
  boost::sort::pdqsort_branchless(owned.begin(), owned.end(),
                                  [&](const Owned& a, const Owned& b) { return order(a) < order(b); });
  std::optional<Owned> dup;  // the repeating token's position
  std::size_t dup_owner = 0;  // the node that had it first
  for (std::size_t j = 1; j < owned.size(); ++j)
    if (owned[j].token == owned[j - 1].token &&
        (!dup || owned[j].node < dup->node || (owned[j].node == dup->node && owned[j].k < dup->k))) {
      std::size_t first = j - 1;
      while (first > 0 && owned[first - 1].token == owned[j].token) --first;
      dup = owned[j];
      dup_owner = owned[first].node;
    }
  owned = {};

  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    const std::string np = path + "/" + std::to_string(i);
    if (n.id.empty()) throw ConfigError(np + "/id", "must not be empty");
    if (n.dc.empty()) throw ConfigError(np + "/dc", "must not be empty");
    if (n.rack.empty()) throw ConfigError(np + "/rack", "must not be empty");
    if (auto [it, fresh] = ids.emplace(n.id, i); !fresh)
      throw ConfigError(np + "/id", fmt::format("duplicate node id '{}' (also {}/{})", n.id, path, it->second));
    if (n.tokens.empty()) throw ConfigError(np + "/tokens", fmt::format("node '{}' has no tokens", n.id));
    if (dup && dup->node == i)
      throw ConfigError(np + "/tokens/" + std::to_string(dup->k),
                        fmt::format("duplicate token {} (also owned by node '{}')", dup->token, nodes[dup_owner].id));
    auto [dit, new_dc] = dc_of.emplace(n.dc, static_cast<std::uint32_t>(t.dcs.size()));
    if (new_dc) {
      t.dcs.push_back(n.dc);
      t.dc_node_count.push_back(0);
      t.dc_rack_count.push_back(0);
    }
    const std::uint32_t dc = dit->second;
    auto [rit, new_rack] = rack_of.emplace(n.dc + '\0' + n.rack, static_cast<std::uint32_t>(t.racks.size()));
    if (new_rack) {
      t.racks.push_back(n.rack);
      t.rack_dc.push_back(dc);
      ++t.dc_rack_count[dc];
    }
    ++t.dc_node_count[dc];
    t.node_dc.push_back(dc);
    t.node_rack.push_back(rit->second);
  }
  t.nodes = std::move(nodes);
  return t;
}

std::optional<std::uint32_t> Topology::dc_index(std::string_view name) const {
  for (std::size_t i = 0; i < dcs.size(); ++i)
    if (dcs[i] == name) return static_cast<std::uint32_t>(i);
  return std::nullopt;
}

std::optional<NodeId> Topology::node_index(std::string_view id) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].id == id) return static_cast<NodeId>(i);
  return std::nullopt;
}

int Replication::rf_for_dc(std::string_view dc) const {
  for (const auto& [dc_name, rf] : dc_rf)
    if (dc_name == dc) return rf;
  return 0;
}

std::string Replication::describe() const {
  if (kind == StrategyKind::Simple) return fmt::format("SimpleStrategy {{rf: {}}}", simple_rf);
  std::string s = "NetworkTopologyStrategy {";
  for (std::size_t i = 0; i < dc_rf.size(); ++i)
    s += fmt::format("{}{}: {}", i ? ", " : "", dc_rf[i].first, dc_rf[i].second);
  return s + (tablets ? "} with tablets" : "}");
}

}  // namespace lbsim
