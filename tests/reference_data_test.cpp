// The reference data in tests/data/ against the code and the scenario that use it:
// - seed-cassandra-stress.json (scylladb/java-driver PR #427's two cassandra-stress runs) against
//   configs/seed-shared-rng.json, which models them, and against the Results: block sample;
// - cassandra-stress-results-block.txt (the block StressMetrics.summarise() prints) against
//   print_results_block's layout: the same lines in the same order, minus the five GC lines, with
//   the same labels, the values in the same columns and the same units.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/report_text.hpp"
#include "sim_test_util.hpp"
#include "test_files.hpp"

namespace lbsim::reference_data_test {

namespace fs = std::filesystem;
using testing_files::slurp;

const fs::path kSource = LBSIM_SOURCE_DIR;

// The sample's output lines (the notes starting with '#' dropped).
std::vector<std::string> sample_lines() {
  std::istringstream in(slurp(kSource / "tests" / "data" / "cassandra-stress-results-block.txt"));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

// "28,232" -> 28232.
long long ungrouped(const std::string& s) {
  std::string digits;
  for (const char c : s)
    if (c != ',') digits += c;
  return std::stoll(digits);
}

// The first field after the colon of the sample line that starts with `label`.
std::string sample_value(const std::vector<std::string>& lines, const std::string& label) {
  for (const auto& l : lines)
    if (l.rfind(label, 0) == 0) {
      std::istringstream f(l.substr(l.find(':') + 1));
      std::string v;
      f >> v;
      return v;
    }
  ADD_FAILURE() << "no line " << label;
  return "0";
}

TEST(ReferenceData, SeedScenarioMatchesTheMeasuredRunsOfJavaDriverPr427) {
  const auto seed = nlohmann::json::parse(slurp(kSource / "tests" / "data" / "seed-cassandra-stress.json"));
  const auto sc = nlohmann::json::parse(slurp(kSource / "configs" / "seed-shared-rng.json"));
  const auto& before = seed["runs"]["before_shared_random"];
  const auto& after = seed["runs"]["after_thread_local_random"];
  // The scenario writes as many partitions as each measured run, one key each.
  EXPECT_EQ(sc["workload"]["ops"].get<long long>(), before["total_partitions"].get<long long>());
  EXPECT_EQ(sc["workload"]["ops"].get<long long>(), after["total_partitions"].get<long long>());
  EXPECT_EQ(sc["workload"]["keys"]["count"].get<long long>(), after["total_partitions"].get<long long>());
  // The +8.2 % that the scenario's description quotes is the runs' op-rate ratio.
  const double gain = 100 * (after["op_rate"].get<double>() / before["op_rate"].get<double>() - 1);
  EXPECT_NEAR(gain, 8.2, 0.05);
  EXPECT_NE(sc["description"].get<std::string>().find("+8.2 %"), std::string::npos);
  // The Results: sample is the "after" run.
  const auto lines = sample_lines();
  EXPECT_EQ(ungrouped(sample_value(lines, "Op rate")), after["op_rate"].get<long long>());
  EXPECT_EQ(ungrouped(sample_value(lines, "Total partitions")), after["total_partitions"].get<long long>());
  EXPECT_EQ(std::stod(sample_value(lines, "Latency 99th percentile")), after["latency_p99"].get<double>());
  EXPECT_EQ(sample_value(lines, "Total operation time"), "00:00:39");
  EXPECT_EQ(after["total_operation_time"].get<int>(), 39);
}

// A line's layout: label, colon column, the column of the per-op bracket (npos: none), the words
// between the value and the bracket (the unit), and the bracket's opening up to its first value.
struct Shape {
  std::string label;
  std::size_t colon = std::string::npos, bracket = std::string::npos;
  std::string unit, bracket_head;
};

Shape shape(const std::string& line) {
  Shape s;
  s.colon = line.find(':');
  if (s.colon == std::string::npos) return s;
  s.label = line.substr(0, s.colon);
  s.bracket = line.find('[');
  std::istringstream words(line.substr(s.colon + 1, s.bracket == std::string::npos ? std::string::npos
                                                                                     : s.bracket - s.colon - 1));
  std::string w;
  words >> w;  // the value
  while (words >> w) s.unit += (s.unit.empty() ? "" : " ") + w;
  if (s.bracket != std::string::npos) s.bracket_head = line.substr(s.bracket, line.find(' ', s.bracket) - s.bracket);
  return s;
}

TEST(ReferenceData, ResultsBlockHasCassandraStressLayoutWithoutTheGcLines) {
  std::vector<std::string> expected;
  for (const auto& l : sample_lines())
    if (l.find(" GC ") == std::string::npos) expected.push_back(l);
  ASSERT_EQ(expected.size(), 13u);  // Results: + 12 lines; the sample has 5 GC lines more

  // A small write-only run (M/M/1 at rho 0.5): its figures fit the widths of the sample's.
  const Scenario sc = testing::build(testing::queue_doc(5000, 100, 20000));
  const RunResult r = testing::run_first(sc);
  std::ostringstream out;
  print_results_block(out, r);
  std::vector<std::string> got;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) got.push_back(line);

  ASSERT_EQ(got.size(), expected.size()) << out.str();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Shape e = shape(expected[i]), g = shape(got[i]);
    EXPECT_EQ(g.label, e.label) << got[i];
    EXPECT_EQ(g.colon, e.colon) << got[i];
    EXPECT_EQ(g.bracket, e.bracket) << got[i] << "\n" << expected[i];
    EXPECT_EQ(g.unit, e.unit) << got[i];
    EXPECT_EQ(g.bracket_head, e.bracket_head) << got[i];
  }
}

}  // namespace lbsim::reference_data_test
