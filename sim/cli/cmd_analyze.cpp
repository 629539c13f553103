// `lbsim analyze SCENARIO [--json] [--physics FILE] [--set PATH=V ...]`: the analytic load model at
// once, without simulating: expected coordinator and replica shares per node and the saturation
// bound. `--physics FILE` applies an `lbsim fit` fragment before the --set patches, as `lbsim run`
// does: its service times and node speeds set the bound.
#include <iostream>

#include <fmt/format.h>

#include "sim/analysis/scenario_model.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/physics.hpp"

namespace lbsim::cli {
namespace {

int run_analyze(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("scenario", po::value<std::string>()->required(), "scenario file (JSON)")(
      "json", po::bool_switch(), "print JSON (schema lbsim.model/1)")(
      "physics", po::value<std::string>(),
      "apply an `lbsim fit` fragment (its cluster block: service times, node speeds) before the --set patches")(
      "set", po::value<std::vector<std::string>>()->default_value({}, ""), kSetHelp);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options("analyze", "SCENARIO [--json] [--physics FILE] [--set PATH=VALUE ...]", args, opts, pos, vm))
    return 0;
  std::vector<std::string> sets;
  if (vm.count("physics")) sets = physics_sets(vm["physics"].as<std::string>(), vm["scenario"].as<std::string>());
  for (const auto& a : vm["set"].as<std::vector<std::string>>()) sets.push_back(a);
  const Scenario sc = load_scenario(vm["scenario"].as<std::string>(), sets);
  for (const auto& w : sc.warnings) fmt::print(stderr, "lbsim analyze: warning: {}\n", w);
  const ScenarioModel m = analyze_scenario(sc);
  if (vm["json"].as<bool>()) std::cout << scenario_model_json(sc, m).dump(1) << "\n";
  else std::cout << scenario_model_text(sc, m);
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("analyze", "the analytic load model: expected per-node shares and the saturation bound", run_analyze)

}  // namespace lbsim::cli
