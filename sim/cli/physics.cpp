#include "sim/cli/physics.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/fit/fit.hpp"

namespace lbsim::cli {

std::vector<std::string> physics_sets(const std::string& file, const std::string& scenario) {
  nlohmann::json j;
  try {
    j = jsonin::load_file(file);  // refuses repeated keys, naming the file and the pointer
  } catch (const ConfigError& e) {
    if (!e.message().starts_with("not valid JSON")) throw;
    throw ConfigError(e.path(), e.message() + "; expected the fragment `lbsim fit --out` writes");
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
