// `lbsim fit` (sim/fit/) and `lbsim run --export`: the formats' layouts, the HdrHistogram reader
// against the writer and against a real cassandra-stress log, the fits, the traps, the round trip
// from known service times through every exported format back to the scenario, malformed input,
// and the real samples of tests/data/fit/samples (provenance in tests/data/fit/SOURCES.md).
#include <cmath>
#include <filesystem>
#include <map>
#include <fstream>
#include <random>
#include <tuple>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/fit/fit.hpp"
#include "sim/fit/hlog_reader.hpp"
#include "sim/fit/layouts.hpp"
#include "sim/fit/parsers.hpp"
#include "sim/metrics/hlog.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using testing_files::shell;
using testing_files::slurp;

const fs::path kData = fs::path(LBSIM_SOURCE_DIR) / "tests" / "data" / "fit";

const fit::Sample* find_sample(const fit::Parsed& p, const std::string& metric) {
  for (const auto& s : p.samples)
    if (s.metric == metric) return &s;
  return nullptr;
}

TEST(FitLayouts, ScyllaTimeEstimatedHistogramStartsAt512UsWithFourBucketsPerOctave) {
  // scylladb/scylladb utils/estimated_histogram.hh: "512us, 640us, 768us, 896us, 1024us, 1280us, ... 33554432us".
  const double expected[] = {512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048};
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(fit::scylla_bucket_lower(i), expected[i]) << i;
  EXPECT_EQ(fit::kScyllaBuckets, 65u);
  EXPECT_EQ(fit::scylla_bucket_lower(fit::kScyllaBuckets - 1), 33554432.0);
  EXPECT_EQ(fit::scylla_bucket_of(10), 0u);   // below Min: the first bucket
  EXPECT_EQ(fit::scylla_bucket_of(639), 0u);
  EXPECT_EQ(fit::scylla_bucket_of(640), 1u);
  EXPECT_EQ(fit::scylla_bucket_of(1e9), fit::kScyllaBuckets - 1);
}

TEST(FitLayouts, CassandraOffsetsGrowByOnePointTwo) {
  // apache/cassandra EstimatedHistogram.newOffsets: 1, 2, 3, ..., 8, 10, 12, 14, 17, 20, 24, 29, 35, 42, 50, 60, 72.
  const std::vector<std::int64_t> head = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 17, 20, 24, 29, 35, 42, 50, 60, 72};
  const auto o = fit::cassandra_offsets();
  ASSERT_EQ(o.size(), 164u);
  EXPECT_EQ(std::vector<std::int64_t>(o.begin(), o.begin() + 20), head);
  EXPECT_TRUE(std::find(o.begin(), o.end(), 2759) != o.end());  // a value nodetool printed (scylladb/scylladb#696)
}

TEST(FitHlog, DecodesLbsimsOwnEncodingBucketForBucket) {
  LatencyHistogram h;
  std::mt19937_64 g(3);
  std::lognormal_distribution<double> d(std::log(300e3), 0.6);
  for (int i = 0; i < 20000; ++i) h.record(static_cast<SimTime>(d(g)));
  const auto b = fit::decode_hdr_base64(hlog::base64(hlog::encode_compressed(h)));
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < b.lo.size(); ++i) {
    const auto idx = LatencyHistogram::index_of(b.lo[i]);
    EXPECT_EQ(LatencyHistogram::bucket_low(idx), b.lo[i]);
    EXPECT_EQ(LatencyHistogram::bucket_width(idx), b.hi[i] - b.lo[i]);
    EXPECT_EQ(h.buckets()[idx], b.count[i]);
    n += b.count[i];
  }
  EXPECT_EQ(n, h.count());
}

TEST(FitHlog, RealCassandraStressLogGivesTheFiguresScyllaClusterTestsPublishes) {
  // scylladb/scylla-cluster-tests, TestCassandraStressHDRExporter.test_01_mixed: its exporter turns
  // these two lines into WRITE lat_perc_50 0.62 ms and READ lat_perc_999 36.54 ms.
  const auto file = (kData / "samples" / "cassandra-stress-mixed-rt.hlog").string();
  const auto p = fit::parse_text(file, slurp(file));
  const auto* w = find_sample(p, "Tag=WRITE-rt");
  const auto* r = find_sample(p, "Tag=READ-rt");
  ASSERT_TRUE(w && r);
  EXPECT_EQ(w->role, fit::Role::ClientResponse);
  EXPECT_EQ(w->op, fit::Op::Write);
  EXPECT_NEAR(*fit::bucket_quantile(*w, 0.5), 620, 620 * 0.01);
  EXPECT_NEAR(*fit::bucket_quantile(*r, 0.999), 36540, 36540 * 0.01);
  EXPECT_EQ(w->total(), 8498);
}

