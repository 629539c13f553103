// What the clients ask for: length, warm-up, read/write mix with per-operation consistency, the
// key population, requests without routing key, partition sizes, or a recorded trace.
// Plain data built by the scenario parser (sim/config/scenario_workload.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/cluster/consistency.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/core/time.hpp"
#include "sim/metrics/run_result.hpp"
#include "sim/workload/key_dist.hpp"

namespace lbsim {

struct TraceRecord {
  SimTime at = 0;  // recorded start, from the start of the simulation
  Token token = 0;
  bool routed = true;  // false for an empty key: the driver sees no routing key
  OpKind op = OpKind::Read;
  bool has_cl = false;
  ConsistencyLevel cl = ConsistencyLevel::LocalOne;
};

// A trace file's size and modification time, taken when it was validated: each run re-reads the
// file and refuses one that changed since (sim/workload/trace_reader.hpp).
struct TraceStamp {
  std::uintmax_t bytes = 0;
  std::int64_t mtime = 0;
  bool operator==(const TraceStamp&) const = default;
};

inline constexpr std::size_t kConsistencyLevelCount = static_cast<std::size_t>(ConsistencyLevel::LocalSerial) + 1;

// What the validating pass over a trace learned; the records themselves are never kept (issue 14:
// memory independent of the trace's length). Runs and the analytic model stream the file again.
struct TraceSummary {
  std::string path;  // the file as opened (the scenario's folder joined with trace.file)
  TraceStamp stamp;
  std::uint64_t records = 0;
  std::uint64_t reads = 0;
  // first_cl[0] for reads, [1] for writes: the first record (1-based) that gives each consistency
  // level explicitly, 0 if none does. Enough to report the first record whose level the cluster
  // cannot serve, as checking every record would.
  std::array<std::array<std::uint64_t, kConsistencyLevelCount>, 2> first_cl{};
};

struct WorkloadSpec {
  // Length: exactly one of `ops` (measured operations after the warm-up) or `duration`.
  std::uint64_t ops = 0;
  SimTime duration = 0;
  // Warm-up, excluded from every statistic: a number of finished operations or a time.
  std::uint64_t warmup_ops = 0;
  SimTime warmup = 0;

  double read_fraction = 0.0;  // probability that an operation is a read
  double lwt_fraction = 0.0;   // probability that it is a lightweight transaction (else a write)
  ConsistencyLevel read_cl = ConsistencyLevel::LocalOne;
  ConsistencyLevel write_cl = ConsistencyLevel::LocalOne;
  ConsistencyLevel lwt_cl = ConsistencyLevel::Serial;  // SERIAL or LOCAL_SERIAL
  KeySpec keys;
  double unrouted_fraction = 0.0;  // operations sent without a routing key

  // Rows per partition: `rows` for ordinary keys; a key is "fat" (fat_rows rows) when its token,
  // read as a fraction of the ring, is below fat_fraction (a fixed, seed-independent key set).
  std::uint32_t rows = 1;
  double fat_fraction = 0.0;
  std::uint32_t fat_rows = 100;

  // Trace replay (then `keys`, the mix and unrouted_fraction are unused).
  std::shared_ptr<const TraceSummary> trace;
  std::string trace_file;
  bool trace_open_loop = true;  // replay at the recorded times; false: closed loop, times ignored

  std::uint64_t total_ops() const { return ops + warmup_ops; }  // 0 in duration mode
};

}  // namespace lbsim
