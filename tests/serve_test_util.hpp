// `lbsim serve` in the test's own process (tests/serve_*_test.cpp): the server runs in a thread on
// its own loopback addresses and port, so that tests of several processes do not meet, and stops
// when the test is done with it.
#pragma once
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/config/scenario.hpp"
#include "sim/serve/server.hpp"
#include "test_files.hpp"

namespace lbsim::testing {

class ServeThread {
 public:
  ServeThread(Scenario sc, const std::string& policy, serve::ServeOptions opt) : sc_(std::move(sc)), opt_(opt) {
    const PolicyEntry* e = policy.empty() ? &sc_.policies.front() : sc_.find_policy(policy);
    std::promise<void> ready;
    auto f = ready.get_future();
    thread_ = std::thread([this, e, ready = std::move(ready)]() mutable {
      try {
        report_ = serve::serve(sc_, *e, sc_.seed, opt_, log_, [this] { return stop_.load(); },
                               [&ready] { ready.set_value(); });
      } catch (...) {
        error_ = std::current_exception();
        try {
          ready.set_value();
        } catch (...) {
        }
      }
    });
    f.wait();
    if (error_) {
      thread_.join();
      std::rethrow_exception(error_);
    }
  }
  ~ServeThread() {
    if (thread_.joinable()) stop();
  }
  // Stops the server (within its 50 ms poll) and returns its report.
  const nlohmann::ordered_json& stop() {
    stop_ = true;
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    return report_;
  }
  std::string log() const { return log_.str(); }

 private:
  Scenario sc_;
  serve::ServeOptions opt_;
  std::ostringstream log_;
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
  nlohmann::ordered_json report_;
  std::thread thread_;
};

// A command's standard output (and what it redirects there).
inline std::string capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

// Why the Python driver's tests cannot run here ("" when Debian's python3-cassandra is there).
inline std::string python_driver_missing() {
  return testing_files::shell("/usr/bin/python3 -c 'import cassandra.cluster' 2>/dev/null") == 0
             ? ""
             : "Debian's python3-cassandra is missing: scripts/deps.sh test installs it";
}

// A Go program of tests/serve/ built against Debian's gocql 1.3.2 in GOPATH mode, offline, into a
// folder of its own (removed with the object). `missing` says why it cannot be built here (Go or
// gocql absent), `error` what the build printed when it failed; `binary` is the program.
struct GoClient {
  std::string missing, error, binary;
  std::filesystem::path work;
  explicit GoClient(const std::string& program) {
    namespace fs = std::filesystem;
    if (testing_files::shell("command -v go > /dev/null 2>&1") != 0 ||
        !fs::exists("/usr/share/gocode/src/github.com/gocql/gocql/session.go")) {
      missing = "golang-go or golang-github-gocql-gocql-dev is missing: scripts/deps.sh test installs them";
      return;
    }
    work = fs::temp_directory_path() / ("lbsim-" + program + "-" + std::to_string(::getpid()));
    fs::create_directories(work);
    binary = (work / program).string();
    // GOPATH mode, offline: Debian's Go packages are the GOPATH; the build cache is the test's.
    const std::string out = capture("cd '" + work.string() + "' && GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE='" +
                                    work.string() + "/cache' GOFLAGS= GOPROXY=off go build -o '" + binary + "' '" +
                                    LBSIM_SOURCE_DIR + "/tests/serve/" + program + ".go' 2>&1 && echo built");
    if (out.find("built") == std::string::npos) error = "go build failed:\n" + out;
  }
  ~GoClient() {
    std::error_code ec;
    if (!work.empty()) std::filesystem::remove_all(work, ec);
  }
};

}  // namespace lbsim::testing