TEST(FitMath, LognormalAndGammaRecoverTheirOwnQuantiles) {
  fit::QuantilePoints q;
  const double mu = std::log(250.0), sigma = 0.5;
  for (double p : {0.1, 0.5, 0.9, 0.99}) q.points.push_back({p, std::exp(mu + sigma * fit::normal_quantile(p))});
  const auto ln = fit::fit_lognormal(q);
  EXPECT_NEAR(ln.a, mu, 1e-6);
  EXPECT_NEAR(ln.b, sigma, 1e-6);
  EXPECT_LT(ln.error, 1e-6);
  EXPECT_NEAR(fit::normal_quantile(0.99), 2.3263478740408408, 1e-9);
  fit::QuantilePoints g;
  for (double p : {0.1, 0.25, 0.5, 0.75, 0.9, 0.99}) g.points.push_back({p, 100 * fit::gamma_quantile(2.0, p)});
  const auto ga = fit::fit_gamma(g);
  EXPECT_NEAR(ga.mean_us, 200, 200 * 0.03);  // the shape grid's step is 6 %: the scale absorbs most of it
  EXPECT_LT(ga.error, 0.03);
  EXPECT_LT(ga.error, fit::fit_lognormal(g).error);  // a gamma is told apart from a lognormal
  EXPECT_NEAR(fit::gamma_p(1.0, 1.0), 1 - std::exp(-1.0), 1e-12);  // shape 1: the exponential
}

TEST(FitMath, BimodalHistogramFallsBackToTheEmpiricalTable) {
  fit::Sample s;
  s.file = "bimodal";
  s.metric = "m";
  s.op = fit::Op::Read;
  s.role = fit::Role::Replica;
  // 70 % cache hits around 100 us, 30 % disk reads around 5 ms: no single lognormal or gamma.
  for (double lo = 80; lo < 120; lo += 4) s.lo.push_back(lo), s.hi.push_back(lo + 4), s.count.push_back(700);
  for (double lo = 4000; lo < 6000; lo += 200) s.lo.push_back(lo), s.hi.push_back(lo + 200), s.count.push_back(300);
  fit::Parsed p;
  p.samples.push_back(s);
  const auto doc = fit::fit_fragment({{"bimodal", p}}, {"test"});
  const auto& read = doc["cluster"]["service"]["read"];
  EXPECT_EQ(read["dist"], "empirical");
  EXPECT_NE(doc["provenance"]["cluster.service.read"]["written_as"].get<std::string>().find("empirical"), std::string::npos);
  EXPECT_GT(doc["fits"][0]["lognormal"]["error"].get<double>(), fit::kMaxFitError);
  EXPECT_NEAR(doc["provenance"]["cluster.service.read"]["mean_us"].get<double>(), 0.7 * 100 + 0.3 * 5000, 0.03 * 1570);
}

TEST(FitPrometheus, ScyllaFloorBucketIsCensoredAndNamed) {
  std::string text = "# TYPE scylla_storage_proxy_coordinator_read_latency histogram\n";
  std::uint64_t cum = 0;
  const std::uint64_t per[] = {900, 50, 30, 20};
  for (std::size_t i = 0; i < 4; ++i) {
    cum += per[i];
    text += "scylla_storage_proxy_coordinator_read_latency_bucket{le=\"" + std::to_string(fit::scylla_bucket_lower(i + 1)) +
            "\",shard=\"0\"} " + std::to_string(cum) + "\n";
  }
  text += "scylla_storage_proxy_coordinator_read_latency_count{shard=\"0\"} 1000\n";
  const auto p = fit::parse_text("n1.prom", text);
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_TRUE(p.samples[0].floor_first);
  const auto q = fit::quantile_points(p.samples[0]);
  EXPECT_DOUBLE_EQ(q.floor_share, 0.9);
  EXPECT_FALSE(q.mean_us.has_value());  // censored: no mean from the buckets
  for (const auto& [prob, v] : q.points) EXPECT_GE(prob, 0.9);  // nothing inside the floor bucket
  const auto doc = fit::fit_fragment({{"n1.prom", p}}, {"prometheus"});
  EXPECT_FALSE(doc["cluster"].contains("service"));  // 90 % under the floor: not fitted
  bool said = false;
  for (const auto& w : doc["warnings"]) said |= w.get<std::string>().find("512 us") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(FitPrometheus, MalformedLineNamesFileLineAndFormat) {
  try {
    fit::parse_text("x.prom", "scylla_reactor_utilization{shard=\"0\"} 12\nscylla_reactor_utilization{shard=\"1\"} twelve\n");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "x.prom:2");
    EXPECT_NE(e.message().find("Prometheus text"), std::string::npos);
  }
}

