#include "sim/cli/interrupt.hpp"

#include <csignal>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include "sim/core/exit_cleanup.hpp"

namespace lbsim::cli {
namespace {

// Process-wide by nature: a signal handler can only reach static storage.
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_reported{false};
int g_wake[2] = {-1, -1};  // the handler writes, the watchdog reads

std::mutex g_context_mu;
std::string g_command = "lbsim", g_out_dir;

extern "C" void on_signal(int) {
  if (!g_interrupted.exchange(true)) {
    static const char msg[] = "\nlbsim: interrupted; stopping (finished reports are kept)\n";
    (void)!write(2, msg, sizeof msg - 1);
  }
  const char byte = 1;
  (void)!write(g_wake[1], &byte, 1);
}

[[noreturn]] void end_now() {
  abandon_writes();  // no report is half-written after this, and the folder's lock is released
  if (!g_reported.load()) {
    std::string command, dir;
    {
      std::lock_guard<std::mutex> lock(g_context_mu);
      command = g_command;
      dir = g_out_dir;
    }
    std::error_code ec;
    const std::string line =
        !dir.empty() && std::filesystem::exists(dir, ec)
            ? fmt::format("lbsim {}: interrupted outside a simulation's event loop: stopped at once; the reports in {} "
                          "are complete (one being written was dropped); rerun with --resume to run the missing ones\n",
                          command, dir)
            : fmt::format("lbsim {}: interrupted outside a simulation's event loop: stopped at once; no report was "
                          "written\n",
                          command);
    (void)!write(2, line.data(), line.size());
  }
  _exit(kInterruptedExit);
}

void watchdog() {
  char byte = 0;
  while (read(g_wake[0], &byte, 1) != 1) {
  }
  pollfd p{g_wake[0], POLLIN, 0};
  (void)poll(&p, 1, kInterruptGraceMs);  // a second signal ends the wait
  end_now();
}

}  // namespace

const std::atomic<bool>& install_interrupt_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (pipe2(g_wake, O_CLOEXEC) != 0) return;
    std::thread(watchdog).detach();
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  });
  return g_interrupted;
}

void set_interrupt_context(const std::string& command, const std::string& out_dir) {
  std::lock_guard<std::mutex> lock(g_context_mu);
  g_command = command;
  g_out_dir = out_dir;
}

void interrupt_reported() { g_reported.store(true); }

}  // namespace lbsim::cli
