// Runs tests/nodejs/lbsim_oracle.js (the real cassandra-driver 4.10.0 policies and metadata,
// under Node.js) from a GoogleTest, and the statistics the comparisons use. Header-only: the
// test CMake target compiles tests/*.cpp only.
//
// The driver is looked up in $LBSIM_NODEJS_DRIVER (the package folder), then in
// ${XDG_CACHE_HOME:-$HOME/.cache}/lbsim/npm/node_modules/cassandra-driver, where scripts/deps.sh
// installs it. oracle_env().skip_reason is non-empty when the package or `node` is missing.
#pragma once
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/cluster/topology.hpp"

namespace lbsim::policy::nodejs_test {

struct OracleEnv {
  std::string driver;  // the cassandra-driver package folder
  std::string script;  // tests/nodejs/lbsim_oracle.js
  std::string skip_reason;
};

inline OracleEnv oracle_env() {
  namespace fs = std::filesystem;
  OracleEnv env;
  env.script = std::string(LBSIM_SOURCE_DIR) + "/tests/nodejs/lbsim_oracle.js";
  std::string dir;
  if (const char* d = std::getenv("LBSIM_NODEJS_DRIVER"); d != nullptr && *d != 0) {
    dir = d;
  } else {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::string cache = xdg != nullptr && *xdg != 0 ? xdg : std::string(home != nullptr ? home : "") + "/.cache";
    dir = cache + "/lbsim/npm/node_modules/cassandra-driver";
  }
  std::ifstream pkg(dir + "/package.json");
  std::stringstream text;
  text << pkg.rdbuf();
  if (!pkg || text.str().find("\"version\": \"4.10.0\"") == std::string::npos) {
    env.skip_reason = "cassandra-driver 4.10.0 not found in " + dir + " (run scripts/deps.sh, or set LBSIM_NODEJS_DRIVER)";
    return env;
  }
  if (std::system("node --version > /dev/null 2>&1") != 0) {
    env.skip_reason = "`node` is not on PATH (Node.js runs the driver oracle)";
    return env;
  }
  if (!fs::exists(env.script)) {
    env.skip_reason = "missing " + env.script;
    return env;
  }
  env.driver = dir;
  return env;
}

// Runs the script on `input` (the "driver" key is filled in); throws on a failure of node.
inline nlohmann::json run_oracle(const OracleEnv& env, nlohmann::json input) {
  namespace fs = std::filesystem;
  static int counter = 0;
  input["driver"] = env.driver;
  const fs::path file = fs::temp_directory_path() /
                        ("lbsim-nodejs-oracle-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".json");
  {
    std::ofstream out(file);
    out << input.dump();
  }
  const std::string cmd = "node '" + env.script + "' '" + file.string() + "'";
  std::string output;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("cannot run " + cmd);
  std::array<char, 65536> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) output.append(buf.data(), n);
  const int status = ::pclose(p);
  fs::remove(file);
  if (status != 0) throw std::runtime_error("the oracle failed (status " + std::to_string(status) + "): " + cmd);
  return nlohmann::json::parse(output);
}

// The topology and replication in the script's input format (tokens as decimal strings: JSON
// numbers would lose precision in JavaScript).
inline nlohmann::json cluster_json(const Topology& topo, const Replication& repl) {
  nlohmann::json j;
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : topo.nodes) {
    nlohmann::json tokens = nlohmann::json::array();
    for (Token t : n.tokens) tokens.push_back(std::to_string(t));
    j["nodes"].push_back({{"id", n.id}, {"dc", n.dc}, {"rack", n.rack}, {"tokens", tokens}});
  }
  nlohmann::json opts = nlohmann::json::object();
  if (repl.kind == StrategyKind::Simple) {
    opts["replication_factor"] = std::to_string(repl.simple_rf);
    j["replication"] = {{"class", "SimpleStrategy"}, {"options", opts}};
  } else {
    for (const auto& [dc, rf] : repl.dc_rf) opts[dc] = std::to_string(rf);
    j["replication"] = {{"class", "NetworkTopologyStrategy"}, {"options", opts}};
  }
  return j;
}

// Pearson's two-sample chi-square statistic on category counts (a homogeneity test), and its
// degrees of freedom (categories seen - 1).
struct ChiSquare {
  double statistic = 0;
  int dof = 0;
};
template <class K>
ChiSquare two_sample_chi_square(const std::map<K, int>& a, const std::map<K, int>& b) {
  double na = 0, nb = 0;
  std::map<K, std::pair<double, double>> all;
  for (const auto& [k, c] : a) {
    all[k].first = c;
    na += c;
  }
  for (const auto& [k, c] : b) {
    all[k].second = c;
    nb += c;
  }
  ChiSquare r;
  for (const auto& [k, ab] : all) {
    const double d = ab.first * std::sqrt(nb / na) - ab.second * std::sqrt(na / nb);
    r.statistic += d * d / (ab.first + ab.second);
  }
  r.dof = static_cast<int>(all.size()) - 1;
  return r;
}
// The chi-square distribution's upper 0.01% point: the driver side uses the real Math.random, so
// each comparison fails falsely once in 10,000 runs.
inline double chi_square_critical_9999(int dof) {
  static constexpr std::array<double, 10> kTable{15.137, 18.421, 21.108, 23.513, 25.745,
                                                 27.856, 29.878, 31.828, 33.720, 35.564};
  return dof >= 1 && dof <= 10 ? kTable[static_cast<std::size_t>(dof - 1)] : 1e300;
}

}  // namespace lbsim::policy::nodejs_test
