// What a newcomer reads first (issue 34): the headline imbalance is over the datacenters that
// coordinate, in the JSON report, the side-by-side table, `lbsim compare` (and so `run --seeds`)
// and the sweep tables; the timeline of a short run has enough points to draw; the text tables
// fit long names and show the shared generator's cost only for policies that draw from one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "sim/report/compare.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/report_text.hpp"
#include "sim/runner/sweep.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

// configs/two-dc-local-quorum.json, shortened: a client in dc1 with LOCAL_QUORUM. "random" and
// "dc-aware" coordinate in dc1 only; "round-robin" in both DCs.
const std::vector<RunResult>& two_dc_runs() {
  static const std::vector<RunResult> runs = [] {
    const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/two-dc-local-quorum.json",
                                      {"workload.ops=20000", "workload.warmup_ops=2000"});
    std::vector<RunResult> out;
    for (const auto& p : sc.policies) out.push_back(run_simulation(sc, p, sc.seed));
    return out;
  }();
  return runs;
}

const RunResult& run_of(const std::string& policy) {
  for (const auto& r : two_dc_runs())
    if (r.policy_name == policy) return r;
  throw std::runtime_error("no run " + policy);
}

// The row of a text table that starts with `label`, split into its cells.
std::vector<std::string> row_cells(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(label, 0) == 0) {
      std::istringstream cells(line.substr(label.size()));
      std::vector<std::string> out;
      for (std::string c; cells >> c;) out.push_back(c);
      return out;
    }
  return {};
}

// With two DCs and LOCAL_QUORUM, dc2 never coordinates: over all six nodes an even policy shows
// coordinator max/mean 2, within dc1 about 1. The headline is dc1's; the all-node figure stays,
// labelled; dc2 has no coordinator imbalance (null, not 0).
TEST(HeadlineImbalance, JsonHeadlineIsTheCoordinatingDatacenter) {
  const auto j = report_json_stable(run_of("dc-aware"));
  EXPECT_EQ(j["imbalance"]["dcs"].get<std::vector<std::string>>(), std::vector<std::string>({"dc1"}));
  EXPECT_NEAR(j["imbalance"]["coordinator"]["max_over_mean"].get<double>(), 1.0, 0.02);
  EXPECT_EQ(j["imbalance"]["coordinator"], j["imbalance_by_dc"]["dc1"]["coordinator"]);
  EXPECT_EQ(j["imbalance"]["replica"], j["imbalance_by_dc"]["dc1"]["replica"]);
  EXPECT_NEAR(j["imbalance_all_nodes"]["coordinator"]["max_over_mean"].get<double>(), 2.0, 0.05);
  EXPECT_TRUE(j["imbalance_by_dc"]["dc2"]["coordinator"].is_null()) << j["imbalance_by_dc"];
  EXPECT_NEAR(j["imbalance_by_dc"]["dc2"]["replica"]["max_over_mean"].get<double>(), 1.0, 0.05);
  // Round-robin coordinates in both DCs: the headline is the larger of the two DCs' figures.
  const auto rr = report_json_stable(run_of("round-robin"));
  EXPECT_EQ(rr["imbalance"]["dcs"].get<std::vector<std::string>>(), std::vector<std::string>({"dc1", "dc2"}));
  EXPECT_DOUBLE_EQ(rr["imbalance"]["coordinator"]["max_over_mean"].get<double>(),
                   std::max(rr["imbalance_by_dc"]["dc1"]["coordinator"]["max_over_mean"].get<double>(),
                            rr["imbalance_by_dc"]["dc2"]["coordinator"]["max_over_mean"].get<double>()));
}

TEST(HeadlineImbalance, SideBySideNamesTheDatacenter) {
  std::ostringstream out;
  print_side_by_side(out, {run_of("random"), run_of("dc-aware")});
  const auto coord = row_cells(out.str(), "coord max/mean (dc1)");
  ASSERT_EQ(coord.size(), 2u) << out.str();
  for (const auto& c : coord) EXPECT_LT(std::stod(c), 1.05) << out.str();
  // Policies coordinating in different DCs: each one's DCs under the table.
  std::ostringstream all;
  print_side_by_side(all, two_dc_runs());
  EXPECT_EQ(row_cells(all.str(), "coord max/mean (coordinating DCs*)").size(), 3u) << all.str();
  EXPECT_NE(all.str().find("* coordinating DCs: random dc1; dc-aware dc1; round-robin max of dc1, dc2"),
            std::string::npos)
      << all.str();
}

