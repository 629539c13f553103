// `lbsim stress` (issue 13): cassandra-stress command lines into scenarios, checked field by
// field against the mapping table in configs/README.md.
#include <gtest/gtest.h>

#include "sim/config/scenario.hpp"
#include "sim/config/stress.hpp"
#include "sim/core/error.hpp"

namespace lbsim::stress_test {

TEST(StressTranslate, TheSeedsWriteCommandMapsFieldByField) {
  const StressTranslation t =
      translate_stress({"cassandra-stress", "write", "n=1125000", "cl=LOCAL_ONE", "-rate", "threads=16", "-pop",
                        "seq=1..1125000", "-node", "10.0.0.1,10.0.0.2,10.0.0.3", "-mode", "native", "cql3"});
  const auto& s = t.scenario;
  EXPECT_EQ(s["workload"]["ops"], 1125000);
  EXPECT_EQ(s["workload"]["mix"], jsonin::Json({{"write", 1}}));
  EXPECT_EQ(s["workload"]["consistency"]["write"], "LOCAL_ONE");
  EXPECT_EQ(s["workload"]["keys"]["distribution"], "sequential");
  EXPECT_EQ(s["workload"]["keys"]["count"], 1125000);
  EXPECT_EQ(s["client"]["threads"], 16);
  EXPECT_EQ(s["cluster"]["datacenters"][0]["nodes"], 3);
  const Scenario sc = scenario_from_json(s, "stress", ".");  // a valid scenario
  EXPECT_EQ(sc.policies.size(), 2u);
  EXPECT_EQ(sc.client.threads, 16u);
}

TEST(StressTranslate, MixedRatiosRatesDistributionsAndSchemas) {
  const StressTranslation t = translate_stress(
      {"mixed", "ratio(write=1,read=3)", "duration=5m", "cl=QUORUM", "-rate", "threads=250", "fixed=20000/s", "-pop",
       "dist=gaussian(1..10M,5)", "-schema", "replication(strategy=NetworkTopologyStrategy,dc1=3)", "-node",
       "a,b,c,d,e,f", "datacenter=dc1"});
  const auto& s = t.scenario;
  EXPECT_EQ(s["workload"]["mix"], jsonin::Json({{"write", 1}, {"read", 3}}));
  EXPECT_EQ(s["workload"]["duration_s"], 300.0);
  EXPECT_EQ(s["client"]["rate_ops_s"], 20000);
  EXPECT_EQ(s["client"]["max_in_flight"], 250);  // fixed-rate threads bound what is outstanding
  EXPECT_EQ(s["client"]["arrivals"], "constant");
  EXPECT_EQ(s["workload"]["keys"], jsonin::Json({{"count", 10000000}, {"distribution", "gaussian"}, {"stdvrng", 5}}));
  EXPECT_EQ(s["keyspace"]["class"], "NetworkTopologyStrategy");
  EXPECT_EQ(s["keyspace"]["rf"]["dc1"], 3);
  EXPECT_EQ(s["cluster"]["datacenters"][0]["nodes"], 6);
  const Scenario sc = scenario_from_json(s, "stress", ".");
  EXPECT_NEAR(sc.workload.read_fraction, 0.75, 1e-12);
  EXPECT_EQ(sc.client.mode, LoadMode::Open);
}

TEST(StressTranslate, WhatCannotBeMappedIsAnErrorNamingTheOption) {
  auto error = [](std::vector<std::string> a) {
    try {
      translate_stress(a);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error({"write", "n=10", "-bogus", "x"}).find("cassandra-stress -bogus: unknown option"), std::string::npos);
  EXPECT_NE(error({"write", "n=10", "-rate", "threads>=16"}).find("lbsim sweep"), std::string::npos);
  EXPECT_NE(error({"counter_write", "n=10"}).find("valid: write, read, mixed"), std::string::npos);
  EXPECT_NE(error({"write"}).find("give n=N or duration=T"), std::string::npos);
  EXPECT_NE(error({"read", "n=10", "cl=TWENTY"}).find("unknown consistency level"), std::string::npos);
  // Output options are accepted and noted.
  const StressTranslation t = translate_stress({"read", "n=1k", "-log", "file=x.log", "-graph", "file=g.html"});
  EXPECT_EQ(t.scenario["workload"]["ops"], 1000);
  EXPECT_GE(t.notes.size(), 2u);
}

}  // namespace lbsim::stress_test
