// `lbsim import (--ring F | --describering F | --csv F | --topology F) [--rf SPEC] [--rackdc ADDR=FILE ...]
//  [--scenario BASE.json [--set PATH=V ...]] [--out FILE]`: a real cluster's ring as a topology file
// (sim/config/import.hpp), validated by the topology-file parser before it is written. With
// --scenario, a runnable scenario around it: BASE's workload, client, policies, ... on the imported
// ring, written to --out with the topology file beside it. Nothing is written unless everything is
// valid, and the summary is printed only once every file is written.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/cli/command.hpp"
#include "sim/config/import.hpp"
#include "sim/config/scenario.hpp"
#include "sim/config/topology_file.hpp"
#include "sim/core/text_input.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) throw ConfigError(file, "no such file");
  if (!fs::is_regular_file(file, ec))
    throw ConfigError(file, "not a regular file (a folder or a device); expected nodetool output, a ring CSV or a "
                            "cassandra-rackdc.properties file");
  return read_text_file(file, "a text file: nodetool output, a ring CSV or a cassandra-rackdc.properties file");
}

// The topology file that goes beside the scenario `out`: "my.json" -> "my.topology.json".
fs::path topology_beside(const fs::path& out) { return out.parent_path() / (out.stem().string() + ".topology.json"); }

// A relative file reference of BASE (resolved against BASE's folder) as the scenario written to
// `out_dir` must spell it.
std::string rebased(const std::string& ref, const fs::path& base_dir, const fs::path& out_dir) {
  if (fs::path(ref).is_absolute()) return ref;
  const fs::path target = fs::absolute(base_dir / ref).lexically_normal();
  return target.lexically_relative(fs::absolute(out_dir).lexically_normal()).string();
}

// Validates `doc` as the scenario at `out` whose topology file (cluster.topology_file) holds
// `topology_text`, without writing either: the topology goes to a temporary file meanwhile.
Scenario validate_scenario(jsonin::Json doc, const std::string& topology_text, const fs::path& out) {
  std::string tmpl = (fs::temp_directory_path() / "lbsim-import.XXXXXX").string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw IoError("cannot create a temporary file in " + fs::temp_directory_path().string());
  ::close(fd);
  struct Remove {
    std::string path;
    ~Remove() { std::remove(path.c_str()); }
  } remove{tmpl};
  std::ofstream(tmpl, std::ios::binary) << topology_text;
  doc["cluster"]["topology_file"] = tmpl;  // absolute: found wherever the scenario is
  const std::string dir = out.parent_path().string();
  return scenario_from_json(std::move(doc), out.string(), dir.empty() ? "." : dir);
}

// BASE's document made into a scenario on the imported ring (named after `out`), patched by `sets`.
jsonin::Json scenario_around(const std::string& base, const fs::path& out, const std::vector<std::string>& sets) {
  jsonin::Json doc = jsonin::load_file(base);
  if (!doc.is_object() || !doc.contains("cluster") || !doc["cluster"].is_object())
    throw ConfigError("--scenario " + base, "not a scenario (no \"cluster\" object); give one of configs/*.json, "
                                            "e.g. configs/first-answer.json");
  jsonin::Json& cluster = doc["cluster"];
  // The ring and its keyspace are the imported ones; how BASE named its nodes goes.
  for (const char* k : {"datacenters", "nodes", "topology_file", "token_allocation"}) cluster.erase(k);
  doc.erase("keyspace");
  const std::string stem = out.stem().string();
  if (!stem.empty() && stem[0] != '.' &&
      stem.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos)
    doc["name"] = stem;  // its reports go to results/<stem>/, not over BASE's
  const fs::path base_dir = fs::path(base).parent_path();
  if (doc.contains("workload") && doc["workload"].contains("trace") && doc["workload"]["trace"].contains("file") &&
      doc["workload"]["trace"]["file"].is_string())
    doc["workload"]["trace"]["file"] = rebased(doc["workload"]["trace"]["file"].get<std::string>(), base_dir, out.parent_path());
  doc["cluster"]["topology_file"] = topology_beside(out).filename().string();
  apply_sets(doc, sets);
  return doc;
}

