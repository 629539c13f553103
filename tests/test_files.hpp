// Small file helpers shared by the tests that drive the lbsim binary.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace lbsim::testing_files {

// The whole file as bytes ("" when it does not exist).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace lbsim::testing_files
