#include "sim/workload/op_generator.hpp"

#include "sim/cluster/routing_key.hpp"

namespace lbsim {

OpGenerator::OpGenerator(const WorkloadSpec& spec, Rng rng) : spec_(&spec), rng_(rng), keys_(spec.keys) {}

std::uint32_t rows_of(const WorkloadSpec& spec, Token token) {
  if (spec.fat_fraction <= 0) return spec.rows;
  // The token as a fraction of the ring, in [0, 1).
  const double f = static_cast<double>(token_order(token)) * 0x1.0p-64;
  return f < spec.fat_fraction ? spec.fat_rows : spec.rows;
}

bool OpGenerator::next(OpDraw& out) {
  const WorkloadSpec& s = *spec_;
  if (s.trace) {
    // Each generator streams its own reader: runs in parallel share nothing mutable.
    if (produced_ >= s.trace->records) return false;
    if (!trace_) trace_.emplace(open_trace(*s.trace));
    TraceRecord r;
    if (!trace_->next(r)) return false;
    ++produced_;
    out.op = r.op;
    out.cl = r.has_cl ? r.cl : (r.op == OpKind::Read ? s.read_cl : s.write_cl);
    out.routed = r.routed && (s.unrouted_fraction <= 0 || rng_.uniform01() >= s.unrouted_fraction);
    out.token = r.token;
    out.rows = rows_of(s, r.token);
    out.at = r.at;
    return true;
  }
  ++produced_;
  // Fixed draw order: kind, key, routing.
  const double u = rng_.uniform01();
  out.op = u < s.read_fraction ? OpKind::Read : (u < s.read_fraction + s.lwt_fraction ? OpKind::Lwt : OpKind::Write);
  out.cl = out.op == OpKind::Read ? s.read_cl : (out.op == OpKind::Lwt ? s.lwt_cl : s.write_cl);
  out.token = token_of_key_id(keys_.next(rng_));
  out.routed = s.unrouted_fraction <= 0 || rng_.uniform01() >= s.unrouted_fraction;
  out.rows = rows_of(s, out.token);
  out.at = 0;
  return true;
}

}  // namespace lbsim