TEST(FitNodetool, PrintedOffsetsAreReadAsBucketMidpointsAndMarkedDecayed) {
  const auto file = (kData / "samples" / "cassandra-proxyhistograms-scylladb-696.txt").string();
  const auto p = fit::parse_text(file, slurp(file));
  const auto* r = find_sample(p, "proxyhistograms Read Latency");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->decayed);
  ASSERT_EQ(r->quantiles.size(), 5u);
  EXPECT_DOUBLE_EQ(r->quantiles[0].second, (2299.0 + 2759.0) / 2);  // 50%: 2759 is the bucket (2299, 2759]
  EXPECT_DOUBLE_EQ(r->quantiles[0].first, 0.5);
  EXPECT_EQ(find_sample(p, "proxyhistograms Range Latency"), nullptr);  // no scenario field for range scans
}

TEST(FitNodetool, TablehistogramsColumnsAreFoundByNameInAnyOrder) {
  // Cassandra 4.x prints Read Latency before Write Latency and SSTables after them.
  const std::string text =
      "ks/t histograms\n"
      "Percentile      Read Latency     Write Latency          SSTables    Partition Size        Cell Count\n"
      "                    (micros)          (micros)                             (bytes)\n"
      "50%                   454.83             35.43              1.00               179                 3\n"
      "99%                  1955.67            126.93              2.00               310                 5\n"
      "Min                    88.15              8.24              0.00                43                 0\n"
      "Max                  4055.27            545.79              3.00               310                 5\n";
  const auto p = fit::parse_text("t.txt", text);
  const auto* r = find_sample(p, "tablehistograms Read Latency");
  const auto* w = find_sample(p, "tablehistograms Write Latency");
  ASSERT_TRUE(r && w);
  EXPECT_EQ(r->role, fit::Role::Replica);
  EXPECT_DOUBLE_EQ(r->quantiles[1].second, 1955.67);  // not an offset: taken as printed
  EXPECT_DOUBLE_EQ(w->quantiles[0].second, 35.43);
  const auto doc = fit::fit_fragment({{"t.txt", p}}, {"tablehistograms"});
  EXPECT_EQ(doc["observed"]["sstables_per_read"]["p99"].get<double>(), 2);
}

TEST(FitNodetool, TpstatsNewFormatReadsQueueWaits) {
  const auto file = (kData / "samples" / "cassandra-tpstats-axonops-doc.txt").string();
  const auto p = fit::parse_text(file, slurp(file));
  std::map<std::string, double> o;
  for (const auto& x : p.observations) o[x.metric] = x.value;
  EXPECT_EQ(o.at("tpstats ReadStage completed"), 1234567);
  EXPECT_EQ(o.at("tpstats dropped READ"), 0);
  EXPECT_EQ(o.at("tpstats queue wait 99% READ"), 1234);
  EXPECT_EQ(o.at("tpstats queue wait Max MUTATION"), 2345);
}

TEST(FitNodetool, InfoCacheLines) {
  const auto file = (kData / "samples" / "cassandra-info-datastax-3.0.txt").string();
  const auto p = fit::parse_text(file, slurp(file));
  std::map<std::string, double> o;
  for (const auto& x : p.observations) o[x.metric] = x.value;
  EXPECT_EQ(o.at("Key Cache recent hit rate"), 0.912);
  EXPECT_EQ(o.at("Key Cache capacity bytes"), 103809024);
  EXPECT_EQ(o.at("Counter Cache capacity bytes"), 51380224);
  const auto doc = fit::fit_fragment({{file, p}}, {"info"});
  EXPECT_DOUBLE_EQ(doc["observed"]["cache"]["Key Cache"]["hit_rate"].get<double>(), 0.912);  // 93 hits / 102 requests
  EXPECT_EQ(doc["observed"]["cache"]["Key Cache"]["capacity_bytes"].get<double>(), 103809024);
}

