// `lbsim serve SCENARIO [--out DIR] [--duration S] [--time-scale X] [--address BASE] [--port P]`:
// the scenario's cluster for real drivers, over the CQL native protocol v4 (sim/serve/, issue 46;
// docs/serve.md). Node k listens on BASE + k - 1 at port P; it prints a line with `ready` once
// every node listens, serves until SIGINT, SIGTERM or the duration, then writes
// DIR/<scenario>/serve.json (lbsim.report/1 with a `serve` section) and exits 0.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/report/report_json.hpp"
#include "sim/serve/server.hpp"

namespace lbsim::cli {
namespace {

namespace fs = std::filesystem;

int run_serve(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("scenario", po::value<std::string>()->required(), "scenario file (JSON; configs/README.md)")(
      "out", po::value<std::string>()->default_value("results"), "output folder: DIR/<scenario>/serve.json")(
      "duration", po::value<double>(), "serve this many wall-clock seconds, then stop (default: until SIGINT or SIGTERM)")(
      "time-scale", po::value<double>()->default_value(1.0),
      "simulated seconds per wall-clock second (below 1 stretches the model's latencies; docs/serve.md)")(
      "address", po::value<std::string>()->default_value("127.0.0.1"), "the first node's address; node k listens on BASE + k - 1")(
      "port", po::value<std::int64_t>()->default_value(9042), "the CQL port of every node")(
      "shard-aware-port", po::value<std::int64_t>()->default_value(19042),
      "ScyllaDB releases with several shards: the shard-aware port (a connection's shard is its source port "
      "modulo the shards); 0: none")(
      "allow-remote", po::bool_switch(), "allow addresses outside 127.0.0.0/8")(
      "policy", po::value<std::string>(), "the scenario's policy whose name the report carries (default: its first)")(
      "seed", po::value<std::int64_t>(), "simulation seed (default: the scenario's)")(
      "max-frame", po::value<std::int64_t>()->default_value(1 << 20), "largest frame body accepted, in bytes")(
      "max-connections", po::value<std::int64_t>()->default_value(1024), "connections per node")(
      "set", po::value<std::vector<std::string>>()->composing(), kSetHelp);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options("serve", "SCENARIO [--out DIR] [--duration S] [--time-scale X] [--address BASE] [--port P]", args,
                     opts, pos, vm))
    return 0;
  const Scenario sc = load_scenario(vm["scenario"].as<std::string>(), strings_of(vm, "set"));
  const PolicyEntry* entry = &sc.policies.front();
  if (vm.count("policy")) {
    entry = sc.find_policy(vm["policy"].as<std::string>());
    if (!entry) {
      std::string names;
      for (const auto& p : sc.policies) names += (names.empty() ? "" : ", ") + p.name;
      throw ConfigError("--policy", "the scenario has no policy '" + vm["policy"].as<std::string>() + "'; it has " + names);
    }
  }
  serve::ServeOptions o;
  if (vm.count("duration")) {
    o.duration_s = vm["duration"].as<double>();
    if (!(o.duration_s > 0) || o.duration_s > 1e7) throw ConfigError("--duration", "must be in (0, 1e7] seconds");
  }
  o.time_scale = vm["time-scale"].as<double>();
  if (!(o.time_scale >= 1e-3 && o.time_scale <= 1e3)) throw ConfigError("--time-scale", "must be in [0.001, 1000]");
  o.address = vm["address"].as<std::string>();
  o.port = static_cast<std::uint16_t>(int_option(vm, "port", 1, 65535));
  o.shard_aware_port = static_cast<std::uint16_t>(int_option(vm, "shard-aware-port", 0, 65535));
  if (o.shard_aware_port == o.port) throw ConfigError("--shard-aware-port", "must differ from --port");
  o.allow_remote = vm["allow-remote"].as<bool>();
  o.max_frame = static_cast<std::uint32_t>(int_option(vm, "max-frame", 1024, 256 << 20));
  o.max_connections = static_cast<std::uint32_t>(int_option(vm, "max-connections", 1, 100000));
  const std::uint64_t seed = vm.count("seed") ? static_cast<std::uint64_t>(int_option(vm, "seed", 0, INT64_MAX)) : sc.seed;
  const fs::path dir = fs::path(vm["out"].as<std::string>()) / sc.name;
  const auto doc = serve::serve(sc, *entry, seed, o, std::cout);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw IoError(fmt::format("lbsim serve: cannot create {}: {}", dir.string(), ec.message()));
  const std::string path = (dir / "serve.json").string();
  write_file_atomic(path, doc.dump(1) + "\n");
  std::cout << "lbsim serve: report " << path << "\n";
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("serve", "the scenario's cluster for real drivers over CQL (v4): each request runs through the model",
                       run_serve)

}  // namespace lbsim::cli
