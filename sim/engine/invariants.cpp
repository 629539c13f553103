// The model's invariants, checked after every event in Debug builds (LBSIM_DEBUG_CHECKS; see
// Simulation::Impl::run). Release builds compile the body out and never call it.
#include "sim/engine/sim_impl.hpp"

namespace lbsim {

void Simulation::Impl::check_invariants([[maybe_unused]] bool full) const {
#if defined(LBSIM_DEBUG_CHECKS) && LBSIM_DEBUG_CHECKS
  LBSIM_DCHECK(finished_ <= issued_ && in_flight_ == issued_ - finished_, "in-flight count != issued - finished");
  LBSIM_DCHECK(completed_ + failed_ == finished_, "an operation ended as neither success nor error");
  LBSIM_DCHECK(ops_.live() >= in_flight_, "fewer operation slots than operations in flight");
  // Each loader counts its own operations; the run's by_op is their sum only from close_window.
  std::uint64_t counted = 0;
  for (const auto& L : loaders_)
    for (const OpStats& s : L->by_op) counted += s.ops + s.error_total();
  LBSIM_DCHECK(measured_ == counted, "the count of measured operations drifted from the loaders' per-kind counts");
  if (!full) return;
  // Every operation in flight holds a slot with a plan and is not done; every alive attempt is
  // counted once by its operation, by its host's in-flight count and by the attempt slab; every
  // replica job is counted once by its coordinator request.
  std::uint64_t open_ops = 0, alive = 0, outstanding = 0;
  for (std::uint32_t i = 0; i < ops_.capacity(); ++i) {
    open_ops += ops_[i].plan != nullptr && !ops_[i].done ? 1 : 0;
    alive += ops_[i].alive;
  }
  LBSIM_DCHECK(open_ops == in_flight_, "in-flight count != operations in flight");
  LBSIM_DCHECK(alive + lingering_ == attempts_.live(), "attempts alive per operation != attempts in flight");
  std::int64_t host_in_flight = 0;
  for (std::size_t l = 0; l < loaders_.size(); ++l) {
    const policy::ClusterView& v = *loaders_[l]->view;
    for (policy::HostId h = 0; h < n_; ++h) {
      LBSIM_DCHECK(v.in_flight(h) >= 0, "a host's in-flight count is negative");
      host_in_flight += v.in_flight(h);
    }
  }
  LBSIM_DCHECK(static_cast<std::uint64_t>(host_in_flight) + pending_sends_.size() == attempts_.live(),
               "per-host in-flight counts plus attempts not yet sent != attempts in flight");
  for (std::uint32_t i = 0; i < crs_.capacity(); ++i) outstanding += crs_[i].outstanding;
  LBSIM_DCHECK(outstanding == jobs_.live(), "replica jobs per coordinator request != replica jobs in flight");
#endif
}

}  // namespace lbsim