TEST(FitNodetool, SstablesPerReadAndScyllaCacheAreObserved) {
  const auto file = (kData / "samples" / "scylla-cfhistograms-scylladb-789.txt").string();
  const auto doc = fit::fit_fragment({{file, fit::parse_text(file, slurp(file))}}, {"tablehistograms"});
  EXPECT_EQ(doc["observed"]["sstables_per_read"]["p99"].get<double>(), 0);
  const auto p = fit::parse_text("n1.prom", "scylla_cache_row_hits{shard=\"0\"} 900\nscylla_cache_row_hits{shard=\"1\"} 600\n"
                                            "scylla_cache_row_misses{shard=\"0\"} 500\nscylla_cache_bytes_total{shard=\"0\"} 1e9\n");
  const auto d2 = fit::fit_fragment({{"n1.prom", p}}, {"prometheus"});
  EXPECT_DOUBLE_EQ(d2["observed"]["cache"]["scylla row cache"]["hit_rate"].get<double>(), 0.75);
  EXPECT_EQ(d2["observed"]["cache"]["scylla row cache"]["capacity_bytes"].get<double>(), 1e9);
}

TEST(FitSamples, EveryRealSampleParsesAndItsLatenciesFit) {
  std::size_t files = 0, fitted = 0;
  for (const auto& e : fs::directory_iterator(kData / "samples")) {
    const auto file = e.path().string();
    SCOPED_TRACE(file);
    fit::Parsed p;
    ASSERT_NO_THROW(p = fit::parse_text(file, slurp(file)));
    EXPECT_FALSE(p.samples.empty() && p.observations.empty());
    ++files;
    for (const auto& s : p.samples) {
      const auto q = fit::quantile_points(s);
      const auto ln = fit::fit_lognormal(q);
      ASSERT_EQ(ln.family, "lognormal") << s.metric;
      EXPECT_TRUE(std::isfinite(ln.mean_us) && ln.mean_us > 0) << s.metric;
      ++fitted;
    }
    EXPECT_NO_THROW(fit::fit_fragment({{file, p}}, {fit::detect_format(slurp(file))}));
  }
  EXPECT_EQ(files, 9u);
  EXPECT_EQ(fitted, 10u);
}

TEST(FitPhysics, FragmentBecomesSetAssignments) {
  const auto j = nlohmann::json::parse(
      R"({"format": "lbsim.fit/1", "cluster": {"service": {"read": {"dist": "lognormal", "mean_us": 300, "p99_us": 1200}}, "speed": {"n1": 1.1}}})");
  const auto sets = fit::physics_sets(j, "p.json");
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0], R"(cluster.service.read={"dist":"lognormal","mean_us":300,"p99_us":1200})");
  EXPECT_EQ(sets[1], R"(cluster.speed={"n1":1.1})");
  EXPECT_THROW(fit::physics_sets(nlohmann::json::parse(R"({"cluster": {}})"), "p.json"), ConfigError);
  EXPECT_THROW(fit::physics_sets(nlohmann::json::parse(R"({"format": "lbsim.fit/1", "cluster": {"network": 1}})"), "p.json"),
               ConfigError);
}

std::string hlog_line(const std::string& tag, const LatencyHistogram& h) {
  return "Tag=" + tag + ",0.000,1.000,1.000," + hlog::base64(hlog::encode_compressed(h)) + "\n";
}
LatencyHistogram lognormal_histogram(double mean_ns, double sigma, int n, std::uint64_t seed) {
  LatencyHistogram h;
  std::mt19937_64 g(seed);
  std::lognormal_distribution<double> d(std::log(mean_ns) - sigma * sigma / 2, sigma);
  for (int i = 0; i < n; ++i) h.record(static_cast<SimTime>(d(g)));
  return h;
}

