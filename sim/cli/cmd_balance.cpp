// `lbsim balance FILE [--seed N] [--candidates RULE] [--json]`: the tablet balancer on a cluster with several tables
// through bootstrap and decommission steps, without traffic (as ScyllaDB's perf-load-balancing):
// per step and table the node and shard overcommit and the best achievable.
#include <algorithm>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/command.hpp"
#include "sim/config/balance_file.hpp"
#include "sim/core/error.hpp"

namespace lbsim::cli {
namespace {

using OJson = nlohmann::ordered_json;

OJson stats_json(const std::string& table, const BalanceStats& s) {
  return {{"table", table},
          {"node_overcommit", s.node_overcommit},
          {"shard_overcommit", s.shard_overcommit},
          {"best_node", s.best_node},
          {"best_shard", s.best_shard}};
}

// Per table and member node at the end: replicas, and per shard.
OJson final_json(const BalanceFile& f, const BalanceSimResult& r) {
  const Topology& topo = f.spec.topo;
  OJson nodes = OJson::array();
  for (NodeId n = 0; n < topo.size(); ++n) {
    if (r.nodes[n].shards == 0) continue;
    OJson tables = OJson::object();
    for (std::size_t t = 0; t < r.maps.size(); ++t) {
      std::vector<std::uint64_t> per(r.nodes[n].shards, 0);
      for (const TabletReplica& rep : r.maps[t].all())
        if (rep.host == n) ++per[rep.shard];
      std::uint64_t total = 0;
      for (auto c : per) total += c;
      tables[f.spec.tables[t].name] = {{"tablets", total}, {"per_shard", per}};
    }
    nodes.push_back({{"id", topo.nodes[n].id}, {"dc", topo.dcs[topo.node_dc[n]]}, {"shards", r.nodes[n].shards},
                     {"tables", tables}});
  }
  return nodes;
}

OJson to_json(const BalanceFile& f, const BalanceSimResult& r) {
  const BalancerOptions& o = f.spec.options;
  OJson j;
  j["schema"] = "lbsim.balance/1";
  j["name"] = f.name;
  j["description"] = f.description;
  j["server"] = server_rules(f.server).name;
  j["rules"] = {{"goal", goal_name(o.goal)},
                {"candidates", candidate_rule_name(o.candidates)},
                {"intranode", o.intranode},
                {"candidates_overridden", f.candidates_set}};
  j["seed"] = f.spec.seed;
  OJson steps = OJson::array();
  for (const auto& st : r.steps) {
    OJson tables = OJson::array();
    for (std::size_t t = 0; t < st.tables.size(); ++t) tables.push_back(stats_json(f.spec.tables[t].name, st.tables[t]));
    steps.push_back({{"step", st.what},
                     {"rounds", st.rounds},
                     {"internode_migrations", st.internode},
                     {"intranode_migrations", st.intranode},
                     {"tables", tables}});
  }
  j["steps"] = steps;
  OJson worst = OJson::array();
  for (std::size_t t = 0; t < r.worst.size(); ++t) worst.push_back(stats_json(f.spec.tables[t].name, r.worst[t]));
  j["worst"] = worst;
  j["final"] = final_json(f, r);
  return j;
}

void print_text(const BalanceFile& f, const BalanceSimResult& r) {
  const BalancerOptions& o = f.spec.options;
  fmt::print("== {} ({}: goal {}, candidates {}{}, intra-node moves {}; seed {}) ==\n", f.name, server_rules(f.server).name,
             goal_name(o.goal), candidate_rule_name(o.candidates), f.candidates_set ? " (overridden)" : "",
             o.intranode ? "yes" : "no", f.spec.seed);
  if (!f.description.empty()) fmt::print("{}\n", f.description);
  fmt::print("{:<24} {:>6} {:>11}  {:<12} {:>8} {:>8} {:>10} {:>10}\n", "step", "rounds", "migrations", "table",
             "node", "shard", "best node", "best shard");
  for (const auto& st : r.steps)
    for (std::size_t t = 0; t < st.tables.size(); ++t) {
      const BalanceStats& s = st.tables[t];
      if (t == 0)
        fmt::print("{:<24} {:>6} {:>11}  ", st.what, st.rounds, fmt::format("{}+{}", st.internode, st.intranode));
      else
        fmt::print("{:<24} {:>6} {:>11}  ", "", "", "");
      fmt::print("{:<12} {:>8.2f} {:>8.2f} {:>10.2f} {:>10.2f}\n", f.spec.tables[t].name, s.node_overcommit,
                 s.shard_overcommit, s.best_node, s.best_shard);
    }
  fmt::print("worst over the steps (overcommit = the most-loaded node's or shard's tablets / the even share):\n");
  for (std::size_t t = 0; t < r.worst.size(); ++t)
    fmt::print("  {:<12} node {:.2f}, shard {:.2f} (best {:.2f})\n", f.spec.tables[t].name, r.worst[t].node_overcommit,
               r.worst[t].shard_overcommit, r.worst[t].best_shard);
}

int run_balance(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::string>()->required(), "balance file (JSON; configs/README.md)")(
      "seed", po::value<std::int64_t>(), "the allocation and candidate draws' seed (default: the file's seed)")(
      "candidates", po::value<std::string>(),
      "override the release's candidate rule: first (5.4), random (6.0-6.1), scored (6.2 and later)")(
      "json", po::bool_switch(), "print JSON (lbsim.balance/1) instead of tables");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse_options("balance", "FILE [--seed N] [--candidates RULE] [--json]", args, opts, pos, vm)) return 0;
  const std::string file = vm["file"].as<std::string>();
  BalanceFile f = load_balance_file(file);
  if (vm.count("seed")) f.spec.seed = static_cast<std::uint64_t>(int_option(vm, "seed", 0, std::int64_t{1} << 53));
  if (vm.count("candidates")) {
    const std::string c = vm["candidates"].as<std::string>();
    if (c == "first") f.spec.options.candidates = CandidateRule::First;
    else if (c == "random") f.spec.options.candidates = CandidateRule::Random;
    else if (c == "scored") f.spec.options.candidates = CandidateRule::Scored;
    else throw ConfigError("--candidates", "unknown value '" + c + "'; valid: first, random, scored");
    f.candidates_set = true;
  }
  BalanceSimResult r;
  try {
    r = run_balance_sim(f.spec);
  } catch (const std::runtime_error& e) {
    throw ConfigError(file + ": /steps", e.what());  // e.g. a rack rule that keeps a node from draining
  }
  if (vm["json"].as<bool>()) std::cout << to_json(f, r).dump(1) << "\n";
  else print_text(f, r);
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("balance",
                       "the tablet balancer through bootstrap/decommission steps: per-table node and shard overcommit",
                       run_balance)

}  // namespace lbsim::cli
