// Sweeps: grid expansion, deterministic shards, and `lbsim merge` giving exactly the aggregate
// one machine writes, whatever the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/runner/grid.hpp"
#include "sim/runner/sweep.hpp"

#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;

using ::lbsim::testing_files::slurp;

int lbsim(const std::string& args) {
  const int rc = std::system(fmt::format("{} {} >/dev/null 2>&1", LBSIM_BINARY, args).c_str());
  return WEXITSTATUS(rc);
}

TEST(Grid, AxesSplitOnTopLevelCommasAndExpandInOrder) {
  const GridAxis a = parse_axis("client.threads=1,8,32");
  EXPECT_EQ(a.path, "client.threads");
  EXPECT_EQ(a.values, (std::vector<std::string>{"1", "8", "32"}));
  const GridAxis b = parse_axis(R"(workload.mix={"read":1,"write":3},[1,2],"a,b",plain)");
  EXPECT_EQ(b.values, (std::vector<std::string>{R"({"read":1,"write":3})", "[1,2]", R"("a,b")", "plain"}));
  const auto pts = expand_grid({a, parse_axis("x=p,q")});
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(pts[1].sets, (std::vector<std::string>{"client.threads=1", "x=q"}));
  EXPECT_EQ(pts[1].values["client.threads"], 1);
  EXPECT_EQ(pts[1].values["x"], "q");
  EXPECT_EQ(pts[5].id, "p005");
  EXPECT_THROW(parse_axis("client.threads"), ConfigError);
  EXPECT_THROW(parse_axis("a=1,,2"), ConfigError);
}

TEST(Grid, ShardsPartitionTheGrid) {
  const auto pts = expand_grid({parse_axis("a=1,2,3,4,5,6,7")});
  std::vector<int> owner(pts.size(), 0);
  for (std::size_t i = 1; i <= 3; ++i)
    for (const auto& p : pts)
      if (in_shard(p, Shard{i, 3})) ++owner[p.index];
  for (int o : owner) EXPECT_EQ(o, 1);
  EXPECT_THROW(parse_shard("0/3"), ConfigError);
  EXPECT_THROW(parse_shard("4/3"), ConfigError);
  EXPECT_THROW(parse_shard("1-3"), ConfigError);
  EXPECT_EQ(parse_shard("2/3").index, 2u);
}

TEST(Sweep, MergedShardsEqualTheSingleMachineAggregate) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-sweep-{}", ::getpid());
  fs::remove_all(root);
  const std::string base = fmt::format("sweep {}/configs/default.json --set client.threads=4,16,64 "
                                       "--set workload.ops=8000 --set workload.warmup_ops=500 --seeds 2",
                                       LBSIM_SOURCE_DIR);
  ASSERT_EQ(lbsim(base + " --jobs 1 --out " + (root / "one").string()), 0);
  ASSERT_EQ(lbsim(base + " --jobs 2 --shard 1/2 --out " + (root / "sh").string()), 0);
  ASSERT_EQ(lbsim(base + " --jobs 2 --shard 2/2 --out " + (root / "sh").string()), 0);
  // Missing slices are refused with the missing points named.
  EXPECT_EQ(lbsim(fmt::format("merge {} -o {}", (root / "sh" / "sweep.shard-1-of-2.json").string(),
                              (root / "partial.json").string())),
            2);
  EXPECT_FALSE(fs::exists(root / "partial.json"));
  ASSERT_EQ(lbsim(fmt::format("merge {} -o {}", (root / "sh").string(), (root / "merged.json").string())), 0);
  const std::string one = slurp(root / "one" / "sweep.json");
  EXPECT_FALSE(one.empty());
  EXPECT_TRUE(slurp(root / "merged.json") == one) << "the merged slices differ from the single-machine sweep.json";
  const auto doc = nlohmann::json::parse(one);
  EXPECT_EQ(doc["schema"], "lbsim.sweep/1");
  EXPECT_EQ(doc["points"].size(), 3u);
  EXPECT_EQ(doc["points"][2]["policies"]["random"]["metrics"]["throughput_ops_s"]["n"], 2);
  // The folder named by --out is the only thing written (issue 34): no sibling "one.latest", and
  // a second sweep into it is refused (exit 2, no "one.2") unless --resume or --force.
  EXPECT_FALSE(fs::exists(root / "one.latest"));
  const auto before = fs::last_write_time(root / "one" / "sweep.json");
  EXPECT_EQ(lbsim(base + " --out " + (root / "one").string()), 2);
  EXPECT_FALSE(fs::exists(root / "one.2"));
  EXPECT_EQ(fs::last_write_time(root / "one" / "sweep.json"), before);
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(root)) entries.push_back(e.path().filename().string());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"merged.json", "one", "sh"}));
  fs::remove_all(root);
}

