// `lbsim report`: a short run of a tiny copy of configs/default.json plus a hand-built sweep,
// rendered to HTML and then by headless Chromium (the Debian `chromium` package; CI installs
// it, so a missing browser is a failure, not a skip). Checks the DOM Chromium builds (one chart
// per expected figure, every policy named), that the page logs nothing to the console, and that
// a screenshot is produced; plus the self-containment and determinism of the HTML itself.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/report/html_report.hpp"
#include "sim/report/html_report_sections.hpp"
#include "sim/report/svg.hpp"

#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;

using ::lbsim::testing_files::slurp;
using ::lbsim::testing_files::shell;

std::string chromium_path() {
  const char* env = std::getenv("LBSIM_CHROMIUM");
  return env && *env ? env : "/usr/bin/chromium";
}

// The flags issue 5 prescribes, a fresh profile, console messages logged to stderr.
int run_chromium(const fs::path& dir, const std::string& profile, const std::string& url, const fs::path& png,
                 int width = 1400) {
  const std::string cmd = "timeout 90 " + chromium_path() +
                          " --headless --no-sandbox --disable-gpu --disable-background-networking"
                          " --disable-component-update --no-first-run --user-data-dir=" + (dir / profile).string() +
                          " --enable-logging=stderr --v=0 --window-size=" + std::to_string(width) +
                          ",3000 --screenshot=" + png.string() +
                          " --dump-dom " + url + " >" + (dir / (profile + ".dom")).string() + " 2>" +
                          (dir / (profile + ".err")).string();
  return shell(cmd);
}

