// Ctrl-C and SIGTERM for long commands (run, sweep): the first signal sets a flag that running
// simulations poll (they stop within milliseconds, finished reports are kept); a second signal
// exits at once with status 130.
#pragma once
#include <atomic>

namespace lbsim::cli {

const std::atomic<bool>& install_interrupt_handler();

inline constexpr int kInterruptedExit = 130;

}  // namespace lbsim::cli