// Without --out a sweep goes to results/<scenario>/sweep, numbered when it holds files, with
// sweep.latest beside it: everything inside results/ of the folder lbsim runs in.
TEST(Sweep, DefaultFolderIsNumberedWithLatestInsideResults) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-sweep-default-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string cmd = fmt::format("cd {} && {} sweep {}/configs/default.json --set client.threads=4,8 "
                                      "--set workload.ops=2000 --set workload.warmup_ops=100 --policy random --quiet "
                                      ">/dev/null 2>&1",
                                      root.string(), LBSIM_BINARY, LBSIM_SOURCE_DIR);
  ASSERT_EQ(testing_files::shell(cmd), 0);
  EXPECT_EQ(fs::read_symlink(root / "results" / "default" / "sweep.latest"), fs::path("sweep"));
  ASSERT_EQ(testing_files::shell(cmd), 0);
  EXPECT_TRUE(fs::exists(root / "results" / "default" / "sweep.2" / "sweep.json"));
  EXPECT_EQ(fs::read_symlink(root / "results" / "default" / "sweep.latest"), fs::path("sweep.2"));
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(root)) n += e.path().filename() == "results" ? 0 : 1;
  EXPECT_EQ(n, 0u) << "the sweep wrote outside results/";
  fs::remove_all(root);
}

}  // namespace
}  // namespace lbsim

namespace lbsim {
namespace {

// Sweep tables print plain numbers (issue 13): "29,930 ± 98", not "2.993e+04 ± 98".
TEST(SweepTable, CellsArePlainNumbersWithTheirMeansDecimals) {
  const auto doc = nlohmann::json::parse(R"({"policies": ["p"], "points": [
    {"values": {"client.threads": 64},
     "policies": {"p": {"metrics": {"throughput_ops_s": {"mean": 29930.4, "ci95": 97.6, "n": 3}}}}},
    {"values": {"client.threads": 128},
     "policies": {"p": {"metrics": {"throughput_ops_s": {"mean": 7.256, "ci95": 0.0412, "n": 3}}}}}]})");
  const std::string t = sweep_table(doc);
  EXPECT_NE(t.find("29,930 ± 98"), std::string::npos) << t;
  EXPECT_NE(t.find("7.26 ± 0.04"), std::string::npos) << t;
  EXPECT_EQ(t.find("e+"), std::string::npos) << t;
}

// An axis with one value (`--set workload.ops=8000`) is the same in every point: it is stated once
// above the tables, and the point labels carry only the axes that vary (issue 34).
TEST(SweepTable, SingleValuedAxesAreStatedOnceNotInEveryLabel) {
  const auto doc = nlohmann::json::parse(R"({"policies": ["p"],
    "grid": [{"path": "client.threads", "values": ["8", "64"]}, {"path": "workload.ops", "values": ["8000"]}],
    "points": [
    {"id": "p000", "values": {"client.threads": 8, "workload.ops": 8000},
     "policies": {"p": {"metrics": {"throughput_ops_s": {"mean": 100, "ci95": 0, "n": 1}}}}},
    {"id": "p001", "values": {"client.threads": 64, "workload.ops": 8000},
     "policies": {"p": {"metrics": {"throughput_ops_s": {"mean": 200, "ci95": 0, "n": 1}}}}}]})");
  const std::string t = sweep_table(doc);
  EXPECT_EQ(t.rfind("every point: workload.ops=8000\n", 0), 0u) << t;
  std::size_t count = 0;
  for (auto at = t.find("workload.ops"); at != std::string::npos; at = t.find("workload.ops", at + 1)) ++count;
  EXPECT_EQ(count, 1u) << t;
  EXPECT_NE(t.find("\nclient.threads=64 "), std::string::npos) << t;
}

// `lbsim compare sweep.json --format csv|md`: one row per (point, policy, metric).
TEST(SweepTable, RowsForOtherToolsInCsvAndMarkdown) {
  const auto doc = nlohmann::json::parse(R"({"parameters": ["client.threads"], "policies": ["p"], "points": [
    {"values": {"client.threads": 64},
     "policies": {"p": {"metrics": {"throughput_ops_s": {"mean": 29930.5, "ci95": 97.5, "n": 3, "min": 29800, "max": 30010}}}}}]})");
  EXPECT_EQ(sweep_rows(doc, false),
            "client.threads,policy,metric,n,mean,ci95,min,max\n64,p,throughput_ops_s,3,29930.5,97.5,29800,30010\n");
  const std::string md = sweep_rows(doc, true);
  EXPECT_NE(md.find("| client.threads | policy |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 64 | p | throughput_ops_s | 3 | 29930.5 |"), std::string::npos) << md;
}

}  // namespace
}  // namespace lbsim