TEST(HeadlineImbalance, CompareAndSweepTablesNameTheDatacenter) {
  std::vector<nlohmann::json> reports;
  for (const char* p : {"random", "dc-aware"}) reports.push_back(nlohmann::json::parse(report_json(run_of(p)).dump()));
  const Comparison c = compare_reports(reports, CompareOptions{});
  const auto row = std::find_if(c.metrics.begin(), c.metrics.end(),
                                [](const Metric& m) { return m.name == "coordinator max/mean (dc1)"; });
  ASSERT_NE(row, c.metrics.end()) << render_comparison(c, CompareFormat::Text);
  for (const Cell& cell : c.cells[static_cast<std::size_t>(row - c.metrics.begin())]) EXPECT_LT(cell.value.mean, 1.05);

  SweepHeader h{"two-dc-local-quorum", "h", {}, {"random", "dc-aware"}, {11}, 1};
  GridPoint pt{0, {}, {{"client.threads", 100}}, "p000"};
  PointReports pr;
  for (std::size_t i = 0; i < 2; ++i) pr[0][h.policies[i]] = {reports[i]};
  const std::string table = sweep_table(nlohmann::json::parse(sweep_document(h, {pt}, pr, std::nullopt).dump()));
  const auto at = table.find("coordinator max/mean (dc1)\n");
  ASSERT_NE(at, std::string::npos) << table;
  const auto cells = row_cells(table.substr(at), "client.threads=100");
  ASSERT_EQ(cells.size(), 2u) << table;
  for (const auto& cell : cells) EXPECT_LT(std::stod(cell), 1.05) << table;
}

// A short run (0.35 s measured) used to give one timeline point at the default 1 s interval: the
// interval now follows the window, a readable 1, 2 or 5 x 10^k s step giving 26 to 64 points.
TEST(ReportTimeline, AShortRunGetsEnoughPointsAtAReadableStep) {
  const RunResult& r = run_of("random");
  const double window = to_sec(r.window);
  ASSERT_LT(window, 1.0);
  const auto j = report_json_stable(r);
  const double iv = j["timeline"]["interval_s"].get<double>();
  const double mantissa = iv / std::pow(10.0, std::floor(std::log10(iv) + 1e-9));
  EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9) << iv;
  const std::size_t points = j["timeline"]["points"].size();
  EXPECT_GE(points, 26u) << iv;
  EXPECT_LE(points, Timeline::kMaxPoints);
  EXPECT_EQ(points, static_cast<std::size_t>(std::ceil(window / iv - 1e-9))) << window << " / " << iv;
  std::uint64_t ops = 0;
  for (const auto& p : j["timeline"]["points"]) ops += p["ops"].get<std::uint64_t>();
  EXPECT_EQ(ops, r.measured_ops());
  // report.timeline_interval_s, when set, is kept.
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/two-dc-local-quorum.json",
                                    {"workload.ops=5000", "workload.warmup_ops=500", "report.timeline_interval_s=0.05"});
  EXPECT_EQ(run_simulation(sc, sc.policies.front(), sc.seed).timeline.interval(), 50 * kMs);
}

// Faults and topology changes are on the report's timeline at their scenario times.
TEST(ReportTimeline, CarriesTheScenarioEventsAtTheirScenarioTimes) {
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/node-down.json",
                                    {"workload.duration_s=5", "client.threads=4", "report.timeline_interval_s=0.5"});
  const auto j = report_json_stable(run_simulation(sc, sc.policies.front(), sc.seed));
  // n3 is down at 2 s for 3 s (the window starts at 1 s, after the warm-up).
  EXPECT_EQ(j["timeline"]["events"].dump(),
            nlohmann::ordered_json::parse(R"([{"at_s": 2.0, "event": "down", "nodes": ["n3"]},
                                      {"at_s": 5.0, "event": "up", "nodes": ["n3"]}])").dump())
      << j["timeline"];
  // A scenario without events has none (nothing is added to its report).
  EXPECT_FALSE(report_json_stable(run_of("random"))["timeline"].contains("events"));
}

