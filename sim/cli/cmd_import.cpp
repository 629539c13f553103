// `lbsim import (--ring F | --describering F | --csv F) --rf SPEC [--rackdc ADDR=FILE ...]
//  [--out FILE]`: a real cluster's ring as a topology file (sim/config/import.hpp), validated
// by the topology-file parser before it is written.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/config/import.hpp"
#include "sim/config/topology_file.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim::cli {
namespace {

std::string read_text(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw ConfigError(file, "no such file");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run_import(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("ring", po::value<std::string>(), "output of `nodetool ring` (saved to a file)")(
      "describering", po::value<std::string>(), "output of `nodetool describering KEYSPACE`")(
      "csv", po::value<std::string>(), "CSV: address,dc,rack,tokens (tokens separated by spaces or ';')")(
      "rf", po::value<std::string>()->required(), "the keyspace's replication: dc1=3,dc2=3 (NetworkTopologyStrategy) or 3 (SimpleStrategy)")(
      "rackdc", po::value<std::vector<std::string>>()->composing(),
      "ADDRESS=FILE: a node's cassandra-rackdc.properties (dc=, rack=), overriding the input's; repeatable")(
      "out", po::value<std::string>(), "write the topology file here (default: standard output)");
  po::variables_map vm;
  if (!parse_options("import", "(--ring F | --describering F | --csv F) --rf SPEC [--rackdc ADDR=FILE ...] [--out FILE]",
                     args, opts, po::positional_options_description(), vm))
    return 0;
  const int given = static_cast<int>(vm.count("ring") + vm.count("describering") + vm.count("csv"));
  if (given != 1) throw ConfigError("lbsim import", "give exactly one of --ring, --describering and --csv");
  const ImportFormat fmt_in = vm.count("ring") ? ImportFormat::NodetoolRing
                              : vm.count("describering") ? ImportFormat::Describering
                                                         : ImportFormat::Csv;
  const std::string file = vm.count("ring") ? vm["ring"].as<std::string>()
                           : vm.count("describering") ? vm["describering"].as<std::string>()
                                                      : vm["csv"].as<std::string>();
  ImportedRing ring = parse_ring_text(read_text(file), fmt_in, file);
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
  const Replication repl = parse_rf_option(vm["rf"].as<std::string>());
  const jsonin::Json doc = topology_file_json(ring, repl, "lbsim import " + file);
  // The file must read back as a topology file (unique tokens and ids, known DCs in the RF).
  const TopologyFile tf = parse_topology_file(doc, file);
  for (const auto& w : ring.warnings) fmt::print(stderr, "lbsim import: warning: {}\n", w);
  for (const auto& w : tf.warnings) fmt::print(stderr, "lbsim import: warning: {}\n", w);
  std::size_t tokens = 0;
  for (const auto& n : ring.nodes) tokens += n.tokens.size();
  fmt::print(stderr, "lbsim import: {} nodes in {} datacenters, {} tokens; {}\n", ring.nodes.size(),
             tf.topology.dcs.size(), tokens, repl.describe());
  const std::string text = doc.dump(1) + "\n";
  if (vm.count("out")) write_file_atomic(vm["out"].as<std::string>(), text);
  else std::cout << text;
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("import", "turn nodetool ring / describering output or a CSV of a real cluster into a topology file",
                       run_import)

}  // namespace lbsim::cli