// BASE's keys in BASE's order (jsonin::Json sorts them), for the scenario written from it.
nlohmann::ordered_json base_order(const std::string& base) {
  std::ifstream in(base, std::ios::binary);
  return nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// `v` with the keys of each object in the order `model` has them (new keys after, sorted).
nlohmann::ordered_json ordered_like(const jsonin::Json& v, const nlohmann::ordered_json& model) {
  if (v.is_array()) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < v.size(); ++i)
      a.push_back(ordered_like(v[i], model.is_array() && i < model.size() ? model[i] : nlohmann::ordered_json()));
    return a;
  }
  if (!v.is_object()) return nlohmann::ordered_json::parse(v.dump());
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  static const nlohmann::ordered_json none;
  if (model.is_object())
    for (const auto& [k, m] : model.items())
      if (v.contains(k)) o[k] = ordered_like(v[k], m);
  for (const auto& [k, x] : v.items())
    if (!o.contains(k)) o[k] = ordered_like(x, model.is_object() && model.contains(k) ? model[k] : none);
  return o;
}

int run_import(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("ring", po::value<std::string>(), "output of `nodetool ring` (saved to a file)")(
      "describering", po::value<std::string>(), "output of `nodetool describering KEYSPACE`")(
      "csv", po::value<std::string>(), "CSV: address,dc,rack,tokens (tokens separated by spaces or ';')")(
      "topology", po::value<std::string>(),
      "an lbsim topology file (one `lbsim import` wrote), to put a scenario around it with --scenario")(
      "rf", po::value<std::string>(),
      "the keyspace's replication: dc1=3,dc2=3 (NetworkTopologyStrategy) or 3 (SimpleStrategy); required except "
      "with --topology, whose keyspace it replaces")(
      "rackdc", po::value<std::vector<std::string>>()->composing(),
      "ADDRESS=FILE: a node's cassandra-rackdc.properties (dc=, rack=), overriding the input's; repeatable")(
      "scenario", po::value<std::string>(),
      "BASE.json: also write a runnable scenario, BASE's workload, client and policies on the imported ring; --out "
      "then names the scenario, and the topology file goes beside it as <name>.topology.json")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "with --scenario: patch the scenario written (e.g. client.dc=DC1 when BASE's DC is not in the ring; "
      "PATH=null removes a key); repeatable")(
      "out,o", po::value<std::string>(),
      "the file to write: the topology file (default: standard output), or with --scenario the scenario (required)");
  po::variables_map vm;
  if (!parse_options("import",
                     "(--ring F | --describering F | --csv F | --topology F) [--rf SPEC] [--rackdc ADDR=FILE ...] "
                     "[--scenario BASE.json [--set PATH=V ...]] [-o|--out FILE]",
                     args, opts, po::positional_options_description(), vm))
    return 0;
  const std::size_t given = vm.count("ring") + vm.count("describering") + vm.count("csv") + vm.count("topology");
  if (given != 1) throw ConfigError("--ring, --describering, --csv, --topology", "give exactly one of them");
  const bool from_topology = vm.count("topology") > 0;
  if (!from_topology && !vm.count("rf"))
    throw ConfigError("--rf", "required: the keyspace's replication, e.g. --rf dc1=3,dc2=3 or --rf 3");
  const std::string base = vm.count("scenario") ? vm["scenario"].as<std::string>() : "";
  const std::vector<std::string> sets = strings_of(vm, "set");
  if (base.empty() && !sets.empty()) throw ConfigError("--set", "patches the scenario that --scenario BASE.json writes; give --scenario");
  if (!base.empty() && !vm.count("out")) throw ConfigError("--out", "required with --scenario: the scenario file to write, e.g. --out my.json");

  std::string file;
  ImportedRing ring;
  Replication repl;
  if (from_topology) {
    file = vm["topology"].as<std::string>();
    TopologyFile tf = load_topology_file(file);
    ring.nodes = tf.topology.nodes;
    repl = tf.replication;
  } else {
    const ImportFormat fmt_in = vm.count("ring") ? ImportFormat::NodetoolRing
                                : vm.count("describering") ? ImportFormat::Describering
                                                           : ImportFormat::Csv;
    file = vm.count("ring") ? vm["ring"].as<std::string>()
           : vm.count("describering") ? vm["describering"].as<std::string>()
                                      : vm["csv"].as<std::string>();
    ring = parse_ring_text(read_text(file), fmt_in, file);
  }
  if (vm.count("rf")) repl = parse_rf_option(vm["rf"].as<std::string>());
  if (vm.count("rackdc")) {
    for (const auto& spec : vm["rackdc"].as<std::vector<std::string>>()) {
      const auto eq = spec.find('=');
      if (eq == std::string::npos || eq == 0) throw ConfigError("--rackdc", "'" + spec + "': expected ADDRESS=FILE");
      const std::string address = spec.substr(0, eq), props = spec.substr(eq + 1);
      auto it = std::find_if(ring.nodes.begin(), ring.nodes.end(), [&](const NodeSpec& n) { return n.id == address; });
      if (it == ring.nodes.end()) throw ConfigError("--rackdc", "no node '" + address + "' in " + file);
      apply_rackdc(*it, read_text(props), props);
    }
  }
  const jsonin::Json doc = topology_file_json(ring, repl, "lbsim import " + file);
  // The file must read back as a topology file (unique tokens and ids, known DCs in the RF).
  const TopologyFile tf = parse_topology_file(doc, file);
  const std::string text = doc.dump(1) + "\n";

  // With --scenario, the scenario is validated on the imported ring before anything is written.
  std::string scenario_text, topology_path = vm.count("out") ? vm["out"].as<std::string>() : "";
  std::vector<std::string> scenario_warnings;
  std::string scenario_name;
  if (!base.empty()) {
    const fs::path out = vm["out"].as<std::string>();
    std::error_code ec;
    if (fs::exists(out, ec) && fs::equivalent(out, base, ec))
      throw ConfigError("--out " + out.string(), "is the base scenario itself; name a new file");
    topology_path = topology_beside(out).string();
    jsonin::Json sdoc = scenario_around(base, out, sets);
    try {
      const Scenario sc = validate_scenario(sdoc, text, out);
      scenario_warnings = sc.warnings;
      scenario_name = sc.name;
    } catch (const ConfigError& e) {
      const ConfigError blamed = blame_set(e, sets, base);
      if (blamed.path().starts_with("--set")) throw blamed;
      throw ConfigError("--scenario " + base,
                        fmt::format("does not fit the imported ring ({}: {}); the ring's datacenters: {}; patch the "
                                    "scenario with --set PATH=VALUE (PATH=null removes a key)",
                                    e.path(), e.message(), jsonin::join(tf.topology.dcs)));
    }
    scenario_text = ordered_like(sdoc, base_order(base)).dump(2) + "\n";
  }

  for (const auto& w : ring.warnings) fmt::print(stderr, "lbsim import: warning: {}\n", w);
  for (const auto& w : tf.warnings) fmt::print(stderr, "lbsim import: warning: {}\n", w);
  for (const auto& w : scenario_warnings) fmt::print(stderr, "lbsim import: warning: {}\n", w);
  if (topology_path.empty()) std::cout << text;
  else write_file_atomic(topology_path, text);
  if (!scenario_text.empty()) write_file_atomic(vm["out"].as<std::string>(), scenario_text);
  // Only now, with every file written, the summary.
  std::size_t tokens = 0;
  for (const auto& n : ring.nodes) tokens += n.tokens.size();
  fmt::print(stderr, "lbsim import: {} nodes in {} datacenters, {} tokens; {}\n", ring.nodes.size(),
             tf.topology.dcs.size(), tokens, repl.describe());
  if (!topology_path.empty()) fmt::print(stderr, "lbsim import: wrote {}\n", topology_path);
  if (!scenario_text.empty())
    fmt::print(stderr, "lbsim import: wrote {} (scenario '{}': {} on this ring); run it with: lbsim run {}\n",
               vm["out"].as<std::string>(), scenario_name, base, vm["out"].as<std::string>());
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("import",
                       "turn nodetool ring / describering output or a CSV of a real cluster into a topology file, "
                       "and optionally a scenario around it",
                       run_import)

}  // namespace lbsim::cli
