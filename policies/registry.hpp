// Policies registered by name, each with a one-line description and its parameters.
//
// A policy spec is a JSON object with a "type" and the driver-builder parameters
// ({"type":"TokenAware","ordering":"RANDOM","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}}).
// The same spec is used in scenarios and on the command line. Each policy file registers itself:
//
//   LBSIM_REGISTER_POLICY(RoundRobin, "Java 3.x RoundRobinPolicy: ...", {"..."}, make_round_robin);
//
// make_policy() validates the spec; an unknown type or parameter is a ConfigError that names the
// JSON path and lists the valid values.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policies/policy.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim::policy {

struct BuildContext {
  const Topology* topology = nullptr;
  // The keyspace's replication, for policies that compute the driver's own replica map (the
  // Node.js driver's replica_source); null when unknown (policy unit tests).
  const Replication* replication = nullptr;
};

using Factory = std::function<std::unique_ptr<Policy>(const jsonin::Json& spec, const std::string& path,
                                                      const BuildContext& ctx)>;

// The driver a policy reproduces. A driver's wrappers (TokenAware, ...) wrap only its own policies,
// and `lbsim policies` lists the policies grouped by driver.
enum class Driver : std::uint8_t { Java3, Java4, Python, Rust, Go, NodeJs };
std::string_view driver_name(Driver d);  // "Java driver 3.x (DataStax and ScyllaDB)", ...

// One accepted key of a spec besides "type": its allowed values or range and its default
// ("required" when it has none).
struct ParamInfo {
  std::string name;
  std::string values;
  std::string dflt;
};

struct PolicyInfo {
  std::string type;
  Driver driver = Driver::Java3;
  std::string description;
  std::vector<ParamInfo> params;
  Factory make;
};

class Registry {
 public:
  static Registry& instance();
  bool add(PolicyInfo info);
  const PolicyInfo* find(const std::string& type) const;
  std::vector<const PolicyInfo*> all() const;  // sorted by type
  std::vector<std::string> names() const;

 private:
  std::vector<PolicyInfo> infos_;
};

// The registered type named by `type`, also under the drivers' class names: "<Type>Policy" for the
// 3.x policies (DCAwareRoundRobinPolicy, TokenAwarePolicy, ...) and the 4.x
// BasicLoadBalancingPolicy / DefaultLoadBalancingPolicy for Basic4x / Default4x. Unknown: "".
std::string canonical_type(const std::string& type);
// The spec with every "type" (the policy's and its children's) replaced by its registered name, so
// that later readers (the analytic model, reports) see one spelling. Other values are untouched.
jsonin::Json canonical_spec(jsonin::Json spec);

// Builds a policy from its spec; `path` is the spec's JSON path for messages.
std::unique_ptr<Policy> make_policy(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx);
// The child of a wrapper policy (`parent` is the wrapper's type). Refuses what the drivers would
// not build: a policy of another driver under a driver's wrapper (a 4.x policy under a 3.x
// wrapper, ...), and a token-aware wrapper anywhere below a token-aware wrapper (the outer one
// already puts the replicas first).
std::unique_ptr<Policy> make_child_policy(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx,
                                          std::string_view parent);
// The required "child" of the wrapper object `o`: a clear error when it is missing.
std::unique_ptr<Policy> make_required_child(const jsonin::Object& o, const BuildContext& ctx, std::string_view parent);

}  // namespace lbsim::policy

#define LBSIM_POLICY_CONCAT2(a, b) a##b
#define LBSIM_POLICY_CONCAT(a, b) LBSIM_POLICY_CONCAT2(a, b)
// LBSIM_REGISTER_POLICY(Type, Driver::X, "description", (std::vector<ParamInfo>{{"name", "values",
// "default"}, ...}), factory)
#define LBSIM_REGISTER_POLICY(TYPE, DRIVER, DESCRIPTION, PARAMS, FACTORY)                              \
  namespace {                                                                                          \
  const bool LBSIM_POLICY_CONCAT(registered_, TYPE) =                                                  \
      ::lbsim::policy::Registry::instance().add({#TYPE, ::lbsim::policy::DRIVER, DESCRIPTION, PARAMS, FACTORY}); \
  }
