#include "sim/core/exit_cleanup.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

namespace lbsim {
namespace {

// Process-wide by nature: the temporaries of every thread, for the one exit path.
struct Registry {
  std::mutex mu;
  std::set<std::string> temps;
  std::function<void()> cleanup;
};
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

int make_temporary(std::string& name) {
  std::lock_guard<std::mutex> lock(registry().mu);
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) return fd;
  name = buf.data();
  registry().temps.insert(name);
  return fd;
}

bool finish_temporary(const std::string& path, const std::function<bool()>& rename) {
  std::lock_guard<std::mutex> lock(registry().mu);
  const bool ok = rename();
  registry().temps.erase(path);
  return ok;
}

void unregister_temporary(const std::string& path) {
  std::lock_guard<std::mutex> lock(registry().mu);
  registry().temps.erase(path);
}

void abandon_writes() {
  Registry& r = registry();
  r.mu.lock();  // never unlocked: the process is leaving
  for (const auto& t : r.temps) ::unlink(t.c_str());
  r.temps.clear();
  if (r.cleanup) r.cleanup();
}

void set_exit_cleanup(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(registry().mu);
  registry().cleanup = std::move(fn);
}

void pause_point(const char* phase) {
  static const char* const wanted = std::getenv("LBSIM_PAUSE_AT");
  if (wanted == nullptr || std::strcmp(wanted, phase) != 0) return;
  const std::string msg = std::string("lbsim: paused at ") + phase + " (LBSIM_PAUSE_AT)\n";
  (void)!::write(2, msg.data(), msg.size());
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

}  // namespace lbsim
