// Programmatic construction of the wrapper policies around an existing child (tests, benchmarks,
// and any caller that builds a chain without JSON). The registry's factories use these too.
// Both are Java driver 3.x wrappers, defined in policies/java3/token_aware.cpp and
// policies/java3/latency_aware.cpp.
#pragma once
#include <memory>

#include "policies/policy.hpp"

namespace lbsim::policy {

enum class ReplicaOrdering : std::uint8_t { Topological, Random, Neutral };

struct TokenAwareOptions {
  ReplicaOrdering ordering = ReplicaOrdering::Random;  // the 3.x default
  RngModel shuffle_rng = RngModel::Shared;             // Collections.shuffle before PR #427
};
std::unique_ptr<Policy> make_token_aware(std::unique_ptr<Policy> child, TokenAwareOptions opts);

// Java 3.x LatencyAwarePolicy.Builder defaults.
struct LatencyAwareOptions {
  double exclusion_threshold = 2.0;
  SimTime scale = 100 * kMs;
  SimTime retry_period = 10 * kSec;
  SimTime update_rate = 100 * kMs;
  std::int64_t min_measure = 50;
  // false: the minimum is never computed, so no host is ever moved (the C++ driver's port of this
  // policy before CPP-935, apache/cassandra-cpp-driver#502: its update timer was never started).
  bool min_updates = true;
};
std::unique_ptr<Policy> make_latency_aware(std::unique_ptr<Policy> child, LatencyAwareOptions opts);

}  // namespace lbsim::policy
