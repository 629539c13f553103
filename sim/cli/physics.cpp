#include "sim/cli/physics.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/fit/fit.hpp"

namespace lbsim::cli {

std::vector<std::string> physics_sets(const std::string& file, const std::string& scenario) {
  std::ifstream in(file);
  if (!in) throw ConfigError(file, "cannot read the --physics file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(file, std::string("not JSON (") + e.what() + "); expected the fragment `lbsim fit --out` writes");
  }
  std::vector<std::string> sets = fit::physics_sets(j, file);
  try {
    (void)load_scenario(scenario, sets);
  } catch (const ConfigError& e) {
    throw ConfigError(file + ": " + e.path(), e.message());
  }
  return sets;
}

}  // namespace lbsim::cli
