// `lbsim analyze --physics FILE` (issue 44): the fragment's service times and node speeds set the
// saturation bound as they set `lbsim run`'s simulation. configs/default.json has no cross-shard
// hops (no connection model), so every node's busy time per operation is linear in the three
// service means: doubling them halves every policy's bound; a node at half speed (the busiest one)
// halves its capacity.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "sim/analysis/scenario_model.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using testing_files::shell;
using testing_files::slurp;

nlohmann::json analyze_json(const fs::path& dir, const std::string& extra) {
  const std::string cmd = std::string(LBSIM_BINARY) + " analyze " + LBSIM_SOURCE_DIR + "/configs/default.json --json " +
                          extra + " >" + (dir / "out.json").string() + " 2>" + (dir / "err").string();
  EXPECT_EQ(shell(cmd), 0) << slurp(dir / "err");
  return nlohmann::json::parse(slurp(dir / "out.json"));
}

TEST(AnalyzePhysics, FragmentServiceTimesAndSpeedsSetTheBound) {
  const fs::path dir = fs::temp_directory_path() / ("lbsim-analyze-physics-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // default.json: coordinator 20 us, read 100 us, write 50 us (means); here each twice as long.
  std::ofstream(dir / "slow.json") << R"({"format": "lbsim.fit/1", "cluster": {"service": {
      "coordinator": {"dist": "exponential", "mean_us": 40},
      "read": {"dist": "lognormal", "mean_us": 200, "p99_us": 800},
      "write": {"dist": "lognormal", "mean_us": 100, "p99_us": 400}}}})";
  const auto base = analyze_json(dir, "");
  const auto slow = analyze_json(dir, "--physics " + (dir / "slow.json").string());
  ASSERT_EQ(base["policies"].size(), slow["policies"].size());
  int checked = 0;
  for (std::size_t p = 0; p < base["policies"].size(); ++p) {
    if (!base["policies"][p]["modelled"].get<bool>()) continue;
    const double b = base["policies"][p]["saturation_ops_s"].get<double>();
    const double s = slow["policies"][p]["saturation_ops_s"].get<double>();
    EXPECT_GT(b, 0);
    EXPECT_NEAR(s, b / 2, 1e-9 * b) << base["policies"][p]["name"];
    EXPECT_EQ(slow["policies"][p]["bottleneck"], base["policies"][p]["bottleneck"]);
    ++checked;
  }
  EXPECT_GE(checked, 3);
  // --set applies after the fragment: the later read mean wins (as for `lbsim run`).
  const auto patched = analyze_json(dir, "--physics " + (dir / "slow.json").string() +
                                             " --set 'cluster.service.read={\"dist\":\"lognormal\",\"mean_us\":100,"
                                             "\"p99_us\":400}'");
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/default.json",
                                    {R"(cluster.service.coordinator={"dist":"exponential","mean_us":40})",
                                     R"(cluster.service.write={"dist":"lognormal","mean_us":100,"p99_us":400})"});
  const ScenarioModel m = analyze_scenario(sc);
  for (std::size_t p = 0; p < m.policies.size(); ++p) {
    if (!m.policies[p].model.modelled) continue;
    EXPECT_NEAR(patched["policies"][p]["saturation_ops_s"].get<double>(), m.policies[p].model.saturation_ops_s,
                1e-9 * m.policies[p].model.saturation_ops_s);
  }
  // A bad fragment: exit 2, the file named, nothing on stdout.
  std::ofstream(dir / "bad.json") << R"({"format": "lbsim.fit/1", "cluster": {"speed": {"nosuchnode": 0.5}}})";
  const std::string cmd = std::string(LBSIM_BINARY) + " analyze " + LBSIM_SOURCE_DIR + "/configs/default.json --physics " +
                          (dir / "bad.json").string() + " >" + (dir / "out2").string() + " 2>" + (dir / "err2").string();
  EXPECT_EQ(shell(cmd), 2);
  EXPECT_EQ(slurp(dir / "out2"), "");
  EXPECT_NE(slurp(dir / "err2").find("lbsim analyze: error: " + (dir / "bad.json").string()), std::string::npos)
      << slurp(dir / "err2");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lbsim