// Chromium prints page console messages (log, warning, error, uncaught exceptions, failed loads)
// as "...:INFO:CONSOLE:<line>] "message", source: ..."; the report has no scripts, so any is wrong.
std::string console_lines(const std::string& err) {
  std::string out, line;
  std::istringstream in(err);
  while (std::getline(in, line))
    if (line.find(":CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) out += line + "\n";
  return out;
}

// The text of the element opened at `id="<id>"` up to its closing tag `close`.
std::string element(const std::string& dom, const std::string& id, const std::string& close) {
  const auto a = dom.find("id=\"" + id + "\"");
  if (a == std::string::npos) return "";
  const auto b = dom.find(close, a);
  return dom.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

class HtmlReport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("lbsim-html-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "runs");
    // A tiny copy of the default scenario: fewer ops.
    auto sc = nlohmann::json::parse(slurp(fs::path(LBSIM_SOURCE_DIR) / "configs/default.json"));
    sc["name"] = "html-tiny";
    sc["workload"]["ops"] = 30000;
    sc["workload"]["warmup_ops"] = 3000;
    // No report.timeline_interval_s: the interval follows the window. n2 is slow for a while, an
    // event the timeline charts mark.
    sc["faults"] = {{"events", {{{"at_s", 0.1}, {"node", "n2"}, {"kind", "slow"}, {"duration_s", 0.05}, {"factor", 3}}}}};
    for (const auto& p : sc["policies"]) policies_.push_back(p["name"].get<std::string>());
    std::ofstream(dir_ / "tiny.json") << sc.dump(1);
    run_rc_ = shell(std::string(LBSIM_BINARY) + " run " + (dir_ / "tiny.json").string() + " --quiet --out " +
                 (dir_ / "runs").string() + " >" + (dir_ / "run.out").string() + " 2>&1");
    // The sweep in its own folder, as `lbsim sweep --out` leaves it, with one grid run beside it:
    // a report of the sweep's scenario with a patched hash, which must not reach the run sections
    // (it would make the comparison refuse to mix scenarios).
    fs::create_directories(dir_ / "runs/sweep/p000/random-shared");
    fs::copy_file(fs::path(LBSIM_SOURCE_DIR) / "tests/fixtures/html/sweep.json", dir_ / "runs/sweep/sweep.json");
    if (run_rc_ == 0) {
      auto grid = nlohmann::json::parse(slurp(dir_ / "runs/html-tiny" / (policies_.front() + ".json")));
      grid["scenario"] = {{"name", "seed-shared-rng"}, {"hash", "feedfacefeedface"}};
      grid["policy"]["name"] = "random-shared";
      std::ofstream(dir_ / "runs/sweep/p000/random-shared/seed-1.json") << grid.dump();
    }
    report_rc_ = shell(std::string(LBSIM_BINARY) + " report " + (dir_ / "runs").string() + " -o " +
                    (dir_ / "report.html").string() + " >" + (dir_ / "report.out").string() + " 2>&1");
  }
  static void TearDownTestSuite() {
    if (::testing::UnitTest::GetInstance()->failed_test_count() == 0) fs::remove_all(dir_);
  }
  void SetUp() override {
    ASSERT_EQ(run_rc_, 0) << slurp(dir_ / "run.out");
    ASSERT_EQ(report_rc_, 0) << slurp(dir_ / "report.out");
  }

  static inline fs::path dir_;
  static inline std::vector<std::string> policies_;
  static inline int run_rc_ = -1, report_rc_ = -1;
};

TEST(Svg, TicksAreNiceAndLabelsShort) {
  EXPECT_EQ(svg::nice_ticks(0, 12345, 5), (std::vector<double>{0, 2500, 5000, 7500, 10000, 12500}));
  EXPECT_EQ(svg::nice_ticks(0, 0.9, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(svg::short_number(12500), "12.5k");
  EXPECT_EQ(svg::short_number(1250000), "1.25M");
  EXPECT_EQ(svg::short_number(0.25), "0.25");
  EXPECT_EQ(svg::escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
  // One unit per axis (issue 13): not "5000" next to "10k".
  EXPECT_EQ(svg::tick_labels({0, 2500, 5000, 7500, 10000, 12500}),
            (std::vector<std::string>{"0", "2.5k", "5k", "7.5k", "10k", "12.5k"}));
  EXPECT_EQ(svg::tick_labels({0, 0.5, 1}), (std::vector<std::string>{"0", "0.5", "1"}));
  EXPECT_EQ(svg::tick_labels({0, 500000, 1000000}), (std::vector<std::string>{"0", "0.5M", "1M"}));
}

const std::vector<std::string> kSweepMetrics{"throughput_ops_s", "latency_ms-mean", "latency_ms-p99",
                                             "imbalance-coordinator-max_over_mean", "client-shared_rng_cpu_fraction"};

TEST_F(HtmlReport, IsSelfContainedAndDeterministic) {
  const std::string html = slurp(dir_ / "report.html");
  for (const char* bad : {"<script", "http:", "https:", "src=", "url(", "@import", "@font-face"})
    EXPECT_EQ(html.find(bad), std::string::npos) << "the report must not reference '" << bad << "'";
  ASSERT_EQ(shell(std::string(LBSIM_BINARY) + " report " + (dir_ / "runs").string() + " -o " +
               (dir_ / "again.html").string() + " >/dev/null"),
            0);
  EXPECT_TRUE(html == slurp(dir_ / "again.html")) << "same inputs must give byte-identical HTML";
}

TEST_F(HtmlReport, BadInputIsExitTwoAndUnwritableOutputExitOne) {
  fs::create_directories(dir_ / "empty");
  EXPECT_EQ(shell(std::string(LBSIM_BINARY) + " report " + (dir_ / "empty").string() + " -o " +
               (dir_ / "x.html").string() + " 2>/dev/null"),
            2);
  EXPECT_FALSE(fs::exists(dir_ / "x.html"));
  EXPECT_EQ(shell(std::string(LBSIM_BINARY) + " report " + (dir_ / "runs").string() + " -o /dev/null/x.html 2>/dev/null"), 1);
}

TEST_F(HtmlReport, DecodedHistogramGivesTheReportedPercentiles) {
  const auto r = nlohmann::json::parse(slurp(dir_ / "runs/html-tiny" / (policies_.front() + ".json")));
  const LatencyHistogram h = histogram_from_report(r["histogram"], r["latency_ms"]["mean"].get<double>());
  EXPECT_EQ(h.count(), r["latency_ms"]["count"].get<std::uint64_t>());
  for (const auto& [key, p] : {std::pair{"p50", 50.0}, {"p99", 99.0}, {"p999", 99.9}})
    EXPECT_NEAR(to_ms(h.percentile(p)), r["latency_ms"][key].get<double>(), 1e-6) << key;
}

TEST_F(HtmlReport, ChromiumRendersEveryChartWithoutConsoleErrors) {
  ASSERT_TRUE(fs::exists(chromium_path()))
      << "headless Chromium not found at " << chromium_path()
      << ": install the Debian package 'chromium' (.ci/run does) or set LBSIM_CHROMIUM";
  // Canary: a page that logs an error and throws must be caught by the console check, so the
  // check below cannot pass vacuously if Chromium changes how it logs.
  std::ofstream(dir_ / "bad.html") << "<!DOCTYPE html><p>x</p><script>console.error('canary');throw new Error('boom')</script>";
  ASSERT_EQ(run_chromium(dir_, "canary", "file://" + (dir_ / "bad.html").string(), dir_ / "bad.png"), 0);
  const std::string canary = console_lines(slurp(dir_ / "canary.err"));
  ASSERT_NE(canary.find("canary"), std::string::npos) << "console capture does not work:\n" << slurp(dir_ / "canary.err");
  ASSERT_NE(canary.find("Uncaught"), std::string::npos) << canary;

  const fs::path png = dir_ / "report.png";
  ASSERT_EQ(run_chromium(dir_, "report", "file://" + (dir_ / "report.html").string(), png), 0)
      << slurp(dir_ / "report.err");
  const std::string dom = slurp(dir_ / "report.dom");
  EXPECT_EQ(console_lines(slurp(dir_ / "report.err")), "") << "the report logged to the console";

  // One chart per expected figure, each inside its section.
  std::vector<std::pair<std::string, std::vector<std::string>>> expected{
      {"sec-summary", {}},
      {"sec-compare", {}},
      {"sec-load", {"fig-coordinator-load", "fig-replica-load"}},
      {"sec-latency", {"fig-latency-percentiles"}},
      {"sec-timeline", {"fig-throughput-time", "fig-p99-time", "fig-node-requests-0", "fig-node-requests-1",
                        "fig-node-requests-2"}},  // requests served per node, one chart per policy
      {"sec-sweep-1", {}}};
  for (const auto& m : kSweepMetrics) expected.back().second.push_back("fig-sweep-1-" + m);
  expected.back().second.push_back("fig-sweep-1-p99-vs-throughput");
  std::size_t figures = 0;
  for (const auto& [sec, figs] : expected) {
    const std::string s = element(dom, sec, "</section>");
    ASSERT_FALSE(s.empty()) << "missing section " << sec;
    EXPECT_EQ(count(s, "<svg"), figs.size()) << sec;
    for (const auto& f : figs) {
      const std::string fig = element(s, f, "</figure>");
      EXPECT_EQ(count(fig, "<svg class=\"chart\""), 1u) << f;
      EXPECT_NE(fig.find("class=\"axis-label\""), std::string::npos) << f << " has no axis titles";
      EXPECT_NE(fig.find("class=\"legend-item\""), std::string::npos) << f << " has no legend";
    }
    figures += figs.size();
  }
  EXPECT_EQ(count(dom, "<svg"), figures) << "charts outside the expected figures";
  // Values on hover: every line chart's points carry a <title>; the percentile curves' caption
  // gives the maximum, which the percentile axis cannot show.
  const std::string tput = element(dom, "fig-throughput-time", "</figure>");
  EXPECT_GT(count(tput, "<title>"), 3u);
  // The timeline of a 0.2 s window has 26 to 64 points per policy (at a 1 s default it had one),
  // and the slow fault's start and end are marked on every over-time chart.
  const auto poly = tput.find("points=\"");
  ASSERT_NE(poly, std::string::npos);
  const std::size_t drawn = count(tput.substr(poly, tput.find('"', poly + 8) - poly), ",");
  EXPECT_GE(drawn, 26u);
  EXPECT_LE(drawn, 64u);
  for (const char* f : {"fig-throughput-time", "fig-p99-time", "fig-node-requests-0"}) {
    const std::string fig = element(dom, f, "</figure>");
    EXPECT_EQ(count(fig, "class=\"event\""), 2u) << f;
    EXPECT_NE(fig.find("n2 slow x3 (0.1 s)"), std::string::npos) << f;
  }
  const std::string pct = element(dom, "fig-latency-percentiles", "</figure>");
  EXPECT_GT(count(pct, "<title>"), 100u);
  EXPECT_NE(pct.find(", max "), std::string::npos);
  EXPECT_EQ(count(dom, "<table"), 5u);  // summary, comparison, and per-node work for each of the 3 policies
  {
    const std::string nodes = element(dom, "sec-nodes", "</section>");
    ASSERT_FALSE(nodes.empty()) << "missing the per-node section";
    EXPECT_EQ(count(nodes, "<table"), 3u);
    EXPECT_NE(nodes.find("dropped writes"), std::string::npos);
    EXPECT_NE(nodes.find("utilization"), std::string::npos);
  }
  EXPECT_NE(dom.find("1 further run reports are the sweeps"), std::string::npos) << "the grid run is not accounted for";

  // Every policy is named in the tables and in every per-policy chart; the sweep's in its charts.
  for (const auto& p : policies_) {
    EXPECT_NE(element(dom, "sec-summary", "</section>").find(">" + p + "<"), std::string::npos) << p;
    EXPECT_NE(element(dom, "sec-compare", "</section>").find("<th>" + p), std::string::npos) << p;
    for (const char* f : {"fig-coordinator-load", "fig-replica-load", "fig-latency-percentiles", "fig-throughput-time",
                          "fig-p99-time"})
      EXPECT_NE(element(dom, f, "</figure>").find("data-series=\"" + p + "\""), std::string::npos) << f << ": " << p;
  }
  for (const auto& m : kSweepMetrics)
    for (const char* p : {"random-shared", "random-thread-local"})
      EXPECT_NE(element(dom, "fig-sweep-1-" + m, "</figure>").find("data-series=\"" + std::string(p) + "\""),
                std::string::npos)
          << m << ": " << p;

  // The screenshot is a 1400 px wide PNG with content.
  const std::string img = slurp(png);
  ASSERT_GT(img.size(), 20000u) << png;
  EXPECT_EQ(img.substr(1, 3), "PNG");
  const auto be32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(img[at])) << 24) | (std::uint32_t(std::uint8_t(img[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(img[at + 2])) << 8) | std::uint32_t(std::uint8_t(img[at + 3]));
  };
  EXPECT_EQ(be32(16), 1400u);
  EXPECT_EQ(be32(20), 3000u);
  // To look at it: LBSIM_SCREENSHOT_OUT=/tmp/lbsim-report.png ./lbsim_tests --gtest_filter='HtmlReport.*'
  if (const char* out = std::getenv("LBSIM_SCREENSHOT_OUT"); out && *out)
    fs::copy_file(png, out, fs::copy_options::overwrite_existing);
}

// Two datacenters: one dashed mean per DC and policy, spanning that DC's nodes only. With one
// all-node mean the remote DC (which coordinates nothing) halves the line and every local node
// looks hot, the trap issue 13 reports.
TEST(HtmlLoadChart, MeanLinesArePerDatacenter) {
  nlohmann::json r;
  r["nodes"] = nlohmann::json::array();
  const std::uint64_t ops[6] = {100, 120, 140, 0, 0, 0};
  for (int i = 0; i < 6; ++i)
    r["nodes"].push_back({{"id", "n" + std::to_string(i + 1)}, {"dc", i < 3 ? "dc1" : "dc2"},
                          {"coordinator_ops", ops[i]}, {"replica_reads", 10u * (i + 1)}, {"replica_writes", 0u}});
  const std::string html = html::load_section({html::PolicyRuns{"p", {&r}}});
  const std::string coord = element(html, "chart-coordinator-load", "</svg>");
  EXPECT_EQ(count(coord, "class=\"reference\""), 2u);
  EXPECT_NE(coord.find("<title>p datacenter mean (dashed) (dc1): 120</title>"), std::string::npos) << coord;
  EXPECT_NE(coord.find("<title>p datacenter mean (dashed) (dc2): 0</title>"), std::string::npos) << coord;
  EXPECT_EQ(count(coord, "class=\"separator\""), 1u);
  // dc1's line ends where dc2's begins, at the separator: half the plot each.
  const auto x_of = [&](const std::string& svg, const std::string& cls, std::size_t nth, const char* attr) {
    std::size_t p = 0;
    for (std::size_t k = 0; k <= nth; ++k) p = svg.find("class=\"" + cls + "\"", p + 1);
    const auto a = svg.find(std::string(attr) + "=\"", p) + std::strlen(attr) + 2;
    return std::stod(svg.substr(a, svg.find('"', a) - a));
  };
  EXPECT_DOUBLE_EQ(x_of(coord, "reference", 0, "x2"), x_of(coord, "separator", 0, "x1"));
  EXPECT_DOUBLE_EQ(x_of(coord, "reference", 1, "x1"), x_of(coord, "separator", 0, "x1"));
  const std::string replica = element(html, "chart-replica-load", "</svg>");
  EXPECT_NE(replica.find("(dc2): 50</title>"), std::string::npos) << replica;  // (40 + 50 + 60) / 3
  EXPECT_NE(html.find("mean over the nodes of each datacenter"), std::string::npos);

  // One datacenter: a single line across the plot, no separators.
  for (auto& n : r["nodes"]) n["dc"] = "dc1";
  const std::string one = element(html::load_section({html::PolicyRuns{"p", {&r}}}), "chart-coordinator-load", "</svg>");
  EXPECT_EQ(count(one, "class=\"reference\""), 1u);
  EXPECT_NE(one.find("<title>p policy mean (dashed): 60</title>"), std::string::npos) << one;
  EXPECT_EQ(count(one, "class=\"separator\""), 0u);
}

// At 800 px (a laptop split screen) the page measures itself in Chromium: a script appended to a
// copy of the report records the layout in a data attribute that --dump-dom then shows.
TEST_F(HtmlReport, ReadableAt800Pixels) {
  ASSERT_TRUE(fs::exists(chromium_path())) << "headless Chromium not found at " << chromium_path();
  const char* probe = R"(<script>
(function () {
  var vw = document.documentElement.clientWidth, small = 1e9, smallAt = "", overflow = [];
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    svg.querySelectorAll("text").forEach(function (t) {
      var px = parseFloat(t.getAttribute("font-size") || "12") * scale;
      if (px < small) { small = px; smallAt = svg.id; }
    });
  });
  // Nothing but a figure or a table (which scroll on their own) may be wider than the page.
  document.querySelectorAll("body *").forEach(function (e) {
    if (e.closest("figure") || e.closest("table")) return;
    if (e.getBoundingClientRect().right > vw + 1) overflow.push(e.tagName + "#" + e.id);
  });
  var scrollers = 0;
  document.querySelectorAll("figure, table").forEach(function (e) { if (e.scrollWidth > e.clientWidth + 1) scrollers++; });
  document.body.setAttribute("data-layout", JSON.stringify({viewport: vw, page: document.documentElement.scrollWidth,
      smallest_font_px: small, smallest_in: smallAt, overflow: overflow.slice(0, 5), scrollers: scrollers}));
})();
</script>)";
  std::string html = slurp(dir_ / "report.html");
  const auto end = html.rfind("</body>");
  ASSERT_NE(end, std::string::npos);
  html.insert(end, probe);
  std::ofstream(dir_ / "report800.html") << html;
  ASSERT_EQ(run_chromium(dir_, "narrow", "file://" + (dir_ / "report800.html").string(), dir_ / "narrow.png", 800), 0)
      << slurp(dir_ / "narrow.err");
  const std::string dom = slurp(dir_ / "narrow.dom");
  const auto a = dom.find("data-layout=\"");
  ASSERT_NE(a, std::string::npos) << "the layout probe did not run";
  std::string attr = dom.substr(a + 13, dom.find('"', a + 13) - (a + 13));
  for (auto p = attr.find("&quot;"); p != std::string::npos; p = attr.find("&quot;")) attr.replace(p, 6, "\"");
  const auto layout = nlohmann::json::parse(attr);
  EXPECT_LE(layout["viewport"].get<int>(), 800) << layout;
  EXPECT_GE(layout["viewport"].get<int>(), 700) << layout;
  EXPECT_LE(layout["page"].get<int>(), layout["viewport"].get<int>()) << "the page scrolls sideways: " << layout;
  EXPECT_TRUE(layout["overflow"].empty()) << layout;
  // The smallest chart text (11 px tick labels) stays at 9 px or more; wide charts scroll instead.
  EXPECT_GE(layout["smallest_font_px"].get<double>(), 9.0 - 1e-6) << layout;
  EXPECT_GE(layout["scrollers"].get<int>(), 1) << "the 1300 px charts should scroll at 800 px: " << layout;
}

// A run report with what the timeline section reads: `nodes` nodes (split evenly over `dcs` DCs),
// a window starting at 1 s with `points` 1 s intervals, p99 `p99_ms` and `node_rate` requests per
// second on every node, and the scenario's `events`.
nlohmann::json timeline_report(const std::string& policy, std::size_t nodes, std::size_t points, double p99_ms,
                               double node_rate = 1000, std::size_t dcs = 1,
                               nlohmann::json events = nlohmann::json::array()) {
  nlohmann::json r;
  r["policy"] = {{"name", policy}};
  r["seed"] = 1;
  r["simulated_s"] = {{"window_start", 1.0}, {"window", static_cast<double>(points)}, {"end", 1.0 + static_cast<double>(points)}};
  r["nodes"] = nlohmann::json::array();
  for (std::size_t n = 0; n < nodes; ++n)
    r["nodes"].push_back({{"id", "n" + std::to_string(n + 1)}, {"dc", "dc" + std::to_string(n * dcs / nodes + 1)}, {"rack", "r1"}});
  r["timeline"] = {{"interval_s", 1.0}, {"points", nlohmann::json::array()}};
  if (!events.empty()) r["timeline"]["events"] = events;
  for (std::size_t i = 0; i < points; ++i)
    r["timeline"]["points"].push_back({{"t_s", static_cast<double>(i)},
                                        {"ops", node_rate * static_cast<double>(nodes)},
                                        {"errors", 0},
                                        {"p99_ms", p99_ms},
                                        {"coordinator_ops", std::vector<double>(nodes, node_rate)}});
  return r;
}

// The number in attribute `attr` of the element around the first occurrence of `marker` (searched
// back to `open`, e.g. "<circle").
double attr_at(const std::string& svg, const std::string& marker, const std::string& open, const char* attr) {
  const auto m = svg.find(marker);
  if (m == std::string::npos) return NAN;
  const auto a = svg.find(std::string(attr) + "=\"", svg.rfind(open, m)) + std::strlen(attr) + 2;
  return std::stod(svg.substr(a, svg.find('"', a) - a));
}

// The y axis's tick labels, bottom to top.
std::vector<std::string> y_ticks(const std::string& svg) {
  std::vector<std::string> out;
  const std::string tag = "class=\"tick\" ";
  for (auto p = svg.find(tag); p != std::string::npos; p = svg.find(tag, p + 1)) {
    const auto end = svg.find("</text>", p);
    const std::string t = svg.substr(p, end - p);
    if (t.find("text-anchor=\"end\"") == std::string::npos || t.find("rotate") != std::string::npos) continue;
    out.push_back(t.substr(t.rfind('>') + 1));
  }
  return out;
}

// A chart with fewer than 3 points says so instead of drawing a line through one point.
TEST(HtmlTimeline, TooFewPointsAreSaidNotDrawn) {
  const auto one = timeline_report("a", 3, 1, 2.0);
  const std::string html = html::timeline_section({html::PolicyRuns{"a", {&one}}});
  for (const char* f : {"fig-throughput-time", "fig-p99-time", "fig-node-requests-0"}) {
    const std::string fig = element(html, f, "</figure>");
    ASSERT_FALSE(fig.empty()) << f;
    EXPECT_EQ(fig.find("<svg"), std::string::npos) << f;
    EXPECT_NE(fig.find("Only 1 timeline point (interval 1 s, measurement window 1 s)"), std::string::npos) << fig;
  }
  const auto three = timeline_report("a", 3, 3, 2.0);
  const std::string drawn = html::timeline_section({html::PolicyRuns{"a", {&three}}});
  EXPECT_EQ(count(drawn, "<svg"), 3u);
  EXPECT_EQ(drawn.find("few-points"), std::string::npos);
}

// Node lines stay distinct (colour and dash) up to 24 nodes; beyond, each DC's busiest node and
// mean per node.
TEST(HtmlTimeline, NodeLinesAreDistinctUpTo24NodesThenGroupedByDatacenter) {
  const auto r24 = timeline_report("a", 24, 5, 2.0);
  const std::string chart = element(html::timeline_section({html::PolicyRuns{"a", {&r24}}}), "chart-node-requests-0", "</svg>");
  std::set<std::pair<std::string, std::string>> styles;
  const std::string tag = "<polyline";
  for (auto p = chart.find(tag); p != std::string::npos; p = chart.find(tag, p + 1)) {
    const std::string line = chart.substr(p, chart.find("/>", p) - p);
    auto value = [&](const std::string& a) {
      const auto at = line.find(a + "=\"");
      return at == std::string::npos ? std::string() : line.substr(at + a.size() + 2, line.find('"', at + a.size() + 2) - at - a.size() - 2);
    };
    styles.insert({value("stroke"), value("stroke-dasharray")});
  }
  EXPECT_EQ(count(chart, tag), 24u);
  EXPECT_EQ(styles.size(), 24u) << "node lines share a colour and dash";

  const auto r30 = timeline_report("a", 30, 5, 2.0, 1000, 2);
  const std::string grouped = element(html::timeline_section({html::PolicyRuns{"a", {&r30}}}), "chart-node-requests-0", "</svg>");
  EXPECT_EQ(count(grouped, "<polyline"), 4u);
  for (const char* s : {"dc1 busiest node", "dc1 mean per node", "dc2 busiest node", "dc2 mean per node"})
    EXPECT_NE(grouped.find("data-series=\"" + std::string(s) + "\""), std::string::npos) << s;
}

// p99 over time on a log axis when it spans more than 20x: 2 ms and 4 ms stay apart beside 2 s.
TEST(HtmlTimeline, P99AxisIsLogarithmicBeyondTwentyFold) {
  const auto a = timeline_report("a", 3, 5, 2.0), b = timeline_report("b", 3, 5, 4.0), c = timeline_report("c", 3, 5, 2000.0);
  const std::string wide = element(html::timeline_section({html::PolicyRuns{"a", {&a}}, html::PolicyRuns{"b", {&b}},
                                                           html::PolicyRuns{"c", {&c}}}),
                                   "chart-p99-time", "</svg>");
  const double ya = attr_at(wide, "<title>a: 2 at", "<circle", "cy"), yb = attr_at(wide, "<title>b: 4 at", "<circle", "cy");
  EXPECT_GT(ya - yb, 10.0) << "2 ms and 4 ms are " << ya - yb << " px apart";
  EXPECT_NE(wide.find("(ms, log scale)"), std::string::npos);
  const std::string narrow = element(html::timeline_section({html::PolicyRuns{"a", {&a}}, html::PolicyRuns{"b", {&b}}}),
                                     "chart-p99-time", "</svg>");
  EXPECT_EQ(narrow.find("log scale"), std::string::npos);
}

// Events sit at their scenario times, on the same time axis as the points (the window starts at
// 1 s, so a fault at 10 s lies between the points of [9, 10) and [10, 11)).
TEST(HtmlTimeline, EventsSitAtTheirScenarioTimes) {
  const auto r = timeline_report("a", 3, 20, 2.0, 1000, 1,
                                 nlohmann::json::parse(R"([{"at_s": 10, "event": "down", "nodes": ["n3"]}])"));
  const std::string html = html::timeline_section({html::PolicyRuns{"a", {&r}}});
  for (const char* chart : {"chart-throughput-time", "chart-p99-time", "chart-node-requests-0"}) {
    const std::string svg = element(html, chart, "</svg>");
    EXPECT_EQ(count(svg, "class=\"event\""), 1u) << chart;
    EXPECT_NE(svg.find(">n3 down (10 s)</text>"), std::string::npos) << chart;
    const double before = attr_at(svg, " at 9.5</title>", "<circle", "cx");
    const double after = attr_at(svg, " at 10.5</title>", "<circle", "cx");
    EXPECT_NEAR(attr_at(svg, "class=\"event\"", "<g", "x1"), (before + after) / 2, 0.11) << chart;
  }
  EXPECT_NE(html.find("simulated time since the scenario began (s)"), std::string::npos);
}

// A slow fault on one shard (faults.events[].shard) says which shard on its marker.
TEST(HtmlTimeline, ShardSlowFaultNamesItsShard) {
  const auto r = timeline_report("a", 3, 20, 2.0, 1000, 1, nlohmann::json::parse(R"([
      {"at_s": 5, "event": "slow", "nodes": ["n1"], "factor": 1.25, "shard": 0},
      {"at_s": 8, "event": "slow", "nodes": ["n2"], "factor": 3}])"));
  const std::string svg = element(html::timeline_section({html::PolicyRuns{"a", {&r}}}), "chart-throughput-time", "</svg>");
  EXPECT_NE(svg.find(">n1 slow x1.25 on shard 0 (5 s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">n2 slow x3 (8 s)</text>"), std::string::npos);
}

// One scale for every policy's per-node chart: half the load looks like half the load.
TEST(HtmlTimeline, PerNodeChartsShareOneScale) {
  const auto busy = timeline_report("busy", 3, 5, 2.0, 1000), idle = timeline_report("idle", 3, 5, 2.0, 500);
  const std::string html = html::timeline_section({html::PolicyRuns{"busy", {&busy}}, html::PolicyRuns{"idle", {&idle}}});
  const auto a = y_ticks(element(html, "chart-node-requests-0", "</svg>"));
  const auto b = y_ticks(element(html, "chart-node-requests-1", "</svg>"));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.back(), "1000");
}

// Tick labels stay distinct however close the ticks (issue 44): the precision follows the step.
// "p99 vs throughput" over 20,016..20,022 op/s read "20.02k" on every tick.
TEST(Svg, TickLabelsAreDistinctAtAnyStep) {
  EXPECT_EQ(svg::tick_labels({20016, 20018, 20020, 20022}),
            (std::vector<std::string>{"20.016k", "20.018k", "20.02k", "20.022k"}));
  EXPECT_EQ(svg::tick_labels({1.001, 1.002, 1.003}), (std::vector<std::string>{"1.001", "1.002", "1.003"}));
  EXPECT_EQ(svg::tick_labels({100, 100.5, 101}), (std::vector<std::string>{"100", "100.5", "101"}));
  EXPECT_EQ(svg::tick_labels({1.5e6, 1.5025e6, 1.505e6}), (std::vector<std::string>{"1.5M", "1.5025M", "1.505M"}));
  // A whole chart: the x axis of throughputs 20,015 to 20,025 op/s, and ticks at close data values.
  svg::LineChart c;
  c.id = "close";
  svg::Series s;
  s.name = "a";
  s.x = {20015, 20019, 20025};
  s.y = {1, 2, 3};
  c.series.push_back(s);
  auto x_labels = [](const std::string& svg) {
    std::vector<std::string> out;
    const std::string tag = "class=\"tick\" ";
    for (auto p = svg.find(tag); p != std::string::npos; p = svg.find(tag, p + 1)) {
      const std::string t = svg.substr(p, svg.find("</text>", p) - p);
      if (t.find("text-anchor=\"end\"") == std::string::npos || t.find("rotate") != std::string::npos)
        out.push_back(t.substr(t.rfind('>') + 1));
    }
    return out;
  };
  const auto lin = x_labels(svg::render(c));
  ASSERT_GE(lin.size(), 3u);
  EXPECT_EQ(std::set<std::string>(lin.begin(), lin.end()).size(), lin.size()) << ::testing::PrintToString(lin);
  c.x_ticks_at_data = true;
  const auto at = x_labels(svg::render(c));
  EXPECT_EQ(at, (std::vector<std::string>{"20.015k", "20.019k", "20.025k"}));
  for (const auto& y : y_ticks(svg::render(c))) EXPECT_NE(y, "") << "y labels";
}

// A sweep of two policies whose p99s are 1.5 ms and 187 ms at every grid point.
nlohmann::json two_policy_sweep(double fast_p99, double slow_p99) {
  nlohmann::json sw;
  sw["schema"] = "lbsim.sweep/1";
  sw["scenario"] = {{"name", "s"}, {"hash", "0"}};
  sw["parameters"] = {"client.threads"};
  sw["seeds"] = 1;
  for (int t : {10, 20, 40}) {
    nlohmann::json pt;
    pt["values"] = {{"client.threads", t}};
    auto metric = [](double v) { return nlohmann::json{{"n", 1}, {"mean", v}, {"sd", 0}, {"ci95", 0}}; };
    pt["policies"]["fast"]["metrics"] = {{"throughput_ops_s", metric(1000.0 * t)}, {"latency_ms.p99", metric(fast_p99)},
                                         {"client.cpu_utilization", metric(0.038)}};
    pt["policies"]["slow"]["metrics"] = {{"throughput_ops_s", metric(900.0 * t)}, {"latency_ms.p99", metric(slow_p99)},
                                         {"client.cpu_utilization", metric(0.05)}};
    sw["points"].push_back(pt);
  }
  return sw;
}

// Sweeps follow the runs' rule: a log p99 axis beyond a 20x range, so 1.5 ms stays off the floor.
TEST(HtmlSweep, P99AxisIsLogarithmicBeyondTwentyFold) {
  const std::string wide = html::sweep_section(two_policy_sweep(1.5, 187), 1);
  for (const char* chart : {"chart-sweep-1-latency_ms-p99", "chart-sweep-1-p99-vs-throughput"}) {
    const std::string svg = element(wide, chart, "</svg>");
    ASSERT_FALSE(svg.empty()) << chart;
    EXPECT_NE(svg.find("(ms, log scale)"), std::string::npos) << chart;
    // On a log axis from 1 to 1000 ms, 1.5 ms sits log10(1.5)/3 of the way up; on the linear one
    // (0 to 200 ms) it was 0.75 % of the way, about 2 px above the floor.
    const auto ticks = y_ticks(svg);
    EXPECT_EQ(ticks.front(), "1") << chart;
    EXPECT_EQ(ticks.back(), "1000") << chart;
  }
  const std::string narrow = html::sweep_section(two_policy_sweep(1.5, 20), 1);
  EXPECT_EQ(element(narrow, "chart-sweep-1-latency_ms-p99", "</svg>").find("log scale"), std::string::npos);
  // The client CPU as a percentage, as the text report prints it (JSON: a fraction).
  const std::string cpu = element(wide, "chart-sweep-1-client-cpu_utilization", "</svg>");
  EXPECT_NE(cpu.find("client CPU utilization (%)"), std::string::npos);
  EXPECT_NE(cpu.find("<title>fast: 3.8</title>"), std::string::npos) << cpu;
}

// The summary's seeds column counts the seeds and names them; the client CPU is a percentage with
// one decimal, as the text report's "client: cpu 3.8%".
TEST_F(HtmlReport, SummaryCountsSeedsAndShowsClientCpuInPercent) {
  const std::string html = slurp(dir_ / "report.html");
  const std::string summary = element(html, "sec-summary", "</section>");
  ASSERT_FALSE(summary.empty());
  const auto sc = nlohmann::json::parse(slurp(dir_ / "tiny.json"));
  for (const auto& p : policies_) {
    const auto r = nlohmann::json::parse(slurp(dir_ / "runs/html-tiny" / (p + ".json")));
    const std::string row = summary.substr(summary.find(">" + p + "</td>"));
    const std::string tr = row.substr(0, row.find("</tr>"));
    EXPECT_NE(tr.find(fmt::format("<td>1 (seed {})</td>", sc["seed"].get<std::uint64_t>())), std::string::npos) << tr;
    EXPECT_NE(tr.find(fmt::format("<td>{:.1f}%</td>", 100 * r["client"]["cpu_utilization"].get<double>())),
              std::string::npos)
        << tr;
  }
}

}  // namespace
}  // namespace lbsim
