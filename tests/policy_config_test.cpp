// Policy specs: unknown types and parameters, bad values and missing children are ConfigErrors
// that name the JSON path and list the valid values.
#include <gtest/gtest.h>

#include <set>

#include "policy_test_util.hpp"
#include "sim/core/error.hpp"

namespace lbsim::policy {
namespace {

using namespace testing;

std::string config_error_of(const std::string& spec, const Topology* topo = nullptr) {
  return spec_error(spec, topo, "/policies/0");
}

TEST(PolicyConfig, UnknownTypeNamesThePathAndListsEveryType) {
  EXPECT_EQ(config_error_of(R"({"type":"RANDON"})"),
            "/policies/0/type: unknown policy type 'RANDON'; valid: " + jsonin::join(Registry::instance().names()) +
                " (or the drivers' class names, such as DCAwareRoundRobinPolicy or DefaultLoadBalancingPolicy)");
  const std::string msg = config_error_of(R"({"type":"RANDON"})");
  for (const char* t : {"Basic4x", "DCAwareRoundRobin", "TokenAware", "PythonTokenAware", "RustDefault", "GoTokenAware"})
    EXPECT_NE(msg.find(t), std::string::npos) << t;
}

TEST(PolicyConfig, TheDriversClassNamesAreAliases) {
  EXPECT_EQ(canonical_type("DCAwareRoundRobinPolicy"), "DCAwareRoundRobin");
  EXPECT_EQ(canonical_type("TokenAwarePolicy"), "TokenAware");
  EXPECT_EQ(canonical_type("RandomTwoChoicePolicy"), "RandomTwoChoice");
  EXPECT_EQ(canonical_type("DefaultLoadBalancingPolicy"), "Default4x");
  EXPECT_EQ(canonical_type("BasicLoadBalancingPolicy"), "Basic4x");
  EXPECT_EQ(canonical_type("TokenAware"), "TokenAware");
  EXPECT_EQ(canonical_type("Policy"), "");
  EXPECT_EQ(canonical_type("RANDONPolicy"), "");
  // A spec with aliases builds and is canonicalised throughout, children included.
  const auto spec = nlohmann::json::parse(
      R"({"type":"TokenAwarePolicy","ordering":"RANDOM","child":{"type":"DCAwareRoundRobinPolicy","local_dc":"dc1"}})");
  EXPECT_EQ(config_error_of(spec.dump()), "no error");
  const auto c = canonical_spec(spec);
  EXPECT_EQ(c["type"], "TokenAware");
  EXPECT_EQ(c["child"]["type"], "DCAwareRoundRobin");
  EXPECT_EQ(c["ordering"], "RANDOM");
  // The 3.x-wraps-4.x rule sees through the alias.
  EXPECT_NE(config_error_of(R"({"type":"TokenAware","child":{"type":"DefaultLoadBalancingPolicy"}})").find("cannot wrap Default4x"),
            std::string::npos);
}

TEST(PolicyConfig, MissingTypeAndNonObjectSpecsAreErrors) {
  EXPECT_EQ(config_error_of(R"({"ordering":"RANDOM"})").rfind("/policies/0/type: required field is missing; valid: Basic4x", 0), 0u);
  EXPECT_NE(config_error_of(R"("TokenAware")").find("/policies/0: a policy must be an object"), std::string::npos);
}

TEST(PolicyConfig, UnknownParameterListsTheAllowedKeys) {
  const std::string e = config_error_of(R"({"type":"DCAwareRoundRobin","used_host_per_remote_dc":2})");
  EXPECT_NE(e.find("/policies/0/used_host_per_remote_dc"), std::string::npos) << e;
  EXPECT_NE(e.find("allow_remote_dcs_for_local_cl"), std::string::npos) << e;
  EXPECT_NE(e.find("used_hosts_per_remote_dc"), std::string::npos) << e;
}

TEST(PolicyConfig, BadOrderingListsTheThreeOrderings) {
  EXPECT_EQ(config_error_of(R"({"type":"TokenAware","ordering":"SHUFFLE","child":{"type":"RoundRobin"}})"),
            "/policies/0/ordering: unknown value 'SHUFFLE'; valid: RANDOM, TOPOLOGICAL, NEUTRAL");
  EXPECT_EQ(config_error_of(R"({"type":"TokenAware","shuffle_rng":"global","child":{"type":"RoundRobin"}})"),
            "/policies/0/shuffle_rng: unknown value 'global'; valid: shared, thread_local");
}

TEST(PolicyConfig, WrappersRequireAChildAndReportErrorsInsideIt) {
  EXPECT_NE(config_error_of(R"({"type":"TokenAware"})").find("/policies/0/child: required field is missing"), std::string::npos);
  EXPECT_EQ(config_error_of(R"({"type":"LatencyAware","child":{"type":"TokenAware","child":{"type":"Nope"}}})")
                .rfind("/policies/0/child/child/type: unknown policy type 'Nope'", 0),
            0u);
}

TEST(PolicyConfig, OutOfRangeNumbersNameTheirBounds) {
  EXPECT_EQ(config_error_of(R"({"type":"LatencyAware","exclusion_threshold":0.5,"child":{"type":"RoundRobin"}})"),
            "/policies/0/exclusion_threshold: must be in [1, 1000000], got 0.5");
  EXPECT_EQ(config_error_of(R"({"type":"DCAwareRoundRobin","used_hosts_per_remote_dc":-1})"),
            "/policies/0/used_hosts_per_remote_dc: must be in [0, 1000000], got -1");
  EXPECT_EQ(config_error_of(R"({"type":"LatencyAware","scale_ms":0,"child":{"type":"RoundRobin"}})"),
            "/policies/0/scale_ms: must be > 0 ms, got 0");
  EXPECT_NE(config_error_of(R"({"type":"Default4x","slow_replica_avoidance":"yes"})").find("must be true or false"), std::string::npos);
}

TEST(PolicyConfig, UnknownLocalDcOrRackListsTheTopologysValues) {
  const Topology t = scassandra({2, 2}, {{"r1", "r2"}, {"r1", "r1"}});
  EXPECT_EQ(config_error_of(R"({"type":"DCAwareRoundRobin","local_dc":"dc3"})", &t),
            "/policies/0/local_dc: unknown datacenter 'dc3'; valid: dc1, dc2");
  EXPECT_EQ(config_error_of(R"({"type":"RackAwareRoundRobin","local_dc":"dc1","local_rack":"r9"})", &t),
            "/policies/0/local_rack: unknown rack 'r9' in datacenter 'dc1'; valid: r1, r2");
  EXPECT_EQ(config_error_of(R"({"type":"RackAwareRoundRobin","remote_rack_distance":"IGNORED"})", &t),
            "/policies/0/remote_rack_distance: unknown value 'IGNORED'; valid: LOCAL, REMOTE");
}

TEST(PolicyConfig, EveryPolicyHasADescriptionAndItsParametersWithValuesAndDefaults) {
  const auto all = Registry::instance().all();
  ASSERT_GE(all.size(), 8u);
  for (const auto* p : all) {
    EXPECT_GT(p->description.size(), 40u) << p->type;
    // The documented parameters are exactly the keys the factory accepts (its unknown-key error
    // lists them), each with its values and default.
    const std::string err = config_error_of(R"({"type":")" + p->type + R"(","bogus_key":1})");
    const auto at = err.find("allowed keys: ");
    ASSERT_NE(at, std::string::npos) << p->type << ": " << err;
    std::set<std::string> accepted;
    std::string rest = err.substr(at + 14);
    for (std::size_t start = 0;;) {
      const std::size_t comma = rest.find(", ", start);
      accepted.insert(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 2;
    }
    accepted.erase("type");
    std::set<std::string> documented;
    for (const auto& a : p->params) {
      documented.insert(a.name);
      EXPECT_FALSE(a.values.empty()) << p->type << "." << a.name;
      EXPECT_FALSE(a.dflt.empty()) << p->type << "." << a.name;
    }
    EXPECT_EQ(documented, accepted) << p->type;
  }
  const auto& ta = Registry::instance().find("TokenAware")->params;
  ASSERT_EQ(ta.size(), 3u);
  EXPECT_EQ(ta[0].name, "ordering");
  EXPECT_EQ(ta[0].dflt, "RANDOM");
  EXPECT_EQ(Registry::instance().find("TokenAware")->driver, Driver::Java3);
  EXPECT_EQ(Registry::instance().find("Default4x")->driver, Driver::Java4);
}

}  // namespace
}  // namespace lbsim::policy
