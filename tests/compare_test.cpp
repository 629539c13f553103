// `lbsim compare`: replicate statistics (Student-t CI, Welch's test), ratios to the baseline and
// the refusal to mix scenarios or schemas.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/error.hpp"
#include "sim/metrics/replicates.hpp"
#include "sim/report/compare.hpp"

namespace lbsim {
namespace {

nlohmann::json report(const std::string& policy, int seed, double throughput, double p99,
                      const std::string& scenario = "s", const std::string& hash = "h") {
  return {{"schema", "lbsim.report/1"},
          {"scenario", {{"name", scenario}, {"hash", hash}}},
          {"policy", {{"name", policy}}},
          {"seed", seed},
          {"throughput_ops_s", throughput},
          {"latency_ms", {{"mean", 1.0}, {"p50", 1.0}, {"p95", 2.0}, {"p99", p99}, {"p999", 5.0}, {"max", 9.0}}},
          {"errors", {{"total", 0}}},
          {"imbalance",
           {{"coordinator", {{"max_over_mean", 1.1}, {"cov", 0.05}, {"gini", 0.02}}},
            {"replica", {{"max_over_mean", 1.2}, {"cov", 0.06}, {"gini", 0.03}}}}}};
}

TEST(Replicates, ConfidenceIntervalUsesStudentT) {
  const std::vector<double> v{10, 12, 11, 13, 9};
  const Estimate e = estimate(v);
  EXPECT_DOUBLE_EQ(e.mean, 11.0);
  EXPECT_NEAR(e.sd, std::sqrt(2.5), 1e-12);
  EXPECT_NEAR(e.half_width, 2.776445105 * std::sqrt(2.5) / std::sqrt(5.0), 1e-8);  // t(0.975, 4)
  EXPECT_EQ(estimate(std::vector<double>{4.0}).half_width, 0.0);
}

TEST(Replicates, WelchTestSeparatesClearDifferencesOnly) {
  const Estimate a = estimate(std::vector<double>{100, 101, 99, 100, 100});
  const Estimate b = estimate(std::vector<double>{110, 111, 109, 110, 110});
  const Estimate c = estimate(std::vector<double>{100.5, 99.2, 101.1, 99.9, 100.3});
  EXPECT_LT(welch_p_value(a, b), 1e-6);
  EXPECT_GT(welch_p_value(a, c), 0.3);
  // Textbook value: t = -1.0 with df = 8 gives p = 0.3466.
  const Estimate d = estimate(std::vector<double>{1, 2, 3, 4, 5});
  const Estimate e = estimate(std::vector<double>{2, 3, 4, 5, 6});
  EXPECT_NEAR(welch_p_value(d, e), 0.3466, 1e-3);
}

TEST(Compare, RatiosAndSignificanceAgainstTheBaseline) {
  std::vector<nlohmann::json> r;
  for (int s = 0; s < 5; ++s) {
    r.push_back(report("shared", s, 26000 + 100 * s, 2.5));
    r.push_back(report("thread_local", s, 28200 + 100 * s, 2.2 + 0.01 * s));
    r.push_back(report("same", s, 26000 + 100 * (4 - s), 2.5));
  }
  CompareOptions o;
  o.baseline = "shared";
  const Comparison c = compare_reports(r, o);
  ASSERT_EQ(c.policies, (std::vector<std::string>{"shared", "thread_local", "same"}));
  EXPECT_EQ(c.replicates, (std::vector<std::size_t>{5, 5, 5}));
  const auto& tp = c.cells[0];  // throughput
  EXPECT_NEAR(tp[1].ratio, 28400.0 / 26200.0, 1e-12);
  EXPECT_TRUE(tp[1].significant);
  EXPECT_NEAR(tp[2].ratio, 1.0, 1e-12);
  EXPECT_FALSE(tp[2].significant);
  EXPECT_FALSE(tp[0].significant);
  const std::string text = render_comparison(c, CompareFormat::Text);
  EXPECT_NE(text.find("shared (baseline) n=5"), std::string::npos) << text;
  EXPECT_NE(text.find("(1.084*)"), std::string::npos) << text;
  const std::string csv = render_comparison(c, CompareFormat::Csv);
  EXPECT_NE(csv.find("throughput,op/s,thread_local,5,28400,"), std::string::npos) << csv;
}

TEST(Compare, RefusesDifferentScenariosUnlessForced) {
  const std::vector<nlohmann::json> r{report("a", 1, 100, 1, "s1"), report("b", 1, 100, 1, "s2")};
  CompareOptions o;
  try {
    compare_reports(r, o);
    FAIL() << "mixing scenarios must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("different scenarios"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--mix-scenarios"), std::string::npos);
  }
  o.force = true;
  const Comparison c = compare_reports(r, o);
  EXPECT_EQ(c.warnings.size(), 1u);
  auto old = report("a", 1, 100, 1);
  old["schema"] = "lbsim.report/0";
  EXPECT_THROW(compare_reports({old, report("b", 1, 1, 1)}, CompareOptions{}), ConfigError);
  CompareOptions bad;
  bad.baseline = "nope";
  EXPECT_THROW(compare_reports({report("a", 1, 1, 1)}, bad), ConfigError);
}