TEST(FitHlog, LoadGeneratorTagsMeanWhatTheirToolsSay) {
  const auto h = lognormal_histogram(400e3, 0.5, 2000, 1);
  std::string text = "#[Histogram log format version 1.3]\n";
  for (const char* t : {"raw", "co-fixed", "fn--read_row", "WRITE-wt", "custom"}) text += hlog_line(t, h);
  const auto p = fit::parse_text("gen.hlog", text);
  ASSERT_EQ(p.samples.size(), 5u);
  EXPECT_EQ(find_sample(p, "Tag=raw")->role, fit::Role::ClientService);          // scylla-bench, uncorrected
  EXPECT_EQ(find_sample(p, "Tag=co-fixed")->role, fit::Role::ClientResponse);    // scylla-bench, CO-fixed
  EXPECT_EQ(find_sample(p, "Tag=fn--read_row")->role, fit::Role::ClientService); // latte
  EXPECT_EQ(find_sample(p, "Tag=fn--read_row")->op, fit::Op::Read);
  EXPECT_EQ(find_sample(p, "Tag=WRITE-wt")->role, fit::Role::ClientWait);
  ASSERT_EQ(p.notes.size(), 1u);  // "custom" is named as unknown
  EXPECT_NE(p.notes[0].find("custom"), std::string::npos);
}

TEST(FitChecks, ResponseTimeAboveServiceTimeIsCoordinatedOmission) {
  // Service times of mean 400 us; response times with a 5 % tail that waited 20 ms to start.
  const auto st = lognormal_histogram(400e3, 0.5, 20000, 2);
  LatencyHistogram rt = st;
  for (int i = 0; i < 1000; ++i) rt.record(20'000'000 + i * 1000);
  const std::string text = hlog_line("READ-st", st) + hlog_line("READ-rt", rt);
  const auto doc = fit::fit_fragment({{"cs.hlog", fit::parse_text("cs.hlog", text)}}, {"hlog"});
  ASSERT_EQ(doc["checks"]["coordinated_omission"].size(), 1u);
  EXPECT_GT(doc["checks"]["coordinated_omission"][0]["p99_ratio"].get<double>(), 10);
  EXPECT_EQ(doc["provenance"]["cluster.service.read"]["metric"], "Tag=READ-st");  // the service time, not -rt
  EXPECT_NEAR(doc["provenance"]["cluster.service.read"]["mean_us"].get<double>(), 400, 400 * 0.05);
}

TEST(FitChecks, FloorOnlyReadsTakeTheirMeanFromSchedulerRuntimeAndSkewIsReported) {
  // One node, two shards: every read under 640 us (all in the floor bucket), writes of about 2 ms
  // above it; statement runtime 1,000 ms over 1,000 reads and 400 writes.
  std::string text = "# TYPE scylla_storage_proxy_coordinator_write_latency histogram\n";
  std::uint64_t cum = 0;
  for (std::size_t i = 0; i + 1 < fit::kScyllaBuckets; ++i) {
    const double lo = fit::scylla_bucket_lower(i), hi = fit::scylla_bucket_lower(i + 1);
    const double mid = (lo + hi) / 2;
    cum += static_cast<std::uint64_t>(std::llround(400 * std::exp(-std::pow(std::log(mid / 2000), 2) / (2 * 0.3 * 0.3)) *
                                                   (hi - lo) / mid / (0.3 * std::sqrt(2 * M_PI))));
    text += "scylla_storage_proxy_coordinator_write_latency_bucket{le=\"" + std::to_string(hi) + "\"} " + std::to_string(cum) + "\n";
  }
  text += "scylla_storage_proxy_coordinator_write_latency_count{} " + std::to_string(cum) + "\n";
  text += "scylla_storage_proxy_coordinator_read_latency_bucket{le=\"640.000000\"} 1000\n";
  text += "scylla_storage_proxy_coordinator_read_latency_count{} 1000\n";
  text += "scylla_scheduler_runtime_ms{group=\"statement\",shard=\"0\"} 700\n";
  text += "scylla_scheduler_runtime_ms{group=\"statement\",shard=\"1\"} 300\n";
  text += "scylla_scheduler_runtime_ms{group=\"compaction\",shard=\"1\"} 5000\n";  // background: not counted
  text += "scylla_database_total_reads{shard=\"0\"} 1000\nscylla_database_total_writes{shard=\"0\"} 400\n";
  text += "scylla_reactor_utilization{shard=\"0\"} 70\nscylla_reactor_utilization{shard=\"1\"} 30\n";
  const auto p = fit::parse_text("n1.prom", text);
  const auto doc = fit::fit_fragment({{"n1.prom", p}}, {"prometheus"});
  const double w = doc["provenance"]["cluster.service.write"]["mean_us"].get<double>();
  EXPECT_NEAR(w, 2000 * std::exp(0.3 * 0.3 / 2), 2000 * 0.05);
  const auto& r = doc["cluster"]["service"]["read"];
  EXPECT_EQ(r["dist"], "constant");
  EXPECT_NEAR(r["us"].get<double>(), (1000e3 - 400 * w) / 1000, 0.01);
  EXPECT_NE(doc["provenance"]["cluster.service.read"]["written_as"].get<std::string>().find("mean only"), std::string::npos);
  EXPECT_DOUBLE_EQ(doc["checks"]["shard_skew"][0]["max_over_mean"].get<double>(), 1.4);
  EXPECT_EQ(doc["checks"]["utilization_law"][0]["runtime_ms"].get<double>(), 1000);
}