RunResult named_run(const std::string& dc, std::uint64_t shared_draws) {
  RunResult r;
  r.policy_name = "p";
  r.window = kSec;
  for (int i = 0; i < 3; ++i) {
    NodeResult n;
    n.id = "n" + std::to_string(i + 1);
    n.dc = dc;
    n.rack = "rack" + std::to_string(i + 1);
    n.coordinator_ops = 1000 + 10 * i;
    n.replica_reads = 2000;
    r.nodes.push_back(n);
  }
  r.client.shared_draws = shared_draws;
  r.client.shared_rng_s = shared_draws > 0 ? 0.25 : 0;
  return r;
}

// The per-node table's columns stay aligned with a DC named "datacenter1" (8 characters fit).
TEST(ReportText, NodeTableColumnsFitLongNames) {
  std::ostringstream out;
  print_node_table(out, named_run("datacenter1", 0));
  std::istringstream in(out.str());
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  ASSERT_EQ(row.rfind("n1", 0), 0u) << out.str();
  // The coordinator count ends where its header does, and the DC column holds the whole name.
  EXPECT_EQ(header.find("coordinator") + std::string("coordinator").size(), row.find("1,000") + 5) << out.str();
  EXPECT_EQ(header.find("rack"), row.find("rack1")) << out.str();
}

// "shared rng (s)" is a Java 3.x figure: only policies that draw from a shared generator show it.
TEST(ReportText, SharedGeneratorCostOnlyWhereAPolicyDrawsFromOne) {
  RunResult plain = named_run("dc1", 0), shared = named_run("dc1", 500);
  plain.policy_name = "python";
  shared.policy_name = "java3";
  std::ostringstream one;
  print_side_by_side(one, {plain});
  EXPECT_EQ(one.str().find("shared rng"), std::string::npos) << one.str();
  std::ostringstream both;
  print_side_by_side(both, {shared, plain});
  EXPECT_EQ(row_cells(both.str(), "shared rng (s)"), (std::vector<std::string>{"0.250", "-"})) << both.str();
  std::ostringstream run;
  print_run(run, plain);
  EXPECT_EQ(run.str().find("shared generator"), std::string::npos) << run.str();
  std::ostringstream run2;
  print_run(run2, shared);
  EXPECT_NE(run2.str().find("shared generator 0.250 s"), std::string::npos) << run2.str();
}

// Issue 45: a mechanism writes a report section of its own (RunResult::mechanism_sections) without
// a shared file: its JSON becomes a key after "cache" and before "timeline", in the order the
// mechanisms added them, and its text lines follow the text report's cache block. Without any, the
// report is what it was (the goldens hold that).
TEST(ReportSections, AMechanismsOwnSectionReachesTheJsonAndTextReports) {
  using OJ = nlohmann::ordered_json;
  RunResult r = run_of("random");
  const OJ before = report_json_stable(r);
  r.mechanism_sections.push_back({"first_mech", {{"reads", 12}, {"share", 0.25}}, {"first mech: 12 reads"}});
  r.mechanism_sections.push_back({"second_mech", {{"events", OJ::array({1, 2})}}, {"second mech: 2 events", "x"}});
  const OJ j = report_json_stable(r);
  ASSERT_TRUE(j.contains("first_mech"));
  EXPECT_EQ(j["first_mech"]["reads"].get<int>(), 12);
  EXPECT_DOUBLE_EQ(j["first_mech"]["share"].get<double>(), 0.25);
  EXPECT_EQ(j["second_mech"]["events"].size(), 2u);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  const auto at = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  EXPECT_EQ(at("second_mech"), at("first_mech") + 1);
  EXPECT_EQ(at("timeline"), at("second_mech") + 1);
  EXPECT_EQ(keys.size(), before.size() + 2);
  std::ostringstream text;
  print_run(text, r);
  const std::string t = text.str();
  const auto first = t.find("first mech: 12 reads\n"), second = t.find("second mech: 2 events\nx\n");
  ASSERT_NE(first, std::string::npos) << t;
  ASSERT_NE(second, std::string::npos) << t;
  EXPECT_LT(first, second);
}

}  // namespace
}  // namespace lbsim
