// The coordinators' speculative retry's spec (cluster.speculative_retry, the table option; parsed
// by spec_retry_config.cpp into its MechSpecs slot, present unless the option is NONE).
//
// For a read, after `threshold` without the answers the CL needs, one extra data read goes to the
// next replica of its proximity-sorted list (scylladb/scylladb service/storage_proxy.cc
// speculating_read_executor; apache/cassandra service/reads/AbstractReadExecutor.java
// SpeculatingReadExecutor). ALWAYS sends it at once (always_speculating_read_executor /
// AlwaysSpeculatingReadExecutor). Defaults of the servers: ScyllaDB '99.0PERCENTILE'
// (schema/schema.hh: PERCENTILE 0.99), Cassandra '99p' (schema/TableParams.java); lbsim's default
// is NONE.
#pragma once
#include <cstdint>
#include <string>

#include "sim/core/time.hpp"

namespace lbsim {

enum class SpecRetryMode : std::uint8_t { None, Always, Fixed, Percentile };

// 'XXpercentile': how the coordinator keeps its threshold, by release (spec_retry.cpp).
// ScyllaLazy: table::get_coordinator_read_latency_percentile (scylladb/scylladb replica/table.cc,
// database.cc in older trees) recomputes it on use when more than 1 s has passed, from the table's
// estimated_coordinator_read histogram (microseconds), truncated to whole ms with a 1 ms floor,
// then multiplies the histogram's counts by 0.9. CassandraPeriodic: the
// SPECULATION_THRESHOLD_UPDATER task (apache/cassandra CassandraDaemon.java,
// scheduleWithFixedDelay every read_request_timeout) calls
// ColumnFamilyStore.updateSpeculationThreshold on the coordinatorReadLatency histogram, a
// DecayingEstimatedHistogramReservoir (forward decay, HALF_TIME_IN_S = 60); the threshold starts at
// read_request_timeout / 2 (ColumnFamilyStore constructor) and keeps its value while the histogram
// is empty. Every cassandra-* release keeps it periodically; the scylla-* releases and the
// unspecified server lazily.
enum class SpecThreshold : std::uint8_t { ScyllaLazy, CassandraPeriodic };

struct SpecRetrySpec {
  SpecRetryMode mode = SpecRetryMode::None;
  SimTime fixed = 0;            // Fixed: the threshold
  double percentile = 99;       // Percentile: 0 < p < 100
  std::string option = "NONE";  // as the scenario gives it (reports)
  SpecThreshold threshold = SpecThreshold::ScyllaLazy;  // the release's rule (Percentile)
};

}  // namespace lbsim
