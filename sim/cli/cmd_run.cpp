// `lbsim run SCENARIO [--policy NAME ...] [--seed S] [--set PATH=V ...] [--out DIR] [--json] [--quiet]`:
// replays the scenario's workload through each policy, prints a cassandra-stress "Results:"
// block, the per-node table and the imbalance per policy, then a side-by-side table, and writes
// each report atomically to DIR/<scenario>/<policy>.json (schema lbsim.report/1).
#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/cli/command.hpp"
#include "sim/config/scenario.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/report_text.hpp"

namespace lbsim::cli {
namespace {

int run_run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("scenario", po::value<std::string>()->required(), "scenario file (JSON), e.g. configs/default.json")(
      "policy", po::value<std::vector<std::string>>()->composing(), "run only this policy (by its name; repeatable)")(
      "seed", po::value<std::uint64_t>(), "simulation seed (default: the scenario's \"seed\")")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "patch the scenario before validation: PATH=VALUE, e.g. client.threads=64 (repeatable)")(
      "out", po::value<std::string>()->default_value("results"), "reports go to OUT/<scenario>/<policy>.json")(
      "json", po::bool_switch(), "print the reports as a JSON array instead of text")(
      "quiet", po::bool_switch(), "print only the side-by-side table");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options("run", "SCENARIO [--policy NAME ...] [--seed S] [--set PATH=V ...] [--out DIR] [--json] [--quiet]",
                     args, opts, pos, vm))
    return 0;
  const std::vector<std::string> sets = vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
  const Scenario sc = load_scenario(vm["scenario"].as<std::string>(), sets);
  const std::uint64_t seed = vm.count("seed") ? vm["seed"].as<std::uint64_t>() : sc.seed;
  const bool json = vm["json"].as<bool>();
  const bool quiet = vm["quiet"].as<bool>();
  const std::string out_dir = vm["out"].as<std::string>();

  std::vector<const PolicyEntry*> chosen;
  if (vm.count("policy")) {
    for (const auto& name : vm["policy"].as<std::vector<std::string>>()) {
      const PolicyEntry* e = sc.find_policy(name);
      if (!e) {
        std::vector<std::string> names;
        for (const auto& p : sc.policies) names.push_back(p.name);
        throw ConfigError("--policy", "unknown policy '" + name + "' in scenario '" + sc.name +
                                          "'; valid: " + jsonin::join(names));
      }
      chosen.push_back(e);
    }
  } else {
    for (const auto& p : sc.policies) chosen.push_back(&p);
  }

  const bool tty = isatty(fileno(stderr)) != 0 && !json;
  std::vector<RunResult> results;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const PolicyEntry* e : chosen) {
    RunOptions ro;
    if (tty) {
      ro.progress = [&](const Progress& p) {
        const double pct = p.target ? 100.0 * static_cast<double>(p.finished) / static_cast<double>(p.target)
                                    : (p.end ? 100.0 * static_cast<double>(p.now) / static_cast<double>(p.end) : 0);
        fmt::print(stderr, "\r{}: simulated {:.2f} s, {} ops ({:.0f}%), {:.1f} M events/s   ", e->name, to_sec(p.now),
                   grouped(static_cast<double>(p.finished)), pct, static_cast<double>(p.events) / p.wall_s / 1e6);
        std::fflush(stderr);
      };
    }
    RunResult r = run_simulation(sc, *e, seed, ro);
    if (tty) fmt::print(stderr, "\r{:80}\r", "");
    const auto doc = report_json(r);
    write_file_atomic(report_path(out_dir, sc.name, e->name), doc.dump(1) + "\n");
    if (json) all.push_back(doc);
    else if (!quiet) print_run(std::cout, r);
    std::cout.flush();
    results.push_back(std::move(r));
  }
  if (json) {
    std::cout << all.dump(1) << "\n";
  } else {
    fmt::print("Side by side: {} ({} ops measured per policy, seed {})\n", sc.name,
               grouped(static_cast<double>(results.empty() ? 0 : results[0].measured_ops())), seed);
    print_side_by_side(std::cout, results);
    fmt::print("\nreports: {}/{}/<policy>.json\n", out_dir, sc.name);
  }
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("run", "simulate the scenario's workload through each policy and compare them", run_run)

}  // namespace lbsim::cli
