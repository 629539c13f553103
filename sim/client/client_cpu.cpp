#include "sim/client/client_cpu.hpp"

#include <algorithm>

namespace lbsim {

ClientCpu::ClientCpu(const ClientSpec& spec) : spec_(&spec), core_free_(spec.cores, 0) {}

SimTime ClientCpu::run(SimTime now, SimTime work, std::uint32_t shared_draws, std::uint32_t thread_local_draws,
                       std::uint32_t thread) {
  const double tl = spec_->thread_local_draw_ns * thread_local_draws;
  if (work <= 0 && shared_draws == 0 && tl <= 0) return now;

  // The lowest-numbered idle core, else the earliest free one (FIFO service order).
  std::size_t core = 0;
  SimTime start = now;
  std::uint64_t owner = 0;
  if (!core_free_.empty()) {
    std::size_t earliest = 0;
    bool idle = false;
    for (std::size_t i = 0; i < core_free_.size(); ++i) {
      if (core_free_[i] <= now) {
        core = i;
        idle = true;
        break;
      }
      if (core_free_[i] < core_free_[earliest]) earliest = i;
    }
    if (!idle) core = earliest;
    start = std::max(now, core_free_[core]);
    owner = core;
  } else {
    owner = thread == kAnyOwner ? (1ull << 32) + anon_++ : thread;
  }

  SimTime t = start;
  if (shared_draws > 0) {
    // Spin until the line is free, then hold it for the draws (and its transfer, if it moved).
    const SimTime begin = std::max(start, rng_free_);
    double hold = spec_->shared_draw_ns * shared_draws;
    if (rng_owner_ != owner) {
      hold += spec_->line_transfer_ns;
      ++transfers_;
    }
    rng_owner_ = owner;
    rng_free_ = begin + static_cast<SimTime>(hold + 0.5);
    rng_time_ += rng_free_ - start;
    t = rng_free_;
  }
  const SimTime end = t + work + static_cast<SimTime>(tl + 0.5);
  busy_ += end - start;
  if (!core_free_.empty()) core_free_[core] = end;
  return end;
}

SimTime ClientCpu::busy_until(SimTime t) const {
  SimTime b = busy_;
  // A core works without a gap from its last submission until core_free.
  for (SimTime f : core_free_)
    if (f > t) b -= f - t;
  return b;
}

}  // namespace lbsim
