// `lbsim analyze SCENARIO [--json] [--set PATH=V ...]`: the analytic load model at once, without
// simulating: expected coordinator and replica shares per node and the saturation bound.
#include <iostream>

#include <fmt/format.h>

#include "sim/analysis/scenario_model.hpp"
#include "sim/cli/command.hpp"

namespace lbsim::cli {
namespace {

int run_analyze(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("scenario", po::value<std::string>()->required(), "scenario file (JSON)")(
      "json", po::bool_switch(), "print JSON (schema lbsim.model/1)")(
      "set", po::value<std::vector<std::string>>()->default_value({}, ""), kSetHelp);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options("analyze", "SCENARIO [--json] [--set PATH=VALUE ...]", args, opts, pos, vm)) return 0;
  const Scenario sc = load_scenario(vm["scenario"].as<std::string>(), vm["set"].as<std::vector<std::string>>());
  for (const auto& w : sc.warnings) fmt::print(stderr, "lbsim analyze: warning: {}\n", w);
  const ScenarioModel m = analyze_scenario(sc);
  if (vm["json"].as<bool>()) std::cout << scenario_model_json(sc, m).dump(1) << "\n";
  else std::cout << scenario_model_text(sc, m);
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("analyze", "the analytic load model: expected per-node shares and the saturation bound", run_analyze)

}  // namespace lbsim::cli