// The acceptance test of issue 38: known service times (tests/data/fit/roundtrip.json: reads
// lognormal mean 300 us, p99 1,200 us; writes 1,500 / 6,000 us) simulated, exported in every
// format, fitted back.
class FitRoundTrip : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("lbsim-fit-rt-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string lb = LBSIM_BINARY;
    rc_run_ = shell("'" + lb + "' run '" + (kData / "roundtrip.json").string() + "' --quiet --out '" + (dir_ / "res").string() +
                    "' --export '" + (dir_ / "exp").string() + "' >/dev/null 2>&1");
    rc_fit_ = shell("'" + lb + "' fit '" + (dir_ / "exp" / "token-aware").string() + "' -o '" + (dir_ / "physics.json").string() +
                    "' >/dev/null 2>&1");
    if (rc_fit_ == 0) doc_ = nlohmann::json::parse(slurp(dir_ / "physics.json"));
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static const nlohmann::json* fit_of(const std::string& file, const std::string& metric) {
    for (const auto& f : doc_["fits"])
      if (fs::path(f["file"].get<std::string>()).filename() == file && f["metric"] == metric) return &f;
    return nullptr;
  }
  static inline fs::path dir_;
  static inline int rc_run_ = -1, rc_fit_ = -1;
  static inline nlohmann::json doc_;
};

TEST_F(FitRoundTrip, ClientServiceTimeLogRecoversMeansWithin5AndP99Within10Percent) {
  ASSERT_EQ(rc_run_, 0);
  ASSERT_EQ(rc_fit_, 0);
  const auto& read = doc_["provenance"]["cluster.service.read"];
  const auto& write = doc_["provenance"]["cluster.service.write"];
  EXPECT_EQ(read["metric"], "Tag=READ-st");
  EXPECT_NEAR(read["mean_us"].get<double>(), 300, 300 * 0.05);
  EXPECT_NEAR(read["p99_us"].get<double>(), 1200, 1200 * 0.10);
  EXPECT_NEAR(write["mean_us"].get<double>(), 1500, 1500 * 0.05);
  EXPECT_NEAR(write["p99_us"].get<double>(), 6000, 6000 * 0.10);
  EXPECT_EQ(doc_["cluster"]["service"]["read"]["dist"], "lognormal");
  EXPECT_LT(read["fit_error"].get<double>(), fit::kMaxFitError);
}

TEST_F(FitRoundTrip, CassandraFormatsRecoverMeansAndP99s) {
  ASSERT_EQ(rc_fit_, 0);
  // The raw JMX arrays (buckets up to 20 % wide) and nodetool's printed percentiles (midpoints).
  for (const auto& [metric, mean, p99] : std::vector<std::tuple<std::string, double, double>>{
           {"org.apache.cassandra.metrics:type=ClientRequest,scope=Read,name=Latency Values", 300, 1200},
           {"org.apache.cassandra.metrics:type=ClientRequest,scope=Write,name=Latency Values", 1500, 6000}}) {
    const auto* f = fit_of("jmx-clientrequest.txt", metric);
    ASSERT_TRUE(f) << metric;
    EXPECT_NEAR((*f)["lognormal"]["mean_us"].get<double>(), mean, mean * 0.05) << metric;
    EXPECT_NEAR((*f)["lognormal"]["p99_us"].get<double>(), p99, p99 * 0.10) << metric;
  }
  const auto* w = fit_of("proxyhistograms.txt", "proxyhistograms Write Latency");
  ASSERT_TRUE(w);
  EXPECT_NEAR((*w)["lognormal"]["mean_us"].get<double>(), 1500, 1500 * 0.05);
  EXPECT_NEAR((*w)["lognormal"]["p99_us"].get<double>(), 6000, 6000 * 0.10);
}

