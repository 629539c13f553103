// Golden reports of every shipped scenario (issue 45, step 1) and of the in-memory scenarios of
// the mechanism tests. Two tables, one comparison:
// - tests/golden/scenarios.txt: each line names a scenario of configs/ and the --set patches that
//   shorten it; the goldens are tests/golden/scenarios/<name>.json and .digest, <name> the path
//   below configs/ with '/' as '-'. Every shipped scenario is listed (GoldenScenarioTable).
// - tests/golden/mechanisms.txt: each line names a scenario file tests/golden/mechanisms/<name>.json,
//   the scenario a mechanism test builds in memory (cache and disk, HWLB, dynamic snitch, driver
//   failure detection, server speculative retry, driver speculative executions, tablets, resize,
//   streaming, vnode changes, loaders, LWT, faults, EACH_QUORUM, shard-aware connections), dumped
//   once to a file and shortened where the test's run is long; its comment names the test and the
//   mechanism path. The goldens are tests/golden/mechanisms/out/<name>.json and .digest. Every
//   listed file exists and every file there is listed (GoldenMechanismTable).
// Every policy of a scenario, at the scenario's seed, must give exactly the committed stable report
// (report_json_stable, one object keyed by policy name) and EventDigest lines (the engine's event
// count, hash and checkpoints, and each named random stream's draw count; sim/engine/event_digest.hpp);
// a failure names the first policy and line (or stream) that differ. A refactoring of the engine keeps all of them byte-identical; a deliberate
// change of a figure regenerates them in a commit that names it:
//   LBSIM_UPDATE_GOLDEN=1 build/tests/lbsim_tests --gtest_filter='*GoldenScenario*'
// (Shipped/GoldenScenario.* or Mechanism/GoldenScenario.* for one table). tests/golden/README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/report/report_json.hpp"
#include "sim_test_util.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = LBSIM_SOURCE_DIR;

struct GoldenCase {
  std::string scenario;           // path below the source folder, e.g. configs/incidents/x.json
  std::vector<std::string> sets;  // "PATH=VALUE" patches
  std::string name;               // the golden's name, e.g. incidents-x
  fs::path golden;                // the stable reports, below the source folder; .digest beside it
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.scenario; }

// The lines of a table: the first word, then the --set patches; '#' starts a comment.
std::vector<std::vector<std::string>> table_lines(const fs::path& table) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(testing_files::slurp(kSource / table));
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

// configs/incidents/scylladb-7342.json -> incidents-scylladb-7342
std::string shipped_name(const std::string& scenario) {
  std::string rel = fs::path(scenario).lexically_relative("configs").replace_extension().string();
  std::replace(rel.begin(), rel.end(), '/', '-');
  return rel;
}

std::vector<GoldenCase> shipped_cases() {
  std::vector<GoldenCase> out;
  for (const auto& w : table_lines("tests/golden/scenarios.txt")) {
    GoldenCase c{w[0], {w.begin() + 1, w.end()}, shipped_name(w[0]), {}};
    c.golden = fs::path("tests/golden/scenarios") / (c.name + ".json");
    out.push_back(c);
  }
  return out;
}

const fs::path kMechanisms = "tests/golden/mechanisms";

std::vector<GoldenCase> mechanism_cases() {
  std::vector<GoldenCase> out;
  for (const auto& w : table_lines("tests/golden/mechanisms.txt"))
    out.push_back({(kMechanisms / (w[0] + ".json")).string(), {w.begin() + 1, w.end()}, w[0],
                   kMechanisms / "out" / (w[0] + ".json")});
  return out;
}

