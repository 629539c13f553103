// The bucket layouts of the histograms that real clusters export, as lbsim's fitter reads them and
// `lbsim run --export` writes them. Facts only; each with its primary source.
//
// ScyllaDB (time_estimated_histogram, microseconds): approx_exponential_histogram<512, 33554432, 4>
//   scylladb/scylladb utils/estimated_histogram.hh (commit 07f5b3da47c7; the type itself now lives in
//   seastar's metrics/internal/estimated_histogram.hh): each power of two from 512 us to 33,554,432 us
//   is split into 4 linear buckets, so the lower limits are 512, 640, 768, 896, 1024, 1280, ...; the
//   first bucket also collects every value below 512 us, the last one everything above Max.
//   Prometheus export (to_metrics_histogram, scylladb/scylladb utils/histogram_metrics_helper.hh before
//   it moved into seastar): bucket i is written with le = the lower limit of bucket i + 1, counts
//   cumulative, so the first line is le="640" and holds every request faster than 640 us; _count
//   includes the overflow bucket; _sum is NOT the sum of the values but sum over buckets of
//   count x upper bound (an overestimate by up to one bucket width, 25 %).
// Cassandra (EstimatedHistogram / DecayingEstimatedHistogramReservoir, microseconds): offsets 1, 2,
//   3, ..., each the previous x 1.2 rounded, +1 when rounding repeats it (apache/cassandra
//   src/java/org/apache/cassandra/utils/EstimatedHistogram.java newOffsets; the same series in
//   scylladb/scylladb utils/estimated_histogram.hh). Bucket i holds (offset[i-1], offset[i]]; one
//   more bucket holds what overflows. The reservoir uses 164 offsets by default (165 buckets;
//   apache/cassandra src/java/org/apache/cassandra/metrics/DecayingEstimatedHistogramReservoir.java
//   DEFAULT_BUCKET_COUNT, with LOW_BUCKET_COUNT 127 and MAX_BUCKET_COUNT 237 in later releases), and
//   nodetool prints a percentile as the offset of the bucket holding it. The same file's forward
//   decay: HALF_TIME_IN_S = 60, landmark reset every 30 minutes; values() returns undecayed counts.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

namespace lbsim::fit {

inline constexpr double kScyllaMinUs = 512;
inline constexpr double kScyllaMaxUs = 33554432;
inline constexpr int kScyllaPrecision = 4;
inline constexpr std::size_t kScyllaBuckets = 16 * kScyllaPrecision + 1;  // log2(Max/Min) x 4 + 1

// Lower limit of ScyllaDB time_estimated_histogram bucket i (0 <= i < kScyllaBuckets).
inline double scylla_bucket_lower(std::size_t i) {
  const double exp_part = kScyllaMinUs * std::ldexp(1.0, static_cast<int>(i / kScyllaPrecision));
  return exp_part + static_cast<double>(i % kScyllaPrecision) * exp_part / kScyllaPrecision;
}
// The bucket a value in microseconds falls in (values below Min in bucket 0, above Max in the last).
inline std::size_t scylla_bucket_of(double us) {
  if (us < scylla_bucket_lower(1)) return 0;
  for (std::size_t i = 1; i + 1 < kScyllaBuckets; ++i)
    if (us < scylla_bucket_lower(i + 1)) return i;
  return kScyllaBuckets - 1;
}

// Cassandra's EstimatedHistogram offsets (n of them; the reservoir's default is 164).
inline std::vector<std::int64_t> cassandra_offsets(std::size_t n = 164) {
  std::vector<std::int64_t> o;
  std::int64_t last = 1;
  o.push_back(last);
  while (o.size() < n) {
    auto next = static_cast<std::int64_t>(std::llround(static_cast<double>(last) * 1.2));
    if (next == last) ++next;
    o.push_back(next);
    last = next;
  }
  return o;
}

}  // namespace lbsim::fit
