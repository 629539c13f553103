// What `lbsim fit` reads out of a file: latency samples (a bucketed histogram or printed
// percentiles, with where they came from and what they measure) and scalar observations
// (utilization, scheduler runtime, operation counts, cache counters, dropped messages).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lbsim::fit {

enum class Op { Read, Write, Other };
// What a latency measures. ClientService: a load generator's service time (cassandra-stress
// `<OP>-st`, scylla-bench `raw`, latte `fn--`); ClientResponse: response time from the intended
// start (`<OP>-rt`, `co-fixed`), for validation only; ClientWait: `<OP>-wt`; Coordinator: the
// server's whole-request latency (proxyhistograms, scylla_storage_proxy_coordinator_*); Replica:
// one replica's local work (tablehistograms, scylla_column_family_*, JMX Table.*Latency).
enum class Role { ClientService, ClientResponse, ClientWait, Coordinator, Replica };
const char* role_name(Role r);
const char* op_name(Op o);

struct Sample {
  std::string file, metric, node;
  Op op = Op::Other;
  Role role = Role::Coordinator;
  // A bucketed histogram, microseconds: bucket i holds `count[i]` values in [lo[i], hi[i]) (hi may be
  // +inf for an overflow bucket). `floor_first`: the first bucket also holds every value below its
  // lower limit (ScyllaDB's 512 us floor), so quantiles inside it are unknown.
  std::vector<double> lo, hi, count;
  bool floor_first = false;
  // Printed percentiles only (nodetool): (probability in (0, 1), microseconds).
  std::vector<std::pair<double, double>> quantiles;
  bool decayed = false;  // Cassandra's printed percentiles: forward-decayed (see docs/fit.md)
  std::optional<double> mean_us;  // the format's own mean, when exact
  std::string note;               // anything the reader wants said about this sample
  double total() const {
    double t = 0;
    for (double c : count) t += c;
    return t;
  }
};

struct Observation {
  std::string file, metric, node, shard;
  double value = 0;
};

struct Parsed {
  std::vector<Sample> samples;
  std::vector<Observation> observations;
  std::vector<std::string> notes;  // format-level remarks (decayed percentiles, unknown tags, ...)
};

}  // namespace lbsim::fit
