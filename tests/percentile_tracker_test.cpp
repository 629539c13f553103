// The Java driver 3.x PercentileTracker behind PercentileSpeculativeExecutionPolicy
// (sim/client/percentile_tracker.hpp cites datastax/java-driver 3.x PercentileTracker.java,
// PerHostPercentileTracker.java and ClusterWidePercentileTracker.java): its rules on their own.
// The engine's use of it, the drivers' speculative executions, is tested in sim/mech/driver_spec/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "sim/client/percentile_tracker.hpp"

namespace lbsim {
namespace {

// HdrHistogram with 3 significant digits: exact below 2048, then buckets of 2, 4, 8 ...
TEST(PercentileTracker, HdrHistogramBuckets) {
  EXPECT_EQ(PercentileTracker::index_of(2047), 2047u);
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(2047)), 2047);
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(2048)), 2049);  // [2048, 2049]
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(4097)), 4099);  // [4096, 4099]
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(5000)), 5003);  // [5000, 5003]
  EXPECT_EQ(PercentileTracker::highest_of(PercentileTracker::index_of(12000)), 12007);  // [12000, 12007]
  for (std::int64_t v = 0; v < 20000; v += 7) {
    const std::int64_t hi = PercentileTracker::highest_of(PercentileTracker::index_of(v));
    EXPECT_GE(hi, v);
    EXPECT_LE(static_cast<double>(hi - v), std::max(0.0, static_cast<double>(v) / 1000.0)) << v;  // 3 digits
  }
}

// Statistics only after the first interval, only with min_recorded values, then the percentile
// of the last interval, in whole milliseconds (a 0.9 ms answer records 0).
TEST(PercentileTracker, IntervalsMinimumAndPercentile) {
  PercentileTracker t(2, 99.0, 1000, 1 * kSec, 15000);
  EXPECT_EQ(t.delay_ms(0, 0), -1);  // nothing recorded: no cache entry
  SimTime now = 10 * kMs;
  for (int v = 1; v <= 1000; ++v) t.record(0, now, v * kMs + 999 * kUs);  // 1.999 .. 1000.999 ms record 1 .. 1000
  EXPECT_EQ(t.delay_ms(0, now + 999 * kMs), -1);  // the first interval: no cached histogram yet
  EXPECT_EQ(t.delay_ms(0, now + 1 * kSec), 990);  // ceil(0.99 x 1000) = 990th value
  for (int v = 0; v < 5000; ++v) t.record(0, now + 1 * kSec, 1 * kMs);
  EXPECT_EQ(t.delay_ms(0, now + 1500 * kMs), 990);  // the cache holds until it is an interval old
  EXPECT_EQ(t.delay_ms(0, now + 2 * kSec), 1);      // then the new interval's values only
  EXPECT_EQ(t.delay_ms(1, now + 2 * kSec), -1);     // the other key recorded nothing
  // Fewer than min_recorded in the last interval: no delay.
  for (int v = 0; v < 999; ++v) t.record(1, now, 7 * kMs);
  EXPECT_EQ(t.delay_ms(1, now + 2 * kSec), -1);
  // Sub-millisecond answers record 0: the delay is 0 and the next execution starts at once.
  for (int v = 0; v < 1000; ++v) t.record(1, now + 2 * kSec, 900 * kUs);
  EXPECT_EQ(t.delay_ms(1, now + 4 * kSec), 0);
  // Above highest_trackable_ms: dropped (the recorder's ArrayIndexOutOfBoundsException).
  PercentileTracker h(1, 50.0, 1, 1 * kSec, 100);
  h.record(0, 0, 101 * kMs);
  h.record(0, 0, 50 * kMs);
  EXPECT_EQ(h.delay_ms(0, 1 * kSec), 50);
}

}  // namespace
}  // namespace lbsim
