// The table of hand-written bad inputs (tests/bad_inputs/): every NNN-name.expect names a command
// run in that folder through the real lbsim binary, the fragment its message must contain and
// the exit code (2). The input itself is NNN-name.json / .csv next to it (absent for cases such
// as "a directory given as a file"); base/ holds the valid files the cases patch or reference.
//
// Each case must: exit with the expected code, print "lbsim CMD: error: ..." containing the
// fragment on stderr (the prefix once), print nothing on stdout, and write nothing (`run` gets a
// fresh --out folder that must stay absent, and no ./results may appear in the cases' folder).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(LBSIM_SOURCE_DIR) / "tests" / "bad_inputs";

struct BadInputCase {
  std::string name;  // NNN-name
  std::string cmd;   // arguments after "lbsim"
  std::string message;
  int exit_code = -1;
};

using ::lbsim::testing_files::slurp;

std::vector<BadInputCase> load_cases() {
  std::vector<BadInputCase> out;
  for (const auto& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() != ".expect") continue;
    BadInputCase c;
    c.name = e.path().stem().string();
    std::istringstream in(slurp(e.path()));
    for (std::string line; std::getline(in, line);) {
      const auto colon = line.find(": ");
      if (colon == std::string::npos) continue;
      const std::string key = line.substr(0, colon), value = line.substr(colon + 2);
      if (key == "cmd") c.cmd = value;
      else if (key == "message") c.message = value;
      else if (key == "exit") c.exit_code = std::stoi(value);
    }
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const BadInputCase& a, const BadInputCase& b) { return a.name < b.name; });
  return out;
}

class BadInput : public ::testing::TestWithParam<BadInputCase> {};

TEST_P(BadInput, ExitsWithCodeAndMessageAndWritesNothing) {
  const BadInputCase& c = GetParam();
  ASSERT_FALSE(c.cmd.empty()) << c.name << ".expect has no cmd";
  ASSERT_FALSE(c.message.empty()) << c.name << ".expect has no message";
  ASSERT_EQ(c.exit_code, 2) << c.name << ": every bad input must exit with 2";
  const fs::path tmp = fs::temp_directory_path() / ("lbsim-bad-" + std::to_string(::getpid()) + "-" + c.name);
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const fs::path out = tmp / "results";
  std::string args = c.cmd;
  if (args.rfind("run ", 0) == 0) args += " --out '" + out.string() + "'";
  const std::string command = "cd '" + kDir.string() + "' && '" + std::string(LBSIM_BINARY) + "' " + args + " >'" +
                              (tmp / "stdout").string() + "' 2>'" + (tmp / "stderr").string() + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << c.name << ": lbsim did not exit normally (signal?)";
  const std::string err = slurp(tmp / "stderr");
  const std::string verb = c.cmd.substr(0, c.cmd.find(' '));
  EXPECT_EQ(WEXITSTATUS(status), c.exit_code) << c.name << ": " << err;
  EXPECT_EQ(err.rfind("lbsim " + verb + ": error: ", 0), 0u) << c.name << ": " << err;
  EXPECT_EQ(err.find("lbsim " + verb + ": ", 1), std::string::npos) << c.name << ": prefixed twice: " << err;
  EXPECT_NE(err.find(c.message), std::string::npos) << c.name << "\n  expected fragment: " << c.message
                                                    << "\n  got: " << err;
  EXPECT_EQ(slurp(tmp / "stdout"), "") << c.name;
  EXPECT_FALSE(fs::exists(out)) << c.name << ": the failed run created " << out;
  // Nor anything in the folder it ran in (a sweep without --out writes under ./results).
  EXPECT_FALSE(fs::exists(kDir / "results")) << c.name << ": the failed command created " << kDir / "results";
  fs::remove_all(tmp);
}

INSTANTIATE_TEST_SUITE_P(Table, BadInput, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<BadInputCase>& p) {
                           std::string n = "c" + p.param.name;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(BadInputTable, HasAtLeastFortyCasesCoveringFourFormats) {
  const auto cases = load_cases();
  EXPECT_GE(cases.size(), 40u);
  int scenario = 0, trace = 0, topology = 0, policy = 0;
  for (const auto& c : cases) {
    if (c.cmd.find("trace.file") != std::string::npos) ++trace;
    else if (c.cmd.rfind("ring", 0) == 0 || c.cmd.rfind("replicas", 0) == 0 || c.cmd.find("topology_file") != std::string::npos)
      ++topology;
    else if (c.cmd.rfind("plan", 0) == 0) ++policy;
    else ++scenario;
  }
  EXPECT_GE(scenario, 10);
  EXPECT_GE(trace, 10);
  EXPECT_GE(topology, 10);
  EXPECT_GE(policy, 10);
}

}  // namespace