class GoldenScenario : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenScenario, EveryPolicyMatchesTheCommittedStableReport) {
  const GoldenCase& c = GetParam();
  const Scenario sc = load_scenario((kSource / c.scenario).string(), c.sets);
  jsonin::Json got = jsonin::Json::object();
  // Per policy two lines (sim/engine/event_digest.hpp): "policy events hash checkpoints..." and
  // "policy draws name=count ...".
  std::string digests;
  for (const auto& p : sc.policies) {
    EventDigest digest;
    RunOptions options;
    options.digest = &digest;
    got[p.name] = report_json_stable(run_simulation(sc, p, sc.seed, options));
    digests += p.name + " " + digest.line() + "\n";
    digests += p.name + " draws " + digest.draws_line() + "\n";
  }
  const std::string text = got.dump(1) + "\n";
  const fs::path file = kSource / c.golden;
  const fs::path digest_file = fs::path(file).replace_extension(".digest");
  if (std::getenv("LBSIM_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(file.parent_path());
    write_file_atomic(file.string(), text);
    write_file_atomic(digest_file.string(), digests);
    return;
  }
  // The event sequence: the first policy whose digest differs, and where its events part (or the
  // first stream whose draws differ).
  {
    std::istringstream want_lines(testing_files::slurp(digest_file)), got_lines(digests);
    std::string w, g;
    while (std::getline(got_lines, g)) {
      if (!std::getline(want_lines, w)) w.clear();
      if (w == g) continue;
      const std::string name = g.substr(0, g.find(' '));
      const std::string rest = g.substr(g.find(' ') + 1);
      const std::string was = w.empty() ? std::string() : w.substr(w.find(' ') + 1);
      if (rest.rfind("draws", 0) == 0) {
        ADD_FAILURE() << c.scenario << " / " << name << ": a stream's draws changed: "
                      << first_draws_difference(was.rfind("draws", 0) == 0 ? was.substr(5) : "", rest.substr(5));
      } else {
        const auto from = first_divergence(was, rest);
        ADD_FAILURE() << c.scenario << " / " << name << ": the event sequence changed (was: "
                      << (w.empty() ? "absent" : w.substr(0, w.find(' ', w.find(' ') + 1))) << "...), first within events ["
                      << *from << ", " << *from + EventDigest::kCheckpointEvery << ")";
      }
      break;
    }
  }
  const std::string want = testing_files::slurp(file);
  ASSERT_FALSE(want.empty()) << "missing " << file << " (regenerate with LBSIM_UPDATE_GOLDEN=1)";
  if (text == want) return;
  // Name the first policy whose report differs, and the first differing line of it.
  const auto old = jsonin::Json::parse(want);
  for (const auto& [name, report] : got.items()) {
    if (old.contains(name) && old[name] == report) continue;
    const std::string a = old.contains(name) ? old[name].dump(1) : std::string("(absent)");
    const std::string b = report.dump(1);
    std::size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
    const std::size_t from = a.rfind('\n', at) == std::string::npos ? 0 : a.rfind('\n', at) + 1;
    ADD_FAILURE() << c.scenario << " / " << name << ": the report changed near\n  was: "
                  << a.substr(from, a.find('\n', at) - from) << "\n  now: " << b.substr(from, b.find('\n', at) - from)
                  << "\nif deliberate, regenerate the golden files in a commit that names the change";
    return;
  }
  ADD_FAILURE() << c.scenario << ": a policy was removed from the scenario";
}

std::string param_name(const ::testing::TestParamInfo<GoldenCase>& i) {
  std::string n = i.param.name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Shipped, GoldenScenario, ::testing::ValuesIn(shipped_cases()), param_name);
INSTANTIATE_TEST_SUITE_P(Mechanism, GoldenScenario, ::testing::ValuesIn(mechanism_cases()), param_name);

// Issue 45, step 5: the request path's bare copy (no hook point, no mechanism's test), which a
// scenario without mechanisms runs, and the hooked copy give every policy of every shipped
// scenario (and every mechanism test's scenario that uses none) the same stable report and the
// same event digest. A scenario with a mechanism runs the hooked copy.
TEST(RequestPath, BareAndHookedCopiesGiveTheSameReportsAndEvents) {
  std::size_t bare = 0, hooked = 0;
  std::vector<GoldenCase> cases = shipped_cases();
  for (const GoldenCase& c : mechanism_cases()) cases.push_back(c);
  for (const GoldenCase& c : cases) {
    const Scenario sc = load_scenario((kSource / c.scenario).string(), c.sets);
    for (const auto& p : sc.policies) {
      EventDigest d_auto, d_hooked;
      RunOptions a;
      a.digest = &d_auto;
      const RunResult ra = run_simulation(sc, p, sc.seed, a);
      if (ra.engine.hooked) {
        ++hooked;
        continue;  // it uses a mechanism: the hooked copy is the only right one
      }
      ++bare;
      RunOptions h;
      h.digest = &d_hooked;
      h.request_path = RequestPath::Hooked;
      const RunResult rh = run_simulation(sc, p, sc.seed, h);
      ASSERT_TRUE(rh.engine.hooked);
      EXPECT_EQ(report_json_stable(ra).dump(1), report_json_stable(rh).dump(1)) << c.scenario << " / " << p.name;
      EXPECT_EQ(d_auto.line(), d_hooked.line()) << c.scenario << " / " << p.name;
      EXPECT_EQ(d_auto.draws_line(), d_hooked.draws_line()) << c.scenario << " / " << p.name;
    }
    // The choice itself: default.json uses no mechanism, cache.json the cache and disk.
    if (c.scenario == "configs/default.json" || c.scenario == "configs/cache.json") {
      const RunResult r = run_simulation(sc, sc.policies.front(), sc.seed);
      EXPECT_EQ(r.engine.hooked, c.scenario == "configs/cache.json") << c.scenario;
    }
  }
  // Both copies are exercised by the shipped scenarios (counts of (scenario, policy) runs).
  EXPECT_GE(bare, 40u);
  EXPECT_GE(hooked, 40u);
  std::printf("request path: %zu bare runs compared with the hooked copy, %zu hooked runs\n", bare, hooked);
}

TEST(GoldenScenarioTable, ListsEveryShippedScenario) {
  std::set<std::string> listed;
  for (const auto& c : shipped_cases()) listed.insert(c.scenario);
  for (const char* dir : {"configs", "configs/incidents"})
    for (const auto& e : fs::directory_iterator(kSource / dir)) {
      if (e.path().extension() != ".json") continue;
      const std::string rel = fs::path(e.path()).lexically_relative(kSource).string();
      EXPECT_TRUE(listed.count(rel)) << rel << " is not in tests/golden/scenarios.txt";
    }
}

// Every line of tests/golden/mechanisms.txt has its scenario file and both goldens; every
// scenario file and golden in tests/golden/mechanisms/ is listed once.
TEST(GoldenMechanismTable, EveryListedScenarioHasItsFileAndGoldens) {
  const auto cases = mechanism_cases();
  ASSERT_GE(cases.size(), 40u) << "tests/golden/mechanisms.txt lost its lines";
  std::set<std::string> listed;
  for (const auto& c : cases) {
    EXPECT_TRUE(listed.insert(c.name).second) << c.name << " is listed twice";
    for (const fs::path& f : {fs::path(c.scenario), c.golden, fs::path(c.golden).replace_extension(".digest")})
      EXPECT_TRUE(fs::is_regular_file(kSource / f)) << "missing " << f << " (listed in tests/golden/mechanisms.txt)";
  }
  for (const fs::path& dir : {kMechanisms, kMechanisms / "out"})
    for (const auto& e : fs::directory_iterator(kSource / dir)) {
      if (!e.is_regular_file()) continue;
      EXPECT_TRUE(listed.count(e.path().stem().string()))
          << fs::path(e.path()).lexically_relative(kSource) << " is not in tests/golden/mechanisms.txt";
    }
}

}  // namespace
}  // namespace lbsim

