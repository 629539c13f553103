// One convention for the options of every command (issue 34): `-o/--out` names what is written,
// `--force` only ever overwrites (mixing scenarios is `--mix-scenarios`), `--json` prints JSON,
// `--set` patches whatever a command reads; the old spellings still work with a one-line note;
// errors carry the "lbsim COMMAND: error:" prefix once; `lbsim --help` gives the convention and
// every exit code.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using testing_files::shell;
using testing_files::slurp;

class CliOptions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("lbsim-options-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_EQ(lbsim("run " + std::string(LBSIM_SOURCE_DIR) +
                    "/configs/default.json --set workload.ops=2000 --set workload.warmup_ops=100 --quiet -o res"),
              0)
        << slurp(dir_ / "err");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  // `lbsim ARGS` in the test's folder; stdout and stderr to out and err there.
  static int lbsim(const std::string& args) {
    return shell("cd '" + dir_.string() + "' && '" + LBSIM_BINARY + "' " + args + " >out 2>err");
  }
  static std::string out() { return slurp(dir_ / "out"); }
  static std::string err() { return slurp(dir_ / "err"); }
  static fs::path dir_;
};
fs::path CliOptions::dir_;

TEST_F(CliOptions, HelpStatesTheConventionAndEveryExitCode) {
  ASSERT_EQ(lbsim("--help"), 0);
  for (const char* s : {"-o, --out PATH", "--force          overwrite", "PATH=null removes the key",
                        "130 interrupted by Ctrl-C or SIGTERM", "2 bad input"})
    EXPECT_NE(out().find(s), std::string::npos) << s << "\n" << out();
}

TEST_F(CliOptions, OutAndItsShortFormNameWhatIsWritten) {
  EXPECT_TRUE(fs::exists(dir_ / "res" / "default" / "random.json"));  // run -o DIR
  ASSERT_EQ(lbsim("report res -o a.html"), 0) << err();
  ASSERT_EQ(lbsim("report res --out b.html"), 0) << err();
  EXPECT_EQ(err(), "");
  EXPECT_TRUE(fs::exists(dir_ / "a.html") && fs::exists(dir_ / "b.html"));
  // The old spelling still works, with one line on stderr.
  ASSERT_EQ(lbsim("report res --output c.html"), 0) << err();
  EXPECT_TRUE(fs::exists(dir_ / "c.html"));
  EXPECT_EQ(err(), "lbsim report: note: --output is deprecated; use --out (or -o)\n");
  ASSERT_EQ(lbsim("stress -o s.json -- write n=1000 -rate threads=4"), 0) << err();
  EXPECT_TRUE(fs::exists(dir_ / "s.json"));
}

TEST_F(CliOptions, ForceOnlyOverwritesMixingScenariosIsItsOwnOption) {
  ASSERT_EQ(lbsim("compare res --mix-scenarios"), 0) << err();
  EXPECT_EQ(err(), "");
  ASSERT_EQ(lbsim("compare res --force"), 0) << err();
  EXPECT_EQ(err(), "lbsim compare: note: --force is deprecated; use --mix-scenarios\n");
  ASSERT_EQ(lbsim("report res -o d.html --force"), 0) << err();
  EXPECT_EQ(err(), "lbsim report: note: --force is deprecated; use --mix-scenarios\n");
}

TEST_F(CliOptions, JsonPrintsJsonWhereverItIsAccepted) {
  ASSERT_EQ(lbsim("compare res --json"), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out())["baseline"], "random");
  EXPECT_EQ(lbsim("compare res --json --format csv"), 2);
  // replicas prints JSON with or without --json; its usage says so.
  ASSERT_EQ(lbsim("replicas --help"), 0);
  EXPECT_NE(out().find("usage: lbsim replicas FILE [--key HEX ...] [--token T ...] [--set PATH=V ...] [--json]"),
            std::string::npos)
      << out();
}

TEST_F(CliOptions, SetPatchesTheRingOfRingPlanAndReplicas) {
  const std::string topo = std::string(LBSIM_SOURCE_DIR) + "/tests/bad_inputs/base/topo.json";
  ASSERT_EQ(lbsim("ring " + topo + " --json --set keyspace.rf.dc1=1"), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out())["keyspace"], "NetworkTopologyStrategy {dc1: 1, dc2: 1}");
  ASSERT_EQ(lbsim("replicas " + topo + " --token 0 --set keyspace.rf.dc1=1"), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out())["tokens"][0]["replicas"].size(), 2u);
  ASSERT_EQ(lbsim("plan " + topo + " --policy '{\"type\": \"RoundRobin\"}' --token 0 --set keyspace.rf.dc2=null"), 0)
      << err();
  EXPECT_NE(out().find("replicas (driver order, NetworkTopologyStrategy {dc1: 2}): b a"), std::string::npos) << out();
  // An error inside what --set wrote blames the --set.
  EXPECT_EQ(lbsim("ring " + topo + " --set keyspace.rf.dc1=0"), 2);
  EXPECT_EQ(err().rfind("lbsim ring: error: --set keyspace.rf.dc1=0: /keyspace/rf/dc1: must be in [1, ", 0), 0u) << err();
}

TEST_F(CliOptions, ErrorsCarryTheCommandPrefixOnce) {
  EXPECT_EQ(lbsim("ring x.json --bogus"), 2);
  EXPECT_EQ(err().rfind("lbsim ring: error: unrecognised option '--bogus'; valid: --file", 0), std::string::npos);
  EXPECT_EQ(err().rfind("lbsim ring: error: unrecognised option '--bogus'; valid: --set, --json", 0), 0u) << err();
  EXPECT_EQ(lbsim("merge"), 2);
  EXPECT_EQ(err(), "lbsim merge: error: missing SLICE_OR_DIR...; usage: lbsim merge SLICE_OR_DIR... -o|--out FILE\n");
  EXPECT_EQ(lbsim("plan x.json --policy p"), 2);
  EXPECT_EQ(err().find("error: lbsim"), std::string::npos) << err();
}

}  // namespace
}  // namespace lbsim
