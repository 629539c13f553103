// The Go driver's round-robin host selection policies (scylladb/gocql and apache gocql
// `policies.go`): RoundRobinHostPolicy, DCAwareRoundRobinPolicy and RackAwareRoundRobinPolicy,
// registered as GoRoundRobin, GoDCAwareRoundRobin and GoRackAwareRoundRobin
// (policies/go/round_robin.cpp).
//
// GoTokenAware (policies/go/token_aware.cpp) needs one more fact about its child than Policy tells:
// whether the child is a gocql HostTierer. A tierer's replicas are grouped by HostTier (0 = the
// policy's "local" hosts, up to MaxHostTier); any other child splits hosts by IsLocal only (tier 0
// or 1).
// The tierer's HostTier is its distance_tier(): for GoRackAwareRoundRobin 0 = local rack,
// 1 = local DC in another rack, 2 = other DCs, exactly gocql's rackAwareRR.HostTier.
#pragma once

namespace lbsim::policy {

// Implemented by the Go policies that are gocql HostTierers (rackAwareRR); GoTokenAware finds it
// with a dynamic_cast on its child.
class GoHostTierer {
 public:
  // gocql HostTierer.MaxHostTier: the largest distance_tier() the policy returns.
  virtual unsigned max_host_tier() const = 0;

 protected:
  GoHostTierer() = default;
  GoHostTierer(const GoHostTierer&) = default;
  GoHostTierer& operator=(const GoHostTierer&) = default;
  ~GoHostTierer() = default;
};

}  // namespace lbsim::policy