namespace lbsim {
namespace {

TEST(EventDigest, BracketsTheFirstEventWhereTwoSequencesPart) {
  EventDigest a, b;
  for (std::uint64_t i = 0; i < 3 * EventDigest::kCheckpointEvery + 10; ++i) {
    const EventDigest::Entry e{static_cast<SimTime>(i * 10), i, "replica_done", 7u};
    a.add(e);
    // b pops another slot at event 5000: the checkpoints agree up to 4096 and part after.
    b.add(i == 5000 ? EventDigest::Entry{e.at, i, "replica_done", 8u} : e);
  }
  EXPECT_EQ(a.events, b.events);
  EXPECT_NE(a.hash, b.hash);
  ASSERT_EQ(a.checkpoints.size(), 3u);
  EXPECT_EQ(a.checkpoints[0], b.checkpoints[0]);
  EXPECT_NE(a.checkpoints[1], b.checkpoints[1]);
  EXPECT_EQ(first_divergence(a.line(), b.line()), std::optional<std::uint64_t>(EventDigest::kCheckpointEvery));
  EXPECT_EQ(first_divergence(a.line(), a.line()), std::nullopt);
  // Another kind name at the same time, sequence number and slot is another digest.
  EventDigest k1, k2;
  k1.add({5, 1, "snitch.update", 0});
  k2.add({5, 1, "snitch.reset", 0});
  EXPECT_NE(k1.hash, k2.hash);
  // Tracing that bracket names the event itself.
  EventDigest t;
  t.trace_from = 4096;
  t.trace_to = 8192;
  for (std::uint64_t i = 0; i < 6000; ++i) t.add({static_cast<SimTime>(i * 10), i, "replica_done", 7u});
  ASSERT_EQ(t.traced.size(), 6000u - 4096u);
  EXPECT_EQ(describe_event(t.traced[5000 - 4096]), "t=50000 ns seq=5000 kind=replica_done slot=7");
}

TEST(EventDigest, CountsEachStreamsDrawsAndNamesTheFirstThatDiffers) {
  Rng r = Rng(42).fork("service");
  EXPECT_EQ(r.draws_since_seed(), 0);
  for (int i = 0; i < 1234; ++i) r.next_u64();
  EXPECT_EQ(r.draws_since_seed(), 1234);
  EXPECT_EQ(r.draws_since_seed(1000), -1);  // past the cap
  EXPECT_EQ(first_draws_difference("network=5 service=7", "network=5 service=8"), "service: was 7, now 8");
  EXPECT_EQ(first_draws_difference("network=5 service=7", "network=5"), "service: was 7, now absent");
  EXPECT_EQ(first_draws_difference("network=5", "network=5"), "");
}

TEST(EventDigest, ChangesNoReportAndCountsEveryEvent) {
  const Scenario sc = testing::build(testing::cluster_doc(6, 16, 5000));
  for (const auto& p : sc.policies) {
    EventDigest d;
    RunOptions with;
    with.digest = &d;
    const RunResult r = run_simulation(sc, p, 3, with);
    EXPECT_EQ(report_json_stable(r).dump(), report_json_stable(run_simulation(sc, p, 3)).dump()) << p.name;
    EXPECT_EQ(d.events, r.engine.events) << p.name;
    EXPECT_EQ(d.checkpoints.size(), d.events / EventDigest::kCheckpointEvery) << p.name;
    // Every operation drew from the workload and service streams.
    std::int64_t workload = -1, service = -1;
    for (const auto& [name, n] : d.draws) {
      if (name == "workload") workload = n;
      if (name == "service") service = n;
    }
    EXPECT_GE(workload, 5000) << p.name;
    EXPECT_GE(service, 5000) << p.name;
  }
}

}  // namespace
}  // namespace lbsim
