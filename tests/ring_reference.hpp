// Test-only reference implementations of replica placement, written as the plain global ring walk
// that Cassandra's NetworkTopologyStrategy.calculateNaturalEndpoints and Java driver 3.x
// ReplicationStrategy perform (one walk over all DCs), independent of TokenRing's per-DC walks.
#pragma once
#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "sim/cluster/ring.hpp"

namespace lbsim::testref {

// The scylla-rust-driver test ring (scylla/src/routing/locator/test.rs,
// mock_metadata_for_token_aware_tests). From token 160 it reads F A C D G B E
// (us/r2 eu/r1 eu/r1 us/r1 eu/r2 eu/r1 us/r1). Used by the ring and the Rust policy tests.
inline Topology rust_ring() {
  return Topology::build({{"A", "eu", "r1", {50, 250, 400}},
                          {"B", "eu", "r1", {100, 600, 900}},
                          {"C", "eu", "r1", {300, 650, 700}},
                          {"D", "us", "r1", {350, 550}},
                          {"E", "us", "r1", {150, 750}},
                          {"F", "us", "r2", {200, 450}},
                          {"G", "eu", "r2", {500, 800}}});
}

struct Ring {
  std::vector<std::pair<Token, NodeId>> entries;  // sorted
  explicit Ring(const Topology& t) {
    for (NodeId n = 0; n < t.size(); ++n)
      for (Token tok : t.nodes[n].tokens) entries.emplace_back(tok, n);
    std::sort(entries.begin(), entries.end());
  }
  std::size_t owner_index(Token t) const {
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].first >= t) return i;
    return 0;
  }
};

inline std::vector<NodeId> simple(const Topology& t, int rf, Token tok) {
  Ring r(t);
  std::vector<NodeId> out;
  const std::size_t start = r.owner_index(tok);
  for (std::size_t j = 0; j < r.entries.size() && out.size() < static_cast<std::size_t>(rf); ++j) {
    const NodeId n = r.entries[(start + j) % r.entries.size()].second;
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

// Cassandra 3.x/4.x server order.
inline std::vector<NodeId> nts_server(const Topology& t, const Replication& repl, Token tok) {
  Ring r(t);
  struct Dc {
    int left, repeats;
    std::set<std::uint32_t> racks;
  };
  std::map<std::uint32_t, Dc> dcs;
  for (const auto& [name, rf] : repl.dc_rf) {
    auto idx = t.dc_index(name);
    if (!idx) continue;
    dcs[*idx] = {std::min<int>(rf, static_cast<int>(t.dc_node_count[*idx])),
                 rf - static_cast<int>(t.dc_rack_count[*idx]), {}};
  }
  std::vector<NodeId> out;
  const std::size_t start = r.owner_index(tok);
  for (std::size_t j = 0; j < r.entries.size(); ++j) {
    bool all = true;
    for (auto& [k, d] : dcs) all = all && d.left <= 0;
    if (all) break;
    const NodeId n = r.entries[(start + j) % r.entries.size()].second;
    auto it = dcs.find(t.node_dc[n]);
    if (it == dcs.end() || it->second.left <= 0) continue;
    if (std::find(out.begin(), out.end(), n) != out.end()) continue;
    Dc& d = it->second;
    if (d.racks.insert(t.node_rack[n]).second) {
      out.push_back(n);
      --d.left;
    } else if (d.repeats > 0) {
      out.push_back(n);
      --d.repeats;
      --d.left;
    }
  }
  return out;
}

// Java driver 3.x Metadata.getReplicas order (deferred skipped hosts, DCs interleaved).
inline std::vector<NodeId> nts_driver(const Topology& t, const Replication& repl, Token tok) {
  Ring r(t);
  struct Dc {
    int rf, target;
    std::set<NodeId> replicas;
    std::set<std::uint32_t> seen;
    std::vector<NodeId> skipped;
  };
  std::map<std::uint32_t, Dc> dcs;
  for (const auto& [name, rf] : repl.dc_rf) {
    auto idx = t.dc_index(name);
    if (!idx) continue;
    dcs[*idx] = {rf, std::min<int>(rf, static_cast<int>(t.dc_node_count[*idx])), {}, {}, {}};
  }
  std::vector<NodeId> out;
  auto add = [&](Dc& d, NodeId n) {
    if (d.replicas.insert(n).second) out.push_back(n);
  };
  const std::size_t start = r.owner_index(tok);
  for (std::size_t j = 0; j < r.entries.size(); ++j) {
    bool all = true;
    for (auto& [k, d] : dcs) all = all && static_cast<int>(d.replicas.size()) >= d.target;
    if (all) break;
    const NodeId n = r.entries[(start + j) % r.entries.size()].second;
    auto it = dcs.find(t.node_dc[n]);
    if (it == dcs.end()) continue;
    Dc& d = it->second;
    if (static_cast<int>(d.replicas.size()) >= d.rf) continue;
    const std::uint32_t racks = t.dc_rack_count[t.node_dc[n]];
    if (d.seen.size() == racks) {
      add(d, n);
    } else if (d.seen.count(t.node_rack[n])) {
      if (std::find(d.skipped.begin(), d.skipped.end(), n) == d.skipped.end()) d.skipped.push_back(n);
    } else {
      add(d, n);
      d.seen.insert(t.node_rack[n]);
      if (d.seen.size() == racks)
        for (std::size_t s = 0; s < d.skipped.size() && static_cast<int>(d.replicas.size()) < d.rf; ++s)
          add(d, d.skipped[s]);
    }
  }
  return out;
}

}  // namespace lbsim::testref
