// EACH_QUORUM writes in the engine (sim_server.cpp: each DC's quorum counted down separately).
// Two DCs of 3 nodes, RF 3 in each, a constant 5 ms between DCs and no other network time: an
// EACH_QUORUM write needs two acks from the remote DC, so it cannot finish before one cross-DC
// round trip (10 ms), while LOCAL_QUORUM finishes within the local DC. With two of dc2's nodes
// down, dc2 cannot give a quorum: every EACH_QUORUM write is Unavailable, LOCAL_QUORUM ones are not.
#include <gtest/gtest.h>

#include "sim_test_util.hpp"

namespace lbsim::each_quorum_test {

using ::lbsim::testing::build;
using ::lbsim::testing::run_first;

jsonin::Json two_dc_doc(const std::string& write_cl) {
  return jsonin::Json::parse(R"({
    "name": "each", "seed": 5,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": 3}, {"name": "dc2", "racks": 3, "nodes": 3}],
                "num_tokens": 16, "shards": 1,
                "service": {"coordinator": {"dist": "constant", "us": 10},
                            "read": {"dist": "constant", "us": 50}, "write": {"dist": "constant", "us": 50}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3, "dc2": 3}},
    "network": {"same_rack": 0, "same_dc": 0, "cross_dc": {"dist": "constant", "us": 5000}},
    "client": {"dc": "dc1", "threads": 8, "cores": 0, "driver_cost": 0},
    "workload": {"ops": 4000, "warmup_ops": 200, "mix": {"write": 1},
                 "consistency": {"write": ")" + write_cl + R"("}, "keys": {"count": 10000}},
    "policies": [{"name": "ta", "policy": {"type": "TokenAware", "ordering": "RANDOM",
                                           "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}}]
  })");
}

TEST(EachQuorum, WritesWaitForTheRemoteQuorum) {
  const RunResult each = run_first(build(two_dc_doc("EACH_QUORUM")));
  const RunResult local = run_first(build(two_dc_doc("LOCAL_QUORUM")));
  ASSERT_EQ(each.measured_errors(), 0u);
  ASSERT_EQ(local.measured_errors(), 0u);
  const SimTime rtt = 10 * kMs;
  EXPECT_GE(each.latency.min(), rtt);
  EXPECT_LT(each.latency.percentile(99), rtt + 2 * kMs);  // one round trip plus local work
  EXPECT_LT(local.latency.percentile(99), 2 * kMs);
  // Every replica write is sent (3 per DC), whichever CL.
  std::uint64_t writes = 0;
  for (const auto& n : each.nodes) writes += n.replica_writes;
  EXPECT_NEAR(static_cast<double>(writes), 6.0 * static_cast<double>(each.by_op[1].ops), 6.0 * 8);
}

TEST(EachQuorum, ARemoteDcWithoutQuorumMakesEveryWriteUnavailable) {
  const std::string down =
      "faults={\"driver_detection_ms\": 1, \"server_detection_ms\": 1, \"events\": [{\"at_s\": 0, \"node\": \"n5\", "
      "\"kind\": \"down\"}, {\"at_s\": 0, \"node\": \"n6\", \"kind\": \"down\"}]}";
  const RunResult each = run_first(build(two_dc_doc("EACH_QUORUM"), {down}));
  const RunResult local = run_first(build(two_dc_doc("LOCAL_QUORUM"), {down}));
  EXPECT_EQ(each.by_op[1].ops, 0u);
  EXPECT_EQ(each.by_op[1].errors[static_cast<std::size_t>(ErrorKind::Unavailable)], 4000u);
  EXPECT_EQ(local.measured_errors(), 0u);
  EXPECT_EQ(local.by_op[1].ops, 4000u);
}

}  // namespace lbsim::each_quorum_test
