// `lbsim serve` in the test's own process (tests/serve_*_test.cpp): the server runs in a thread on
// its own loopback addresses and port, so that tests of several processes do not meet, and stops
// when the test is done with it.
#pragma once
#include <atomic>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/config/scenario.hpp"
#include "sim/serve/server.hpp"

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

}  // namespace lbsim::testing
