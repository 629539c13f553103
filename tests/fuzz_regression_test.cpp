// Replays the fuzz corpus (tests/fuzz/corpus/<target>/) and the inputs that once crashed a
// parser (tests/fuzz/regressions/<target>/) through the fuzz targets' code (fuzz/harness.hpp) in
// every build: each input is accepted or rejected with a ConfigError, nothing else.
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/fuzz/harness.hpp"
#include "tests/fuzz/harness_cql.hpp"

#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using Target = std::function<void(std::string_view)>;

using ::lbsim::testing_files::slurp;

// Returns "" when accepted, else the ConfigError's message; other exceptions fail the test.
std::string outcome(const Target& target, const std::string& input) {
  try {
    target(input);
    return "";
  } catch (const lbsim::ConfigError& e) {
    return e.what();
  }
}

int replay(const std::string& folder, const std::string& name, const Target& target) {
  int n = 0;
  const fs::path dir = fs::path(LBSIM_SOURCE_DIR) / "tests" / "fuzz" / folder / name;
  if (!fs::exists(dir)) return 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_NO_THROW(outcome(target, slurp(e.path()))) << e.path();
    ++n;
  }
  return n;
}

TEST(FuzzCorpus, EveryCommittedInputIsAcceptedOrRejectedCleanly) {
  EXPECT_GE(replay("corpus", "scenario", lbsim::fuzz::scenario), 10);
  EXPECT_GE(replay("corpus", "topology", lbsim::fuzz::topology), 4);
  EXPECT_GE(replay("corpus", "trace", lbsim::fuzz::trace), 4);
  EXPECT_GE(replay("corpus", "policy", lbsim::fuzz::policy_spec), 8);
  EXPECT_GE(replay("corpus", "cql", lbsim::fuzz::cql_session), 10);
  replay("regressions", "scenario", lbsim::fuzz::scenario);
  replay("regressions", "topology", lbsim::fuzz::topology);
  replay("regressions", "trace", lbsim::fuzz::trace);
  replay("regressions", "policy", lbsim::fuzz::policy_spec);
}

TEST(FuzzCorpus, ShippedScenariosAreAcceptedByTheScenarioTarget) {
  EXPECT_EQ(outcome(lbsim::fuzz::scenario, slurp(fs::path(LBSIM_SOURCE_DIR) / "configs" / "default.json")), "");
  EXPECT_EQ(outcome(lbsim::fuzz::scenario,
                    slurp(fs::path(LBSIM_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "scenario" / "topology-file.json")),
            "");
  EXPECT_EQ(outcome(lbsim::fuzz::policy_spec, R"({"type": "TokenAware", "child": {"type": "RoundRobin"}})"), "");
}

// nlohmann throws out_of_range, not parse_error, for a number beyond a double: it escaped
// parse_text and --set as an "internal error" (exit 1).
TEST(FuzzRegression, NumberOverflowingADoubleIsAConfigError) {
  EXPECT_EQ(outcome(lbsim::fuzz::policy_spec, R"({"type": "RoundRobin", "x": 1e400})"),
            "--policy: not valid JSON: number overflow parsing '1e400' (numbers must fit a double, up to about 1.8e308)");
  EXPECT_EQ(outcome(lbsim::fuzz::topology, "[-1e999]"),
            "fuzz.json: not valid JSON: number overflow parsing '-1e999' (numbers must fit a double, up to about 1.8e308)");
  // In --set, a value that is not JSON is a bare string, which validation then rejects by type.
  const std::string s = outcome(lbsim::fuzz::scenario, "//set client.threads=1e400\n" +
                                                           slurp(fs::path(LBSIM_SOURCE_DIR) / "configs" / "default.json"));
  EXPECT_EQ(s, "/client/threads: must be an integer in [1, 1000000], got a string");
}

TEST(FuzzRegression, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = "{\"type\":\n" + std::string(200000, '[') + std::string(200000, ']') + "}";
  EXPECT_EQ(outcome(lbsim::fuzz::policy_spec, deep), "--policy: arrays and objects nested deeper than 100 levels (line 2)");
  // Brackets inside strings do not count.
  EXPECT_EQ(outcome(lbsim::fuzz::trace, "0,read,00\n"), "");
  EXPECT_EQ(outcome(lbsim::fuzz::policy_spec, "{\"type\": \"RoundRobin\", \"x\": \"" + std::string(500, '[') + "\"}"),
            "--policy/x: unknown key 'x'; allowed keys: type, contact_points");
}

TEST(FuzzRegression, PolicyNestingTheDriversWouldNotBuildIsRefused) {
  EXPECT_EQ(outcome(lbsim::fuzz::policy_spec,
                    R"({"type": "TokenAware", "child": {"type": "LatencyAware", "child": {"type": "TokenAware"}}})"),
            "--policy/child/child/type: TokenAware cannot wrap TokenAware (the outer one already puts the replicas "
            "first); keep one TokenAware, outermost");
  EXPECT_EQ(outcome(lbsim::fuzz::policy_spec, R"({"type": "TokenAware", "child": {"type": "Basic4x"}})"),
            "--policy/child/type: TokenAware (Java driver 3.x) cannot wrap Basic4x (Java driver 4.x): the 4.x policies "
            "are token-aware themselves and have no wrappers; use Basic4x alone");
  // LatencyAware around TokenAware is legal in the 3.x driver.
  EXPECT_EQ(outcome(lbsim::fuzz::policy_spec,
                    R"({"type": "LatencyAware", "child": {"type": "TokenAware", "child": {"type": "RoundRobin"}}})"),
            "");
}

}  // namespace
