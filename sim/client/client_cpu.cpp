#include "sim/client/client_cpu.hpp"

#include <algorithm>

namespace lbsim {

ClientCpu::ClientCpu(const ClientSpec& spec) : spec_(&spec), core_free_(spec.cores, 0) {}

SimTime ClientCpu::run(SimTime now, SimTime work, std::uint32_t shared_draws, std::uint32_t thread_local_draws) {
  const auto draw = static_cast<double>(spec_->draw_ns);
  double extra = draw * thread_local_draws;
  if (work <= 0 && shared_draws == 0 && extra <= 0) return now;

  // Pick the earliest free core (FIFO service order = submission order).
  std::size_t core = 0;
  SimTime start = now;
  if (!core_free_.empty()) {
    for (std::size_t i = 1; i < core_free_.size(); ++i)
      if (core_free_[i] < core_free_[core]) core = i;
    start = std::max(now, core_free_[core]);
  }

  SimTime t = start;
  if (shared_draws > 0) {
    // Windows that ended by `start` no longer contend.
    while (rng_head_ < rng_windows_.size() && rng_windows_[rng_head_] <= start) ++rng_head_;
    if (rng_head_ > 1024 && rng_head_ * 2 > rng_windows_.size()) {
      rng_windows_.erase(rng_windows_.begin(), rng_windows_.begin() + static_cast<std::ptrdiff_t>(rng_head_));
      rng_head_ = 0;
    }
    double contenders = static_cast<double>(rng_windows_.size() - rng_head_);
    if (!core_free_.empty()) {
      contenders = 0;
      for (std::size_t i = 0; i < core_free_.size(); ++i)
        if (i != core && core_free_[i] > start) ++contenders;
    }
    const double per_draw = draw + spec_->contention_ns * contenders;
    const SimTime begin = std::max(start, rng_free_);
    rng_free_ = begin + static_cast<SimTime>(per_draw * shared_draws + 0.5);
    rng_windows_.push_back(rng_free_);
    rng_time_ += rng_free_ - start;
    t = rng_free_;
  }
  const SimTime end = t + work + static_cast<SimTime>(extra + 0.5);
  busy_ += end - start;
  if (!core_free_.empty()) core_free_[core] = end;
  return end;
}

}  // namespace lbsim
