// Scenario warnings reach stderr in every output mode (issue 13: under --quiet they vanished).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using testing_files::slurp;

TEST(CliWarnings, ScenarioWarningsGoToStderrEvenWithQuiet) {
  const fs::path dir = fs::temp_directory_path() / ("lbsim-warn-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // An rf entry for a datacenter without nodes: Cassandra accepts it, lbsim warns.
  std::ofstream(dir / "s.json") << R"({"name": "warn",
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}], "num_tokens": 4},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3, "dcX": 1}},
    "workload": {"ops": 200},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]})";
  for (const std::string mode : {"--quiet", "--json", ""}) {
    const std::string cmd = std::string(LBSIM_BINARY) + " run " + (dir / "s.json").string() + " " + mode + " --out " +
                            (dir / "out").string() + " --force >" + (dir / "stdout").string() + " 2>" +
                            (dir / "stderr").string();
    ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "stderr");
    EXPECT_NE(slurp(dir / "stderr").find("lbsim run: warning: /keyspace/rf/dcX: datacenter 'dcX' has no nodes"),
              std::string::npos)
        << "mode '" << mode << "'";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lbsim
