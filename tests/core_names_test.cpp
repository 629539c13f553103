// Issue 45: the engine's core (the files of sim/engine/) names no optional mechanism in its code;
// the mechanisms live in sim/mech/ and reach the request path through sim/engine/hooks.hpp.
// Comments and string literals are left out (a comment may say which mechanism a hook point
// serves). Every file of sim/engine/ is scanned, the scenario's specs (model_spec.hpp) and the
// mechanisms' spec slots (mech_specs.hpp) among them: the mechanisms' specs live in their folders.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;

// The names of the optional mechanisms and of their own state, as they would appear in code.
const std::vector<std::string> kMechanismWords = {
    "tablet", "hwlb",    "snitch",   "spec_retry", "specretry", "percentile", "heartbeat", "replica_map",
    "lru",    "migration", "vnode", "balancer",   "disk",      "cache",      "driver_spec", "resize_"};

// The code of a C++ source: comments and string and character literals blanked, lines kept.
std::string code_of(const std::string& src) {
  std::string out = src;
  enum { Code, Line, Block, Str, Chr } st = Code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i], n = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (st) {
      case Code:
        if (c == '/' && n == '/') st = Line, out[i] = ' ';
        else if (c == '/' && n == '*') st = Block, out[i] = ' ';
        else if (c == '"') st = Str;
        else if (c == '\'') st = Chr;
        break;
      case Line:
        if (c == '\n') st = Code;
        else out[i] = ' ';
        break;
      case Block:
        if (c == '*' && n == '/') st = Code, out[i] = out[i + 1] = ' ', ++i;
        else if (c != '\n') out[i] = ' ';
        break;
      case Str:
      case Chr:
        if (c == '\\') out[i] = out[i + 1] = ' ', ++i;
        else if (c == (st == Str ? '"' : '\'')) st = Code;
        else if (c != '\n') out[i] = ' ';
        break;
    }
  }
  return out;
}

// "file:line: word" for each mechanism word in the code of `src`.
std::vector<std::string> hits_in(const std::string& name, const std::string& src) {
  std::vector<std::string> out;
  const std::string code = code_of(src);
  for (const std::string& w : kMechanismWords) {
    const std::regex re(w, std::regex::icase);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), re); it != std::sregex_iterator(); ++it) {
      const auto line = 1 + std::count(code.begin(), code.begin() + it->position(), '\n');
      out.push_back(name + ":" + std::to_string(line) + ": " + w);
    }
  }
  return out;
}

TEST(CoreNames, TheCoreFilesNameNoOptionalMechanism) {
  std::vector<std::string> hits;
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(LBSIM_SOURCE_DIR) / "sim" / "engine")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".cpp" && ext != ".hpp") continue;
    ++files;
    for (auto& h : hits_in(e.path().filename().string(), testing_files::slurp(e.path()))) hits.push_back(h);
  }
  EXPECT_GE(files, 20u);
  std::string all;
  for (const auto& h : hits) all += h + "\n";
  EXPECT_TRUE(hits.empty()) << "the core names a mechanism:\n" << all;
}

// The names of a list's entries: NAME(x) lines of sim/mech/<file> for each macro in `macros`.
std::vector<std::string> listed(const std::string& file, const std::vector<std::string>& macros) {
  std::vector<std::string> out;
  const std::string code = code_of(testing_files::slurp(fs::path(LBSIM_SOURCE_DIR) / "sim" / "mech" / file));
  for (const std::string& m : macros) {
    const std::regex re(m + R"(\((\w+)\))");
    for (auto it = std::sregex_iterator(code.begin(), code.end(), re); it != std::sregex_iterator(); ++it)
      out.push_back((*it)[1].str());
  }
  return out;
}

// Adding a mechanism is its folder plus one line of the ordered list (issue 45): every folder of
// sim/mech/ is listed in mechanisms.inc and holds its README and its core-harness and scenario
// tests; every mechanism of specs.inc keeps its spec and parser in its folder.
TEST(CoreNames, EveryMechanismIsAListedFolderWithItsReadmeTestsAndSpec) {
  const fs::path mech = fs::path(LBSIM_SOURCE_DIR) / "sim" / "mech";
  const auto made = listed("mechanisms.inc", {"LBSIM_MECHANISM", "LBSIM_MECHANISM_BEFORE_POLICIES"});
  const auto specs = listed("specs.inc", {"LBSIM_MECHANISM_SPEC"});
  EXPECT_EQ(made.size(), 8u);
  EXPECT_EQ(specs.size(), 7u);  // all but replica_map, which has no scenario key of its own
  std::vector<std::string> folders;
  for (const auto& e : fs::directory_iterator(mech))
    if (e.is_directory()) folders.push_back(e.path().filename().string());
  std::sort(folders.begin(), folders.end());
  std::vector<std::string> sorted = made;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(folders, sorted);
  for (const std::string& m : made) {
    for (const std::string& f : {std::string("README.md"), m + ".cpp", m + "_core_test.cpp"})
      EXPECT_TRUE(fs::exists(mech / m / f)) << m << ": " << f;
    bool scenario_test = false;
    for (const auto& e : fs::directory_iterator(mech / m))
      scenario_test = scenario_test || e.path().filename().string().ends_with("_scenarios_test.cpp");
    EXPECT_TRUE(scenario_test) << m;
  }
  for (const std::string& m : specs) {
    EXPECT_NE(std::find(made.begin(), made.end(), m), made.end()) << m;
    for (const std::string& f : {m + "_spec.hpp", m + "_config.cpp"}) EXPECT_TRUE(fs::exists(mech / m / f)) << m << ": " << f;
  }
}

TEST(CoreNames, TheScanSeesCodeButNotCommentsOrStrings) {
  EXPECT_EQ(hits_in("x", "int a; // the tablet map\nconst char* s = \"hwlb\"; /* snitch */\n").size(), 0u);
  const auto h = hits_in("x", "// ok\nbool tablets_ = false;\n");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0], "x:2: tablet");
}

}  // namespace
}  // namespace lbsim
