// `--physics FILE` of `lbsim run` and `lbsim analyze`: an `lbsim fit` fragment (sim/fit/fit.hpp)
// as --set assignments, applied before the command's own --set patches.
#pragma once
#include <string>
#include <vector>

namespace lbsim::cli {

// The fragment's assignments, checked against `scenario` alone first so that a value the scenario
// refuses is named with the fragment's file (a ConfigError "FILE: PATH: ..."). ConfigError too
// when the file cannot be read, is not JSON or is not an lbsim.fit/1 fragment.
std::vector<std::string> physics_sets(const std::string& file, const std::string& scenario);

}  // namespace lbsim::cli
