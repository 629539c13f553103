// The client machine's CPU: `cores` cores serving CPU bursts in FIFO order, and one shared
// java.util.Random whose seed lives on a single cache line.
//
// A burst is the driver work for one attempt: the per-operation driver cost, the plan cost and
// the plan's random draws. Because bursts are served FIFO and their lengths are known when they
// are submitted, the start and end of each burst follow from the recursion
// start = max(submit, earliest free core) (exact for a FIFO G/G/c queue), so the CPU costs no
// events.
//
// Random draws (policy::PlanRandom counts them by the generator they model):
// - thread-local draws cost `draw_ns` each, added to the burst;
// - shared draws are serialized on the generator: a thread first waits until the generator is
//   free (spinning: its core stays busy), then holds it for k draws of
//   draw_ns + contention_ns x n each. n, the contending threads, is the number of other cores
//   running driver code at that moment (they all call the same Random, so its cache line bounces
//   between them and compare-and-swap attempts fail and retry); with unlimited cores it is the
//   number of other threads inside the generator. With a single thread n is always 0, so both
//   generators cost the same; n grows with the thread count until every core is busy, and at
//   saturation every nanosecond spent spinning is a nanosecond of lost client capacity.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/client/client_spec.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

class ClientCpu {
 public:
  explicit ClientCpu(const ClientSpec& spec);

  // Submits a burst of `work` ns plus the given draws at `now`; returns when it ends.
  SimTime run(SimTime now, SimTime work, std::uint32_t shared_draws, std::uint32_t thread_local_draws);

  SimTime busy() const { return busy_; }            // total core time used (spinning included)
  SimTime shared_rng_time() const { return rng_time_; }  // core time waiting for or holding it
  std::uint32_t cores() const { return static_cast<std::uint32_t>(core_free_.size()); }

 private:
  const ClientSpec* spec_;
  std::vector<SimTime> core_free_;    // empty = unlimited cores
  SimTime rng_free_ = 0;
  std::vector<SimTime> rng_windows_;  // ends of shared-generator windows not yet over (FIFO ring)
  std::size_t rng_head_ = 0;
  SimTime busy_ = 0;
  SimTime rng_time_ = 0;
};

}  // namespace lbsim
