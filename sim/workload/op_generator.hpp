// Turns the workload spec into a stream of operations. Operation i depends only on the "workload"
// stream and i, never on the policy or on timing, so every policy replays the same operations in
// the same order (common random numbers). Trace replay streams the records in order from the file
// (sim/workload/trace_reader.hpp).
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/rng.hpp"
#include "sim/workload/trace_reader.hpp"
#include "sim/workload/workload_spec.hpp"

namespace lbsim {

struct OpDraw {
  OpKind op = OpKind::Read;
  ConsistencyLevel cl = ConsistencyLevel::LocalOne;
  bool routed = true;
  Token token = 0;
  std::uint32_t rows = 1;
  SimTime at = 0;  // trace records only: recorded start time
};

class OpGenerator {
 public:
  OpGenerator(const WorkloadSpec& spec, Rng rng);
  // False when a trace is exhausted.
  bool next(OpDraw& out);
  std::uint64_t produced() const { return produced_; }
  const Rng& rng() const { return rng_; }  // the workload's stream (the event digest counts its draws)

 private:
  const WorkloadSpec* spec_;
  Rng rng_;
  KeyGenerator keys_;
  std::uint64_t produced_ = 0;
  std::optional<TraceReader> trace_;  // trace replay: opened at the first operation
};

std::uint32_t rows_of(const WorkloadSpec& spec, Token token);

}  // namespace lbsim
