// Issue 44, points 9 and 10: the tablet table's size as the input (changes.migration.
// table_size_mb) and the count and size each release derives from it, the warning when a table has
// fewer tablets than a DC's shards, the streaming line of a run that ends mid-stream, and the
// warning that streaming costs nothing.
// The cluster is configs/tablets-scale-out.json's: 3 nodes x 7 shards, RF 3, 3 more at 60 s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "sim/config/scenario.hpp"
#include "sim/report/report_text.hpp"
#include "sim_test_util.hpp"

namespace lbsim::table_size_test {

using testing::build;
using testing::run_first;

Scenario scale_out(std::vector<std::string> sets) {
  return load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/tablets-scale-out.json", sets);
}

bool has_warning(const std::vector<std::string>& ws, const std::string& fragment) {
  return std::any_of(ws.begin(), ws.end(), [&](const std::string& w) { return w.find(fragment) != std::string::npos; });
}

// A 64,000 MiB table (the trap's: 500 MiB x lbsim's 128) on 21 shards: 2025.1 creates
// ceil(21 / 3) x 1 = 7 -> 8 tablets and its size rule keeps them (8,000 MiB < 2 x 5 GiB); the
// other rules create 128 of 500 MiB. 650 GiB (665,600 MiB): 2025.1 splits 8 -> 128 (5,200 MiB).
TEST(TableSize, EachReleaseDerivesItsCountAndSizeFromTheTable) {
  struct Case {
    std::string server, tablets;
    double table_mb;
    std::uint64_t count;
  };
  for (const Case& c : {Case{"unspecified", "true", 64000, 128}, Case{"scylla-2025.1", "true", 64000, 8},
                        Case{"scylla-2025.2", "true", 64000, 128}, Case{"scylla-2026.1", "true", 64000, 128},
                        Case{"scylla-2024.1", R"({"initial": 16})", 64000, 16},
                        Case{"scylla-2025.1", "true", 665600, 128}, Case{"scylla-2025.2", "true", 665600, 128}}) {
    const Scenario sc = scale_out({"cluster.server=" + c.server, "keyspace.tablets=" + c.tablets,
                                   "changes.migration.table_size_mb=" + std::to_string(c.table_mb)});
    EXPECT_EQ(sc.tablet_map->count(), c.count) << c.server << " " << c.table_mb;
    EXPECT_EQ(sc.tablet_table_mb, c.table_mb);
  }
  // The run prints it: the table, the release, the count and the size.
  const Scenario sc = scale_out({"cluster.server=scylla-2025.1", "changes.migration.table_size_mb=64000",
                                 "workload.duration_s=2", "client.rate_ops_s=300"});
  const RunResult r = run_first(sc, "random");
  ASSERT_TRUE(r.tablets);
  EXPECT_EQ(r.tablets->count_start, 8u);
  EXPECT_EQ(r.tablets->tablet_mb_start, 8000);
  std::ostringstream out;
  print_run(out, r);
  EXPECT_NE(out.str().find("tablet table: 64,000 MiB (changes.migration.table_size_mb); cluster.server 'scylla-2025.1' "
                           "derives 8 tablets of 8,000 MiB at the start\n"),
            std::string::npos)
      << out.str();
}

TEST(TableSize, FewerTabletsThanShardsIsWarned) {
  const Scenario trap = scale_out({"cluster.server=scylla-2025.1", "changes.migration.table_size_mb=64000"});
  EXPECT_TRUE(has_warning(trap.warnings,
                          "cluster.server 'scylla-2025.1' gives the table 8 tablets of 8000 MiB "
                          "(changes.migration.table_size_mb 64000 over 8) for the 21 shards of 'dc1': fewer tablets "
                          "than shards, so a shard's load is its whole tablets' (1 to 2 replicas per shard at RF 3)"))
      << (trap.warnings.empty() ? "" : trap.warnings.front());
  // 128 tablets on 21 shards: none.
  const Scenario fine = scale_out({"cluster.server=scylla-2025.1", "changes.migration.table_size_mb=665600"});
  EXPECT_FALSE(has_warning(fine.warnings, "fewer tablets than shards"));
}

// The trap's run ended with every node streaming and nothing counted: a stream without a cost
// lasts size / stream_mb_s and its data was added only when it ended. 8,000 MiB at 50 MB/s is
// 160 s; streaming starts 0.4 s after the join (two of scylla-2025.1's five stages of the 1 s
// latency) and the window ends at 80 s, so each stream has sent 19.6 s x 50 MB/s = 980 MB.
TEST(TableSize, TheStreamingLineCountsWhatAnUnfinishedStreamSent) {
  const Scenario sc = scale_out({"cluster.server=scylla-2025.1", "changes.migration.table_size_mb=64000",
                                 "workload.duration_s=80", "client.rate_ops_s=300"});
  const RunResult r = run_first(sc, "random");
  ASSERT_TRUE(r.tablets);
  EXPECT_EQ(r.tablets->migrations_done, 0u);
  double sent = 0, received = 0;
  for (const auto& n : r.nodes) {
    ASSERT_TRUE(n.streaming);
    if (n.streaming->seconds == 0) continue;
    EXPECT_NEAR(n.streaming->seconds, 19.6, 1e-6) << n.id;
    // Whole streams of 980 MB each.
    EXPECT_GT(n.streaming->sent_mb + n.streaming->received_mb, 979.0) << n.id;
    EXPECT_NEAR(std::fmod(n.streaming->sent_mb + n.streaming->received_mb + 1e-6, 980.0), 0.0, 1e-3) << n.id;
    sent += n.streaming->sent_mb;
    received += n.streaming->received_mb;
  }
  EXPECT_NEAR(sent, received, 1e-6);
  EXPECT_NEAR(sent, 980.0 * static_cast<double>(r.tablets->migrations_started), 1e-3);
}

TEST(TableSize, TheOldTabletSizeKeyIsRefusedWithTheTableItMeant) {
  try {
    (void)scale_out({"changes.migration.table_size_mb=null", "changes.migration.tablet_size_mb=500"});
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/changes/migration/tablet_size_mb: is refused"), std::string::npos) << what;
    EXPECT_NE(what.find("\"table_size_mb\": 64000 (500 x 128)"), std::string::npos) << what;
  }
}

// Point 10: no measurement gives streaming's CPU, so a run with migrations and no cost says so.
TEST(StreamingCost, FreeStreamingIsWarnedOnceWithTheKeysThatSetIt) {
  const Scenario sc = scale_out({});
  const std::string want =
      "changes.migration: streaming costs the requests nothing in this run: cpu_send_us_per_mb and "
      "cpu_receive_us_per_mb are 0 (no measurement gives them), and node_stream_mb_s is 0 (unthrottled, ScyllaDB's "
      "default), so a node may send up to 700 MB/s (max_out_per_shard 2 x 7 shards x stream_mb_s 50); set "
      "changes.migration.cpu_send_us_per_mb, cpu_receive_us_per_mb and node_stream_mb_s to give it a cost "
      "(configs/README.md \"changes\")";
  EXPECT_EQ(std::count(sc.warnings.begin(), sc.warnings.end(), want), 1) << ::testing::PrintToString(sc.warnings);
  const Scenario bounded = scale_out({"changes.migration.node_stream_mb_s=200"});
  EXPECT_TRUE(has_warning(bounded.warnings, "and each node's streaming is bounded by node_stream_mb_s (200 MB/s); set"));
  EXPECT_FALSE(has_warning(scale_out({"changes.migration.cpu_send_us_per_mb=100"}).warnings, "costs the requests nothing"));
  EXPECT_FALSE(has_warning(scale_out({"changes=null"}).warnings, "costs the requests nothing"));
}

}  // namespace lbsim::table_size_test
