// `lbsim balance` files: a perf-load-balancing-like run of the tablet balancer (a cluster of nodes
// with per-node shards and capacity, several tables, bootstrap and decommission steps, a server
// release selecting the balancer's rules). Documented field by field in configs/README.md, "###
// `lbsim balance` files". Strict: unknown keys are errors naming the file, JSON path and allowed
// values (ConfigError).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "sim/cluster/tablet_balance_sim.hpp"
#include "sim/engine/model_spec.hpp"

namespace lbsim {

struct BalanceFile {
  std::string name;         // the file's "name", else its stem
  std::string description;
  ServerRelease server = ServerRelease::Unspecified;
  bool candidates_set = false;  // "candidates" overrides the release's rule
  BalanceSimSpec spec;
};

// The rules of `r` for the balancer (ServerRules' tablet fields).
BalancerOptions balancer_options(ServerRelease r);
const char* goal_name(BalanceGoal g);
const char* candidate_rule_name(CandidateRule c);

BalanceFile parse_balance_file(const nlohmann::json& doc, const std::string& stem);
BalanceFile load_balance_file(const std::string& file);

}  // namespace lbsim
