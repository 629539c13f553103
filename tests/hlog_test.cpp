// HdrHistogram interval logs (`lbsim run --hlog`, sim/metrics/hlog.hpp): the encoding's bytes
// against the V2 format, then a real run's log decoded by the reference implementation (Debian's
// libhdrhistogram-java, which scripts/deps.sh installs; missing Java or the jar is a failure).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/metrics/hlog.hpp"
#include "test_files.hpp"

namespace lbsim::hlog_test {

namespace fs = std::filesystem;
using ::lbsim::testing_files::slurp;
using ::lbsim::testing_files::shell;

std::uint32_t be32(const std::vector<std::uint8_t>& b, std::size_t at) {
  return (std::uint32_t(b[at]) << 24) | (std::uint32_t(b[at + 1]) << 16) | (std::uint32_t(b[at + 2]) << 8) | b[at + 3];
}
std::uint64_t be64(const std::vector<std::uint8_t>& b, std::size_t at) {
  return (std::uint64_t(be32(b, at)) << 32) | be32(b, at + 4);
}

TEST(Hlog, HeaderAndCountsFollowTheV2Encoding) {
  LatencyHistogram h;
  h.record(3);     // index 3
  h.record(3);
  h.record(5);     // index 5: one zero (index 4) between, written as a plain 0
  h.record(300);   // index 256 + (300 - 256) / 2 = 278: a run of 272 zeros before it
  const auto b = hlog::encode(h);
  ASSERT_GE(b.size(), 40u);
  EXPECT_EQ(be32(b, 0), 0x1c849313u);  // V2 cookie with the LEB128/ZigZag word-size nibble
  EXPECT_EQ(be32(b, 4), b.size() - 40);
  EXPECT_EQ(be32(b, 8), 0u);            // normalizing index offset
  EXPECT_EQ(be32(b, 12), 2u);           // significant digits
  EXPECT_EQ(be64(b, 16), 1u);           // lowest discernible value
  EXPECT_EQ(be64(b, 24), 3600ull * 1000000000ull);
  EXPECT_EQ(be64(b, 32), 0x3ff0000000000000ull);  // 1.0
  // Payload: ZigZag(-3) zeros 0..2, 2 at index 3, 0 at index 4, 1 at index 5, ZigZag(-272)
  // zeros 6..277 (two bytes), 1 at index 278.
  const std::vector<std::uint8_t> payload(b.begin() + 40, b.end());
  const std::vector<std::uint8_t> want{5, 4, 0, 2, 0x9f, 0x04, 2};
  EXPECT_EQ(payload, want);
  EXPECT_EQ(LatencyHistogram::index_of(300), 278u);

  const auto c = hlog::encode_compressed(h);
  EXPECT_EQ(be32(c, 0), 0x1c849314u);
  EXPECT_EQ(be32(c, 4), c.size() - 8);
  EXPECT_EQ(c[8], 0x78);  // a zlib stream
  EXPECT_EQ(hlog::base64({'M', 'a', 'n'}), "TWFu");
  EXPECT_EQ(hlog::base64({'M', 'a'}), "TWE=");
  EXPECT_EQ(hlog::base64({'M'}), "TQ==");
}

TEST(Hlog, ReferenceDecoderReadsARunsIntervalsAndPercentiles) {
  const fs::path jar = "/usr/share/java/hdrhistogram.jar";
  ASSERT_TRUE(fs::exists(jar)) << jar << " missing: scripts/deps.sh installs libhdrhistogram-java";
  ASSERT_EQ(shell("command -v javac >/dev/null && command -v java >/dev/null"), 0) << "javac/java not found";
  const fs::path dir = fs::temp_directory_path() / ("lbsim-hlog-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto sc = nlohmann::json::parse(slurp(fs::path(LBSIM_SOURCE_DIR) / "configs/default.json"));
  sc["name"] = "hlog-tiny";
  sc["workload"]["ops"] = 40000;
  sc["workload"]["warmup_ops"] = 2000;
  sc["report"] = {{"timeline_interval_s", 0.05}};
  std::ofstream(dir / "tiny.json") << sc.dump(1);
  const std::string policy = sc["policies"][0]["name"];
  ASSERT_EQ(shell(std::string(LBSIM_BINARY) + " run " + (dir / "tiny.json").string() + " --quiet --hlog --policy " + policy +
               " --out " + dir.string() + " >" + (dir / "run.out").string() + " 2>&1"),
            0)
      << slurp(dir / "run.out");
  const fs::path log = dir / "hlog-tiny" / (policy + ".hlog");
  ASSERT_TRUE(fs::exists(log));
  const auto report = nlohmann::json::parse(slurp(dir / "hlog-tiny" / (policy + ".json")));

  ASSERT_EQ(shell("javac -d " + dir.string() + " -cp " + jar.string() + " " + LBSIM_SOURCE_DIR +
               "/tests/hlog/HlogDump.java 2>" + (dir / "javac.err").string()),
            0)
      << slurp(dir / "javac.err");
  ASSERT_EQ(shell("java -cp " + dir.string() + ":" + jar.string() + " HlogDump " + log.string() + " >" +
               (dir / "dump.txt").string() + " 2>" + (dir / "java.err").string()),
            0)
      << slurp(dir / "java.err");

  const auto& points = report["timeline"]["points"];
  std::istringstream in(slurp(dir / "dump.txt"));
  std::size_t i = 0;
  std::uint64_t total = 0;
  double start, length;
  std::uint64_t count, max, p50, p99, p999;
  int digits;
  const double window = report["simulated_s"]["window"].get<double>();
  while (in >> start >> length >> count >> max >> p50 >> p99 >> p999 >> digits) {
    ASSERT_LT(i, points.size());
    EXPECT_NEAR(start, points[i]["t_s"].get<double>(), 1e-9) << i;
    EXPECT_EQ(count, points[i]["ops"].get<std::uint64_t>()) << i;
    EXPECT_EQ(digits, 2);
    // lbsim reports a bucket's midpoint, HdrHistogram its highest equivalent value: the same
    // bucket is within half a bucket (1/256) of each other.
    const double lbsim_p99_ns = points[i]["p99_ms"].get<double>() * 1e6;
    EXPECT_NEAR(static_cast<double>(p99), lbsim_p99_ns, lbsim_p99_ns / 256 + 1) << i;
    EXPECT_LE(p50, p99);
    EXPECT_LE(p99, p999);
    EXPECT_LE(p999, max);
    // Intervals tile the measurement window; the last one ends with it. The reference reader
    // keeps an interval's start and end as whole milliseconds (a Histogram's timestamps are long
    // ms), so a length may read 1 ms short (0.350 + 0.050 s ending at 399 ms).
    if (i + 1 < points.size()) EXPECT_NEAR(length, 0.05, 1.001e-3) << i;
    else EXPECT_NEAR(start + length, window, 2e-3) << "window " << window;
    total += count;
    ++i;
  }
  EXPECT_EQ(i, points.size()) << slurp(dir / "dump.txt");
  EXPECT_EQ(total, report["ops"]["measured"].get<std::uint64_t>());
  EXPECT_GT(i, 3u);

  // The whole run's max in the log's Interval_Max column (ms) matches the report's; the
  // Interval_Length column is the timeline's interval exactly, but for the last.
  double col_max = 0;
  std::vector<std::string> lengths;
  std::istringstream lines(slurp(log));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#' || line[0] == '"') continue;
    const auto a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    lengths.push_back(line.substr(a + 1, b - a - 1));
    col_max = std::max(col_max, std::stod(line.substr(b + 1, c - b - 1)));
  }
  EXPECT_NEAR(col_max, report["latency_ms"]["max"].get<double>(), 1e-3);
  ASSERT_EQ(lengths.size(), points.size());
  for (std::size_t k = 0; k + 1 < lengths.size(); ++k) EXPECT_EQ(lengths[k], "0.050") << k;

  // `--force` treats the log as one of lbsim's documents: a rerun without --hlog removes it.
  ASSERT_EQ(shell(std::string(LBSIM_BINARY) + " run " + (dir / "tiny.json").string() + " --quiet --force --policy " + policy +
               " --out " + dir.string() + " >/dev/null 2>&1"),
            0);
  EXPECT_FALSE(fs::exists(log));
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace lbsim::hlog_test
