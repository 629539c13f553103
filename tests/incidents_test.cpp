// The incident gallery (configs/incidents/, docs/incidents.md): every incident scenario, run as its
// reproduces.test_set shortens it, must give its figure within tolerance when its status is
// "reproduced", and must stay outside it when lbsim says it does not reproduce it (so that a
// change that makes lbsim reproduce it, or stop reproducing one, fails here and the gallery is
// updated). Also the figure expressions on hand-made reports and the `reproduces` block's place
// in the scenario (validated, kept out of the scenario's hash).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "sim/config/incident.hpp"
#include "sim/runner/incidents.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;

const std::string kIncidents = std::string(LBSIM_SOURCE_DIR) + "/configs/incidents";

jsonin::Json reproduces_doc() {
  return jsonin::Json::parse(R"({
    "source": "scylladb/scylladb#1", "claim": "c", "published": {"value": 2, "text": "2:1"},
    "figure": {"kind": "ratio", "num": {"kind": "value", "policy": "a", "path": "/x"},
               "den": {"kind": "value", "policy": "b", "path": "/x"}},
    "tolerance": {"relative": 0.1, "reason": "r"}, "setup": {"p": "assumed"}})");
}

TEST(IncidentFigure, EvaluatesEachKindOnReports) {
  const std::vector<std::string> pols = {"a", "b"};
  std::map<std::string, nlohmann::json> reports;
  reports["a"] = nlohmann::json::parse(R"({"x": 30, "timeline": {"points": [
      {"t_s": 0, "ops": 5, "coordinator_ops": [1, 2, 3]}, {"t_s": 10, "ops": 7, "coordinator_ops": [40, 10, 10]},
      {"t_s": 20, "ops": 9, "coordinator_ops": [4, 1, 1]}]}})");
  reports["b"] = nlohmann::json::parse(R"({"x": 12})");
  auto fig = [&](const char* text) { return parse_reproduces([&] { auto d = reproduces_doc(); d["figure"] = nlohmann::json::parse(text); return d; }(), "/r", pols, 3); };
  EXPECT_DOUBLE_EQ(evaluate_figure(*fig(R"({"kind": "value", "policy": "a", "path": "/x"})").figure, reports), 30);
  EXPECT_DOUBLE_EQ(evaluate_figure(*fig(R"({"kind": "ratio", "num": {"kind": "value", "policy": "a", "path": "/x"},
                                            "den": {"kind": "value", "policy": "b", "path": "/x"}})").figure, reports), 2.5);
  EXPECT_DOUBLE_EQ(evaluate_figure(*fig(R"({"kind": "change", "new": {"kind": "value", "policy": "b", "path": "/x"},
                                            "old": {"kind": "value", "policy": "a", "path": "/x"}})").figure, reports), -0.6);
  // [10, 30): the last two points; node 0 has 44, node 1 11.
  EXPECT_DOUBLE_EQ(evaluate_figure(*fig(R"({"kind": "timeline_sum", "policy": "a", "field": "coordinator_ops", "node": 0,
                                            "from_s": 10, "to_s": 30})").figure, reports), 44);
  EXPECT_DOUBLE_EQ(evaluate_figure(*fig(R"({"kind": "timeline_sum", "policy": "a", "field": "ops", "from_s": 0,
                                            "to_s": 15})").figure, reports), 12);
  const Reproduces mm = fig(R"({"kind": "ratio",
      "num": {"kind": "max", "of": [{"kind": "timeline_sum", "policy": "a", "field": "coordinator_ops", "node": 0, "from_s": 10, "to_s": 30},
                                    {"kind": "timeline_sum", "policy": "a", "field": "coordinator_ops", "node": 1, "from_s": 10, "to_s": 30}]},
      "den": {"kind": "min", "of": [{"kind": "timeline_sum", "policy": "a", "field": "coordinator_ops", "node": 1, "from_s": 10, "to_s": 30},
                                    {"kind": "timeline_sum", "policy": "a", "field": "coordinator_ops", "node": 2, "from_s": 10, "to_s": 30}]}})");
  EXPECT_DOUBLE_EQ(evaluate_figure(*mm.figure, reports), 4.0);
  // sum: a rack's nodes, e.g. nodes 0 and 2 of [10, 30) (44 + 11).
  EXPECT_DOUBLE_EQ(evaluate_figure(*fig(R"({"kind": "sum", "of": [
      {"kind": "timeline_sum", "policy": "a", "field": "coordinator_ops", "node": 0, "from_s": 10, "to_s": 30},
      {"kind": "timeline_sum", "policy": "a", "field": "coordinator_ops", "node": 2, "from_s": 10, "to_s": 30}]})").figure, reports), 55);
  EXPECT_THROW(fig(R"({"kind": "sum", "of": []})"), ConfigError);
  EXPECT_EQ(figure_policies(*mm.figure), std::vector<std::string>{"a"});
  // Missing paths, empty intervals and zero denominators are errors, not numbers.
  EXPECT_THROW(evaluate_figure(*fig(R"({"kind": "value", "policy": "b", "path": "/y"})").figure, reports), std::runtime_error);
  EXPECT_THROW(evaluate_figure(*fig(R"({"kind": "timeline_sum", "policy": "a", "field": "ops", "from_s": 40,
                                        "to_s": 50})").figure, reports), std::runtime_error);
  reports["b"]["x"] = 0;
  EXPECT_THROW(evaluate_figure(*fig(R"({"kind": "ratio", "num": {"kind": "value", "policy": "a", "path": "/x"},
                                        "den": {"kind": "value", "policy": "b", "path": "/x"}})").figure, reports), std::runtime_error);
}

TEST(IncidentFigure, ToleranceBands) {
  Reproduces r = parse_reproduces(reproduces_doc(), "/r", {"a", "b"}, 3);
  EXPECT_TRUE(within_tolerance(r, 2.19));  // 10 % of 2
  EXPECT_TRUE(within_tolerance(r, 1.81));
  EXPECT_FALSE(within_tolerance(r, 2.21));
  EXPECT_FALSE(within_tolerance(r, 1.79));
  r.relative = -1;
  r.absolute = 0.5;
  EXPECT_TRUE(within_tolerance(r, 2.5));
  EXPECT_FALSE(within_tolerance(r, 2.51));
  EXPECT_FALSE(within_tolerance(r, std::nan("")));
}

// A finding of lbsim's own has no thread: its source names it so, with where it was checked;
// anything else must be owner/repo#N.
TEST(IncidentFigure, SourceIsAThreadOrAnOwnFinding) {
  auto doc = reproduces_doc();
  doc["source"] = "lbsim's own finding (issue 36's hidden check against the real drivers)";
  EXPECT_EQ(parse_reproduces(doc, "/r", {"a", "b"}, 3).source, doc["source"].get<std::string>());
  for (const char* bad : {"lbsim's own finding", "scylladb#19107", "scylladb/scylladb#x", "a finding of lbsim's own"}) {
    doc["source"] = bad;
    EXPECT_THROW(parse_reproduces(doc, "/r", {"a", "b"}, 3), ConfigError) << bad;
  }
}

// `lbsim run` ignores the block: the scenario's hash (and so its reports) is the scenario's
// without it; a malformed block is still refused.
TEST(IncidentFigure, ReproducesStaysOutOfTheScenario) {
  auto doc = testing::cluster_doc(3, 4, 100);
  const Scenario plain = testing::build(doc);
  EXPECT_EQ(plain.reproduces, nullptr);
  const std::string name = plain.policies.at(0).name;
  auto rep = reproduces_doc();
  rep["figure"] = {{"kind", "value"}, {"policy", name}, {"path", "/throughput_ops_s"}};
  doc["reproduces"] = rep;
  const Scenario with = testing::build(doc);
  ASSERT_NE(with.reproduces, nullptr);
  EXPECT_EQ(with.reproduces->source, "scylladb/scylladb#1");
  EXPECT_EQ(with.hash, plain.hash);
  doc["reproduces"]["extra"] = 1;
  EXPECT_THROW(testing::build(doc), ConfigError);
}

// Every incident of the gallery, shortened by its test_set.
TEST(Incidents, EveryIncidentAsTheGallerySays) {
  const auto files = incident_files(kIncidents);
  ASSERT_GE(files.size(), 1u);
  std::size_t passing = 0;
  for (const std::string& f : files) {
    const auto t0 = std::chrono::steady_clock::now();
    const IncidentOutcome o = run_incident(f, /*quick=*/true);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-28s published %-10g lbsim %-12s %s (%.1f s)\n", o.name.c_str(), o.rep.published,
                o.value ? std::to_string(*o.value).c_str() : "-", o.rep.reproduced ? "reproduced" : "not reproduced", s);
    EXPECT_EQ(fs::path(f).stem().string(), o.name) << "an incident's file is named after its scenario";
    EXPECT_TRUE(o.error.empty()) << o.name << ": " << o.error;
    if (o.rep.reproduced) {
      ASSERT_TRUE(o.value) << o.name;
      EXPECT_TRUE(o.pass) << o.name << ": lbsim " << *o.value << ", published " << o.rep.published << " "
                          << tolerance_text(o.rep);
      passing += o.pass ? 1 : 0;
    } else {
      EXPECT_FALSE(o.pass);
      if (o.value) {
        EXPECT_FALSE(within_tolerance(o.rep, *o.value))
            << o.name << " is marked not-reproduced but lbsim gives " << *o.value << ": update the gallery";
      }
    }
  }
  // Issue 36's bar: at least twelve reproductions (docs/incidents.md, "What the 12 passes are").
  EXPECT_GE(passing, 12u);
}

// scylladb/scylla-rust-driver#1425 stays not reproduced, and for a stated reason: with the
// loaders placed as the thread's expected 2:2:1 implies (clients: 2, 2 and 1 per DC1 rack, each
// preferring its own rack), lbsim gives that 2:2:1 (busiest / least busy DC1 coordinator 2), not
// the observed 12300:2:2.
TEST(Incidents, RustDriver1425GivesTheExpectedNotTheObserved) {
  const IncidentOutcome o = run_incident(kIncidents + "/rust-driver-1425.json", /*quick=*/true);
  ASSERT_TRUE(o.value);
  EXPECT_FALSE(o.rep.reproduced);
  EXPECT_NEAR(*o.value, 2.0, 0.15);
  ASSERT_TRUE(o.reports.count("latte-rack-aware"));
  EXPECT_EQ(o.reports.at("latte-rack-aware")["loaders"].size(), 9u);
}

// scylladb/scylladb#7342 read as the report's "instance hard rebooting": a silent loss (down)
// gives the headline, 0 op/s from the second after the loss (within 0 .. 2 x 300 / 80k) and a
// latency peak of Java 3.x's 12,000 ms client timeout.
TEST(Incidents, Scylla7342SilentLossGivesTheHeadline) {
  const IncidentOutcome o = run_incident(kIncidents + "/scylladb-7342.json", /*quick=*/true);
  ASSERT_TRUE(o.value);
  EXPECT_TRUE(o.rep.reproduced);
  EXPECT_EQ(*o.value, 0.0);
  EXPECT_TRUE(o.pass);
  const double max_ms = o.reports.at("ta")["latency_ms"]["max"].get<double>();
  EXPECT_GT(max_ms, 12000.0);
  EXPECT_LT(max_ms, 12100.0);
}

}  // namespace
}  // namespace lbsim
