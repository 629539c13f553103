// The drivers' speculative executions' spec (the scenario's `speculative`; parsed by
// driver_spec_config.cpp into its MechSpecs slot, present only when they are enabled).
#pragma once
#include <cstdint>

#include "sim/core/time.hpp"

namespace lbsim {

// Where a speculative execution takes its host. Plan: the next host of the operation's query plan
// (Java 3.x RequestHandler and 4.x CqlRequestHandler share one plan between executions; gocql since
// apache/cassandra-gocql-driver PR #1531, the fix of issue #1530, 2021). NewPlan: gocql before that
// fix: each speculative execution iterated a host iterator of its own from the policy's Pick, so with
// token awareness it usually started on the same host as the first execution (issue #1530). lbsim
// takes the first usable host of a fresh plan; that execution's own retries go on in the shared plan.
enum class SpecHostSource : std::uint8_t { Plan, NewPlan };
// Constant: ConstantSpeculativeExecutionPolicy (Java 3.x and 4.x, gocql SimpleSpeculativeExecution):
// after `delay` without an answer another execution goes to the next host of the plan, at most
// `max_speculative` extra ones.
// Percentile: Java 3.x PercentileSpeculativeExecutionPolicy(tracker, percentile, max): the delay is
// the tracker's latency at the percentile for the host the execution queries (per host) or for the
// cluster, -1 (no speculation) until the tracker has an interval of at least `min_recorded` values
// (sim/client/percentile_tracker.hpp cites the source). Java 4.x has no percentile policy in the
// driver core (apache/cassandra-java-driver internal/core/specex: Constant and No only).
enum class SpecKind : std::uint8_t { Constant, Percentile };
struct SpeculativeSpec {
  SpecKind kind = SpecKind::Constant;
  SimTime delay = 50 * kMs;
  std::uint32_t max_speculative = 1;
  SpecHostSource host = SpecHostSource::Plan;
  // Percentile only (PercentileTracker.Builder defaults: minRecordedValues 1000, interval 5 min;
  // highestTrackableLatencyMillis has no default, see configs/README.md).
  double percentile = 99.0;
  bool per_host = true;  // PerHostPercentileTracker; false: ClusterWidePercentileTracker
  std::uint32_t min_recorded = 1000;
  SimTime interval = 300 * kSec;
  std::int64_t highest_trackable_ms = 15000;
};

}  // namespace lbsim
