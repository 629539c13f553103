// The common part of wrapper policies (policy.hpp: "Policies compose as decorators"): the child,
// and every event forwarded to it. A wrapper that caches what its child says (distances, host
// lists) overrides child_changed(), called after the child has seen on_up, on_down or
// restore_state; one with its own feedback overrides the event and calls Wrapper's.
#pragma once
#include <memory>
#include <utility>

#include "policies/policy.hpp"

namespace lbsim::policy {

class Wrapper : public Policy {
 public:
  explicit Wrapper(std::unique_ptr<Policy> child) : child_(std::move(child)) {}

  void on_up(HostId h) override {
    child_->on_up(h);
    child_changed();
  }
  void on_down(HostId h) override {
    child_->on_down(h);
    child_changed();
  }
  void on_request_sent(HostId h, SimTime now) override { child_->on_request_sent(h, now); }
  void on_response(HostId h, SimTime now, SimTime latency, ResponseKind k) override {
    child_->on_response(h, now, latency, k);
  }
  void restore_state(HostId h, const HostState& s) override {
    child_->restore_state(h, s);
    child_changed();
  }
  bool adaptive() const override { return child_->adaptive(); }
  bool reads_in_flight() const override { return child_->reads_in_flight(); }

 protected:
  virtual void child_changed() {}
  std::unique_ptr<Policy> child_;
};

}  // namespace lbsim::policy
