// The Java driver 3.x PercentileTracker behind PercentileSpeculativeExecutionPolicy
// (speculative.kind = "percentile"), as datastax/java-driver 3.x implements it (read at
// apache/cassandra-java-driver driver-core/src/main/java/com/datastax/driver/core/
// PercentileTracker.java, commit 350769fd, PerHostPercentileTracker.java and
// ClusterWidePercentileTracker.java; the policy at scylladb/java-driver
// driver-core/.../policies/PercentileSpeculativeExecutionPolicy.java, commit a2d0a7cd, and how
// RequestHandler.java (commit 0c70e223) asks it: SpeculativeExecution.query calls
// nextExecution(host) once per execution, scheduleExecution returns on a negative delay and starts
// the next execution at once on 0; onSet / onException / onTimeout report every latency):
//  - a latency is recorded in whole milliseconds (NANOSECONDS.toMillis truncates: a 0.9 ms answer
//    records 0) under a key: the host (per host) or the cluster (cluster-wide); a value above
//    highestTrackableLatencyMillis is dropped with a warning;
//  - each key has a live recorder and a cached histogram with its timestamp; the cache entry is
//    created, empty, when the key records its first value. A query reads the cache while it is
//    younger than the interval (default 5 minutes); an older one is replaced, on that query, by
//    everything the recorder took since the last swap, and the recorder starts again;
//  - the latency at the percentile is -1 (no speculation) without a cached histogram or when it
//    holds fewer than minRecordedValues (default 1000), else HdrHistogram's getValueAtPercentile.
// HdrHistogram with 3 significant digits (the builder's default; lbsim fixes it) keeps every
// value below 2048 exactly and above that buckets of 2^(m-10) for values in [2^m, 2^(m+1));
// getValueAtPercentile returns the highest value equivalent to the bucket where the cumulative
// count first reaches ceil(p / 100 x total) (HdrHistogram 2.1.10 and later; earlier releases
// rounded the count to nearest, which differs by at most one value).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"

namespace lbsim {

class PercentileTracker {
 public:
  // keys: hosts (per host) or 1 (cluster-wide); the caller maps a host to its key.
  PercentileTracker(std::size_t keys, double percentile, std::uint32_t min_recorded, SimTime interval,
                    std::int64_t highest_ms)
      : keys_(keys), percentile_(percentile), min_recorded_(min_recorded), interval_(interval), highest_ms_(highest_ms),
        buckets_(index_of(highest_ms) + 1) {}

  // HdrHistogram's counts index of a value (3 significant digits, unit 1).
  static std::size_t index_of(std::int64_t v) {
    if (v < 2048) return static_cast<std::size_t>(v);
    int m = 63 - __builtin_clzll(static_cast<unsigned long long>(v));  // 2^m <= v < 2^(m+1), m >= 11
    const std::int64_t sub = v >> (m - 10);                              // in [1024, 2048)
    return 2048 + static_cast<std::size_t>(m - 11) * 1024 + static_cast<std::size_t>(sub - 1024);
  }
  // The highest value that falls in counts index i (HdrHistogram highestEquivalentValue).
  static std::int64_t highest_of(std::size_t i) {
    if (i < 2048) return static_cast<std::int64_t>(i);
    const std::size_t k = (i - 2048) / 1024;  // magnitude m = 11 + k
    const std::int64_t sub = 1024 + static_cast<std::int64_t>((i - 2048) % 1024);
    const int shift = static_cast<int>(k) + 1;
    return ((sub + 1) << shift) - 1;
  }

  // A finished execution's latency on `key` at time `now`.
  void record(std::size_t key, SimTime now, SimTime latency) {
    const std::int64_t ms = latency / kMs;
    if (key >= keys_.size() || ms < 0 || ms > highest_ms_) return;
    Key& k = keys_[key];
    if (!k.started) {  // getRecorder: the recorder and an empty cache entry stamped now
      k.started = true;
      k.stamp = now;
      k.counts.assign(buckets_, 0);
    }
    ++k.counts[index_of(ms)];
    ++k.total;
  }

  // The delay before the next execution, in whole ms, for a query to `key` at `now`; -1 when the
  // tracker has no statistics for it yet (getLatencyAtPercentile).
  std::int64_t delay_ms(std::size_t key, SimTime now) {
    if (key >= keys_.size()) return -1;
    Key& k = keys_[key];
    if (!k.started) return -1;
    if (now - k.stamp >= interval_) {  // the cache is stale: swap in the recorder's interval
      k.stamp = now;
      k.value = k.total < min_recorded_ ? -1 : value_at_percentile(k);
      k.counts.assign(buckets_, 0);
      k.total = 0;
      ++swaps_;
    }
    return k.value;
  }

  std::uint64_t swaps() const { return swaps_; }

 private:
  struct Key {
    bool started = false;
    SimTime stamp = 0;
    std::int64_t value = -1;  // the cached histogram's value at the percentile, or -1
    std::uint64_t total = 0;
    std::vector<std::uint32_t> counts;  // the live recorder
  };
  std::int64_t value_at_percentile(const Key& k) const {
    const double p = std::nextafter(percentile_, -1.0);  // one ulp less, as HdrHistogram
    auto want = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(k.total)));
    if (want < 1) want = 1;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < k.counts.size(); ++i) {
      seen += k.counts[i];
      if (seen >= want) return percentile_ == 0.0 ? lowest_of(i) : highest_of(i);
    }
    return 0;
  }
  static std::int64_t lowest_of(std::size_t i) {
    if (i < 2048) return static_cast<std::int64_t>(i);
    const std::size_t k = (i - 2048) / 1024;
    return (1024 + static_cast<std::int64_t>((i - 2048) % 1024)) << (k + 1);
  }
  std::vector<Key> keys_;
  double percentile_;
  std::uint32_t min_recorded_;
  SimTime interval_;
  std::int64_t highest_ms_;
  std::size_t buckets_;
  std::uint64_t swaps_ = 0;
};

}  // namespace lbsim
