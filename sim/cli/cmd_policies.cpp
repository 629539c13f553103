// `lbsim policies [--json]`: every registered policy type with its one-line description and the
// parameters its JSON spec accepts (besides "type").
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "policies/registry.hpp"
#include "sim/cli/command.hpp"

namespace lbsim::cli {
namespace {

int run_policies(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("json", po::bool_switch(), "print [{\"type\", \"driver\", \"description\", \"params\": [{\"name\", \"values\", \"default\"}]}] as JSON");
  po::variables_map vm;
  if (!parse_options("policies", "[--json]", args, opts, po::positional_options_description(), vm)) return 0;
  auto all = policy::Registry::instance().all();
  std::stable_sort(all.begin(), all.end(),
                   [](const policy::PolicyInfo* a, const policy::PolicyInfo* b) { return a->driver < b->driver; });
  if (vm["json"].as<bool>()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto* p : all) {
      nlohmann::json params = nlohmann::json::array();
      for (const auto& a : p->params) params.push_back({{"name", a.name}, {"values", a.values}, {"default", a.dflt}});
      out.push_back({{"type", p->type},
                     {"driver", std::string(policy::driver_name(p->driver))},
                     {"description", p->description},
                     {"params", params}});
    }
    std::cout << out.dump(1) << "\n";
    return 0;
  }
  bool first = true;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto* p = all[i];
    if (i == 0 || all[i - 1]->driver != p->driver) {
      std::cout << fmt::format("{}== {} ==\n", first ? "" : "\n", policy::driver_name(p->driver));
      first = false;
    }
    std::cout << fmt::format("{:<22} {}\n", p->type, p->description);
    if (p->params.empty()) std::cout << fmt::format("{:<22} params: (none)\n", "");
    for (const auto& a : p->params)
      std::cout << fmt::format("{:<22}   {:<36} {} [{}]\n", "", a.name, a.values, a.dflt);
  }
  std::cout << "\nA policy spec is a JSON object, e.g. "
               "{\"type\":\"TokenAware\",\"ordering\":\"RANDOM\",\"child\":{\"type\":\"DCAwareRoundRobin\",\"local_dc\":\"dc1\"}}\n";
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("policies", "list the load-balancing policies with their descriptions and parameters", run_policies)

}  // namespace lbsim::cli
