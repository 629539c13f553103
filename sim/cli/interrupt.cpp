#include "sim/cli/interrupt.hpp"

#include <csignal>
#include <unistd.h>

namespace lbsim::cli {
namespace {

// Process-wide by nature: a signal handler can only reach static storage.
std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int) {
  if (g_interrupted.exchange(true)) _exit(kInterruptedExit);
  static const char msg[] = "\nlbsim: interrupted; finishing cleanly (again to quit at once)\n";
  (void)!write(2, msg, sizeof msg - 1);
}

}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;  // a report being written is not cut short by EINTR
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_interrupted;
}

}  // namespace lbsim::cli
