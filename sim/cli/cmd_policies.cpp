// `lbsim policies [--json]`: every registered policy type with its one-line description and the
// parameters its JSON spec accepts (besides "type").
#include <iostream>

#include <fmt/format.h>

#include "policies/registry.hpp"
#include "sim/cli/command.hpp"

namespace lbsim::cli {
namespace {

int run_policies(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("json", po::bool_switch(), "print [{\"type\", \"description\", \"params\"}] as JSON");
  po::variables_map vm;
  if (!parse_options("policies", "[--json]", args, opts, po::positional_options_description(), vm)) return 0;
  const auto all = policy::Registry::instance().all();
  if (vm["json"].as<bool>()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto* p : all) out.push_back({{"type", p->type}, {"description", p->description}, {"params", p->params}});
    std::cout << out.dump(1) << "\n";
    return 0;
  }
  for (const auto* p : all) {
    std::cout << fmt::format("{:<20} {}\n", p->type, p->description);
    std::cout << fmt::format("{:<20} params: {}\n", "", p->params.empty() ? "(none)" : jsonin::join(p->params));
  }
  std::cout << "\nA policy spec is a JSON object, e.g. "
               "{\"type\":\"TokenAware\",\"ordering\":\"RANDOM\",\"child\":{\"type\":\"DCAwareRoundRobin\",\"local_dc\":\"dc1\"}}\n";
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("policies", "list the load-balancing policies with their descriptions and parameters", run_policies)

}  // namespace lbsim::cli