TEST_F(FitRoundTrip, ScyllaFloorIsStatedAndWritesAboveItAreRecovered) {
  ASSERT_EQ(rc_fit_, 0);
  const auto* r = fit_of("scylla-all.prom", "scylla_storage_proxy_coordinator_read_latency");
  ASSERT_TRUE(r);
  EXPECT_GT((*r)["floor_share"].get<double>(), 0.5);  // reads of mean 300 us: most sit under 640 us
  bool floor_said = false;
  for (const auto& w : doc_["warnings"])
    floor_said |= w.get<std::string>().find("sub-millisecond service cannot be fitted") != std::string::npos;
  EXPECT_TRUE(floor_said);
  const auto* w = fit_of("scylla-all.prom", "scylla_storage_proxy_coordinator_write_latency");
  ASSERT_TRUE(w);
  EXPECT_NEAR((*w)["lognormal"]["p99_us"].get<double>(), 6000, 6000 * 0.10);  // the tail lies above the floor
}

TEST_F(FitRoundTrip, UtilizationLawAgreesAndSpeedsAreOne) {
  ASSERT_EQ(rc_fit_, 0);
  ASSERT_EQ(doc_["checks"]["utilization_law"].size(), 6u);
  for (const auto& n : doc_["checks"]["utilization_law"]) EXPECT_LT(std::abs(n["disagreement"].get<double>()), 0.05) << n;
  for (const auto& [node, s] : doc_["cluster"]["speed"].items()) EXPECT_NEAR(s.get<double>(), 1.0, 0.05) << node;
}

TEST_F(FitRoundTrip, FittingTwiceGivesTheSameBytes) {
  ASSERT_EQ(rc_fit_, 0);
  const std::string lb = LBSIM_BINARY;
  ASSERT_EQ(shell("'" + lb + "' fit '" + (dir_ / "exp" / "token-aware").string() + "' -o '" + (dir_ / "again.json").string() +
                  "' >/dev/null 2>&1"),
            0);
  EXPECT_EQ(slurp(dir_ / "again.json"), slurp(dir_ / "physics.json"));
}

TEST_F(FitRoundTrip, RunAcceptsTheFragment) {
  ASSERT_EQ(rc_fit_, 0);
  const std::string lb = LBSIM_BINARY;
  EXPECT_EQ(shell("'" + lb + "' run '" + (kData / "roundtrip.json").string() + "' --physics '" + (dir_ / "physics.json").string() +
                  "' --set workload.ops=2000 --quiet --out '" + (dir_ / "res2").string() + "' >/dev/null 2>&1"),
            0);
}

TEST(FitCli, MalformedInputExits2NamingFileLineAndFormatAndWritesNothing) {
  const fs::path dir = fs::temp_directory_path() / ("lbsim-fit-bad-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string lb = LBSIM_BINARY;
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"bad.hlog", "#[Histogram log format version 1.3]\nTag=READ-st,0.0,1.0,2.0,HISTFAAAAEV42pNp!!\n", "bad.hlog:2"},
      {"bad.prom", "scylla_reactor_utilization{shard=\"0\"} 12\nscylla_reactor_utilization{shard=\"1\" 3\n", "bad.prom:2"},
      {"bad-proxy.txt", "proxy histograms\nPercentile      Read Latency     Write Latency\n50%   12.0\n", "bad-proxy.txt:3"},
      {"bad-jmx.txt", "#mbean = org.apache.cassandra.metrics:type=ClientRequest,scope=Read,name=Latency\nValues = [ 1, 2 ];\n",
       "bad-jmx.txt:1"},
      {"bad.txt", "hello\n", "bad.txt:1"},
  };
  for (const auto& [name, text, where] : cases) {
    SCOPED_TRACE(name);
    { std::ofstream(dir / name) << text; }
    const int rc = shell("cd '" + dir.string() + "' && '" + lb + "' fit " + name + " -o out.json >stdout 2>stderr");
    EXPECT_EQ(rc, 2);
    const std::string err = slurp(dir / "stderr");
    EXPECT_NE(err.find(where), std::string::npos) << err;
    EXPECT_NE(err.find("expected"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "out.json"));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lbsim
