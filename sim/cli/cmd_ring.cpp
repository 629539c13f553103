// `lbsim ring FILE [--json]`: a nodetool-status-like ownership table and per-DC imbalance.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/cli/ring_json.hpp"
#include "sim/config/ring_input.hpp"

namespace lbsim::cli {
namespace {

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
  j["warnings"] = in.warnings;
  return j;
}

int run_ring(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::string>()->required(), "topology file or scenario (JSON)")(
      "json", po::bool_switch(), "print JSON instead of a table");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse_options("ring", "FILE [--json]", args, opts, pos, vm)) return 0;
  const RingInput in = load_ring_input(vm["file"].as<std::string>());
  if (vm["json"].as<bool>()) std::cout << ring_json(in).dump(1) << "\n";
  else print_table(in);
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("ring", "ownership per node (nodetool status style) and per-DC imbalance of a ring", run_ring)

}  // namespace lbsim::cli