// `lbsim report results -o all.html` over a results folder of several scenarios (issue 34): the
// refusal names the scenarios with their report counts and folders, not every file.
TEST(Compare, MixedScenariosAreListedByScenarioNotByFile) {
  std::vector<nlohmann::json> r;
  CompareOptions o;
  for (int seed = 1; seed <= 20; ++seed) {
    r.push_back(report("p" + std::to_string(seed % 4), seed, 100, 1, "alpha", "a1"));
    o.files.push_back("results/alpha/seeds/p" + std::to_string(seed % 4) + "/seed-" + std::to_string(seed) + ".json");
  }
  for (int i = 0; i < 6; ++i) {
    r.push_back(report("q" + std::to_string(i), 1, 100, 1, "beta", "b1"));
    o.files.push_back("results/beta/q" + std::to_string(i) + ".json");
  }
  r.push_back(report("old", 1, 100, 1, "gamma", "g1"));
  o.files.push_back("results/beta/old.json");
  try {
    compare_reports(r, o);
    FAIL() << "mixing scenarios must be refused";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("come from 3 different scenarios"), std::string::npos) << m;
    EXPECT_NE(m.find("alpha (a1): 20 reports in results/alpha/seeds"), std::string::npos) << m;
    EXPECT_NE(m.find("beta (b1): 6 reports in results/beta"), std::string::npos) << m;
    EXPECT_NE(m.find("gamma (g1): results/beta/old.json"), std::string::npos) << m;  // a stray report is named
    EXPECT_EQ(m.find("seed-7.json"), std::string::npos) << m;                       // not the 20 files
    EXPECT_LT(m.size(), 400u) << m;
  }
}

TEST(Compare, ScenarioOrderReadWriteSplitZeroBaselinesAndTheVerdictWarning) {
  // Files come alphabetically ("a-first" before "z-last"), but the scenario listed z-last first:
  // that is the baseline and the first column, as in `lbsim run`.
  auto z = report("z-last", 1, 20000, 3.0);
  z["policy"]["index"] = 0;
  auto a = report("a-first", 1, 24000, 2.0);
  a["policy"]["index"] = 1;
  for (auto* r : {&z, &a}) {
    (*r)["by_op"] = {{"read", {{"ops", 10}, {"throughput_ops_s", 1000.0}, {"latency_ms", {{"p99", 1.5}}}}},
                     {"write", {{"ops", 10}, {"throughput_ops_s", 0.0}, {"latency_ms", {{"p99", 4.0}}}}}};
  }
  const Comparison c = compare_reports({a, z}, CompareOptions{});
  ASSERT_EQ(c.policies, (std::vector<std::string>{"z-last", "a-first"}));
  EXPECT_EQ(c.baseline, "z-last");
  // The read/write split follows throughput.
  ASSERT_GE(c.metrics.size(), 5u);
  EXPECT_EQ(c.metrics[1].name, "read throughput");
  EXPECT_EQ(c.metrics[4].name, "write latency p99");
  EXPECT_DOUBLE_EQ(c.cells[2][1].value.mean, 1.5);
  // A zero baseline has no ratio: "n/a", JSON null.
  EXPECT_TRUE(std::isnan(c.cells[3][1].ratio));
  const std::string text = render_comparison(c, CompareFormat::Text);
  EXPECT_NE(text.find("(n/a)"), std::string::npos) << text;
  EXPECT_TRUE(nlohmann::json::parse(render_comparison(c, CompareFormat::Json))["rows"][3]["values"]["a-first"]["ratio"]
                  .is_null());
  // 20% apart in throughput: latencies not comparable, and the warning says why and what to do.
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("throughput differs by 20%"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("client.rate_ops_s"), std::string::npos);
  PolicyLoad x{.name = "x", .throughput = 1000, .window_s = 1, .loop = "closed"}, y = x;
  y.name = "y";
  y.throughput = 1040;
  EXPECT_TRUE(comparability_warnings({x, y}).empty());  // within 5 %
  // A closed loop with failures: both causes, the errors by kind.
  y.throughput = 1200;
  x.errors[static_cast<std::size_t>(ErrorKind::ClientTimeout)] = 30;
  const auto both = comparability_warnings({x, y});
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NE(both[0].find("operations failed in the measurement window (x: client_timeout 30; y: none); and in a closed "
                         "loop each policy runs at its own load"),
            std::string::npos)
      << both[0];
  EXPECT_NE(both[0].find("(client_timeout: no answer within timeouts.client_ms)"), std::string::npos) << both[0];
  // Without reads the split is left out.
  const Comparison w = compare_reports({report("p", 1, 1, 1)}, CompareOptions{});
  EXPECT_EQ(w.metrics.size(), compare_metrics().size());
}

TEST(Compare, MixedScenariosNameTheirFiles) {
  CompareOptions o;
  o.files = {"results/x/new.json", "results/x/stale.json"};
  try {
    compare_reports({report("a", 1, 100, 1, "s1"), report("b", 1, 100, 1, "s2")}, o);
    FAIL();
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.path(), "reports");  // not "lbsim compare" inside `lbsim report`
    EXPECT_NE(m.find("s1 (h): results/x/new.json"), std::string::npos) << m;
    EXPECT_NE(m.find("s2 (h): results/x/stale.json"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace lbsim
