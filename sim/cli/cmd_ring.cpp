// `lbsim ring FILE [--set PATH=V ...] [--json]`: a nodetool-status-like ownership table and per-DC imbalance.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/cli/ring_json.hpp"
#include "sim/config/ring_input.hpp"

namespace lbsim::cli {
namespace {

// Tablet keyspaces: tablet replicas per node and per shard (the balancer's goal is an equal count
// per shard), with max/mean per DC.
struct TabletLoad {
  std::vector<std::uint32_t> node;   // replicas per node
  std::vector<std::uint32_t> shard;  // node-major, in.shards per node
};
TabletLoad tablet_load(const RingInput& in) {
  const TokenRing& t = *in.tablets;
  TabletLoad l;
  l.node.assign(t.topology().size(), 0);
  l.shard.assign(t.topology().size() * in.shards, 0);
  for (std::size_t r = 0; r < t.size(); ++r) {
    const auto reps = t.replicas_at(r, ReplicaOrder::Server);
    for (std::size_t p = 0; p < reps.size(); ++p) {
      ++l.node[reps[p]];
      ++l.shard[reps[p] * in.shards + t.replica_shard(r, p) % in.shards];
    }
  }
  return l;
}

// Per DC, over the nodes holding tablets (members): summaries of replicas per node and per shard.
std::pair<Summary, Summary> tablet_summary(const RingInput& in, const TabletLoad& l, std::uint32_t dc) {
  const Topology& topo = in.tablets->topology();
  std::vector<double> nodes, shards;
  for (NodeId n = 0; n < topo.size(); ++n) {
    if (topo.node_dc[n] != dc || l.node[n] == 0) continue;
    nodes.push_back(l.node[n]);
    for (std::uint32_t s = 0; s < in.shards; ++s) shards.push_back(l.shard[n * in.shards + s]);
  }
  return {summarize(nodes), summarize(shards)};
}

void print_tablets(const RingInput& in) {
  const TokenRing& t = *in.tablets;
  const Topology& topo = t.topology();
  const TabletLoad l = tablet_load(in);
  fmt::print("\nTablets: {} per table, {} replicas each, {} shards per node\n", t.size(), t.replicas_per_range(),
             in.shards);
  for (std::uint32_t dc = 0; dc < topo.dcs.size(); ++dc) {
    fmt::print("{:<12} {:>8} {:>10} {:>10}\n", "Node", "tablets", "min/shard", "max/shard");
    for (NodeId n = 0; n < topo.size(); ++n) {
      if (topo.node_dc[n] != dc) continue;
      const auto b = l.shard.begin() + static_cast<std::ptrdiff_t>(n * in.shards);
      const auto [mn, mx] = std::minmax_element(b, b + in.shards);
      fmt::print("{:<12} {:>8} {:>10} {:>10}\n", topo.nodes[n].id, l.node[n], *mn, *mx);
    }
    const auto [ns, ss] = tablet_summary(in, l, dc);
    fmt::print("Tablets in {}: per node mean {:.2f}, max/mean {:.3f}; per shard mean {:.2f}, max/mean {:.3f}\n",
               topo.dcs[dc], ns.mean, ns.max_over_mean, ss.mean, ss.max_over_mean);
  }
}

void print_table(const RingInput& in) {
  const TokenRing& ring = *in.ring;
  const auto& topo = ring.topology();
  fmt::print("Ring: {}\nKeyspace: {}\nRing tokens: {}, replicas per range: {}\n", in.name,
             ring.replication().describe(), ring.size(), ring.replicas_per_range());
  const auto stats = ring.dc_ownership();
  for (std::uint32_t dc = 0; dc < topo.dcs.size(); ++dc) {
    const auto& s = stats[dc];
    const std::string title = fmt::format("Datacenter: {} ({} nodes, {} racks, RF {})", s.dc, s.nodes, s.racks, s.rf);
    fmt::print("\n{}\n{}\n", title, std::string(title.size(), '='));
    fmt::print("{:<12} {:<10} {:>7} {:>9} {:>17}\n", "Node", "Rack", "Tokens", "Owns", "Owns (effective)");
    for (NodeId n = 0; n < topo.size(); ++n) {
      if (topo.node_dc[n] != dc) continue;
      const auto& o = ring.ownership()[n];
      fmt::print("{:<12} {:<10} {:>7} {:>8.2f}% {:>16.2f}%\n", topo.nodes[n].id, topo.nodes[n].rack,
                 topo.nodes[n].tokens.size(), 100 * o.primary, 100 * o.replica);
    }
    fmt::print("Imbalance   {:<9} {:>8} {:>8} {:>9}\n", "", "mean", "stddev", "max/mean");
    fmt::print("            {:<9} {:>7.2f}% {:>7.2f}% {:>9.3f}\n", "owns", 100 * s.primary.mean,
               100 * s.primary.stddev, s.primary.max_over_mean);
    fmt::print("            {:<9} {:>7.2f}% {:>7.2f}% {:>9.3f}\n", "effective", 100 * s.replica.mean,
               100 * s.replica.stddev, s.replica.max_over_mean);
  }
  if (in.tablets) print_tablets(in);
  for (const auto& w : in.warnings) fmt::print(stderr, "warning: {}\n", w);
}

nlohmann::ordered_json ring_json(const RingInput& in) {
  const TokenRing& ring = *in.ring;
  nlohmann::ordered_json j;
  j["name"] = in.name;
  j["keyspace"] = ring.replication().describe();
  j["ring_tokens"] = ring.size();
  j["replicas_per_range"] = ring.replicas_per_range();
  j["nodes"] = node_ownership_json(ring, true);
  nlohmann::ordered_json dcs = nlohmann::ordered_json::object();
  for (const auto& s : ring.dc_ownership())
    dcs[s.dc] = {{"nodes", s.nodes},
                 {"racks", s.racks},
                 {"rf", s.rf},
                 {"primary_fraction", summary_json(s.primary)},
                 {"replica_fraction", summary_json(s.replica)}};
  j["dc_stats"] = dcs;
  if (in.tablets) {
    const TokenRing& t = *in.tablets;
    const TabletLoad l = tablet_load(in);
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (NodeId n = 0; n < t.topology().size(); ++n) {
      nlohmann::ordered_json per = nlohmann::ordered_json::array();
      for (std::uint32_t s = 0; s < in.shards; ++s) per.push_back(l.shard[n * in.shards + s]);
      nodes.push_back({{"id", t.topology().nodes[n].id}, {"tablets", l.node[n]}, {"per_shard", per}});
    }
    nlohmann::ordered_json by_dc = nlohmann::ordered_json::object();
    for (std::uint32_t dc = 0; dc < t.topology().dcs.size(); ++dc) {
      const auto [ns, ss] = tablet_summary(in, l, dc);
      by_dc[t.topology().dcs[dc]] = {{"per_node", summary_json(ns)}, {"per_shard", summary_json(ss)}};
    }
    j["tablets"] = {{"count", t.size()},
                    {"replicas_per_tablet", t.replicas_per_range()},
                    {"shards_per_node", in.shards},
                    {"nodes", nodes},
                    {"dc_stats", by_dc}};
  }
  j["warnings"] = in.warnings;
  return j;
}

int run_ring(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::string>()->required(), "topology file or scenario (JSON)")(
      "set", po::value<std::vector<std::string>>()->composing(), kSetHelp)(
      "json", po::bool_switch(), "print JSON instead of a table");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse_options("ring", "FILE [--set PATH=V ...] [--json]", args, opts, pos, vm)) return 0;
  const RingInput in = load_ring_input(vm["file"].as<std::string>(), strings_of(vm, "set"));
  if (vm["json"].as<bool>()) std::cout << ring_json(in).dump(1) << "\n";
  else print_table(in);
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("ring", "ownership per node (nodetool status style) and per-DC imbalance of a ring", run_ring)

}  // namespace lbsim::cli
