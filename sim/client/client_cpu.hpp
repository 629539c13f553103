// The client machine's CPU: `cores` cores serving CPU bursts in FIFO order, and one shared
// java.util.Random whose seed lives on a single cache line.
//
// A burst is driver work: before a send, the per-operation driver cost, the plan cost and the
// plan's random draws; after a response, its decoding. Because bursts are served FIFO and their
// lengths are known when they are submitted, the start and end of each burst follow from the
// recursion start = max(submit, earliest free core) (exact for a FIFO G/G/c queue), so the CPU
// costs no events. An idle burst takes the lowest-numbered idle core (an OS waking a thread on an
// idle CPU), so a lone thread stays on one core.
//
// Random draws (policy::PlanRandom counts them by the generator they model):
// - thread-local draws cost `thread_local_draw_ns` each, added to the burst;
// - shared draws go through a critical section: the generator's seed is one AtomicLong, one cache
//   line updated by compare-and-swap. A burst's k shared draws hold the line for
//   k x shared_draw_ns, plus line_transfer_ns when another core drew last (the line must move to
//   this core's cache). A burst that finds the line held by another core's draws spins (CAS
//   retries, its core busy) until it is released: that overlap is the contention cost, paid only
//   by cores that draw at the same moment and only for as long as the overlap lasts. Cores that
//   are not drawing pay nothing.
// With a single thread the line never moves, so the two generators differ only by
// shared_draw_ns - thread_local_draw_ns per draw. Two threads drawing in a tight loop alternate
// ownership: each draw then takes 2 x (shared_draw_ns + line_transfer_ns) per thread, which is how
// scripts/dev calibrate derives line_transfer_ns (configs/README.md, "client").
#pragma once
#include <cstdint>
#include <vector>

#include "sim/client/client_spec.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

class ClientCpu {
 public:
  static constexpr std::uint32_t kAnyOwner = 0xffffffffu;  // a burst with no thread identity

  explicit ClientCpu(const ClientSpec& spec);

  // Submits a burst of `work` ns plus the given draws at `now` (never earlier than a previous
  // submission); returns when it ends. `thread` identifies the submitting thread when cores are
  // unlimited (each thread is then its own core); kAnyOwner counts as a core of its own.
  SimTime run(SimTime now, SimTime work, std::uint32_t shared_draws, std::uint32_t thread_local_draws,
              std::uint32_t thread = kAnyOwner);

  // Core time used over [0, t] (spinning included), t >= the last submission: bursts already
  // queued but scheduled after t are left out.
  SimTime busy_until(SimTime t) const;
  SimTime shared_rng_time() const { return rng_time_; }  // core time waiting for or holding the line
  std::uint64_t line_transfers() const { return transfers_; }
  std::uint32_t cores() const { return static_cast<std::uint32_t>(core_free_.size()); }

 private:
  const ClientSpec* spec_;
  std::vector<SimTime> core_free_;  // empty = unlimited cores
  SimTime rng_free_ = 0;            // when the generator's line is released
  std::uint64_t rng_owner_ = ~0ull; // the core (or thread) whose cache holds the line
  std::uint64_t anon_ = 0;          // identities handed to kAnyOwner bursts
  SimTime busy_ = 0;
  SimTime rng_time_ = 0;
  std::uint64_t transfers_ = 0;
};

}  // namespace lbsim
