// The analytic load model (issue 5 section 4). Its routing probabilities are closed forms derived
// from the driver semantics; here they are checked plan by plan against the policy code itself:
// over one full rotation period of the child (K consecutive plans, K = lcm of its list lengths)
// a deterministic ordering's first-host frequencies equal the model's probabilities exactly.
#include <gtest/gtest.h>

#include <numeric>

#include <fmt/format.h>

#include "policies/registry.hpp"
#include "sim/analysis/key_weights.hpp"
#include "sim/analysis/load_model.hpp"
#include "sim/cluster/routing_key.hpp"
#include "sim/config/cluster_config.hpp"
#include "two_dcs_topology.hpp"

namespace lbsim {
namespace {

using policy::ClusterView;
using policy::PlanArena;
using policy::PlanRandom;

using testing::two_dcs_topology;

struct ModelCase {
  std::string spec;
  std::vector<NodeId> down;
  std::size_t period;  // lcm of the child's live list lengths
};

TEST(LoadModel, DeterministicOrderingsMatchThePolicyCodeOverOneRotationPeriod) {
  const TokenRing ring(two_dcs_topology(), {StrategyKind::NetworkTopology, 1, {{"dc1", 3}, {"dc2", 2}}, {}});
  const auto& topo = ring.topology();
  const std::string dc = R"({"type":"DCAwareRoundRobin","local_dc":"dc1"})";
  const std::string rack_pre = R"({"type":"RackAwareRoundRobin","local_dc":"dc1","local_rack":"r1"})";
  const std::string rack_post =
      R"({"type":"RackAwareRoundRobin","local_dc":"dc1","local_rack":"r1","remote_rack_distance":"REMOTE"})";
  auto ta = [](const std::string& ordering, const std::string& child) {
    return R"({"type":"TokenAware","ordering":")" + ordering + R"(","child":)" + child + "}";
  };
  const std::vector<ModelCase> cases{
      {ta("NEUTRAL", dc), {}, 6},
      {ta("NEUTRAL", dc), {1}, 5},
      {ta("NEUTRAL", dc), {0, 3}, 4},  // the whole local rack r0 down
      {ta("TOPOLOGICAL", dc), {1}, 5},
      {ta("NEUTRAL", R"({"type":"RoundRobin"})"), {}, 10},
      {ta("NEUTRAL", R"({"type":"RoundRobin"})"), {2, 7}, 8},
      {ta("TOPOLOGICAL", R"({"type":"RoundRobin"})"), {}, 10},
      {ta("NEUTRAL", rack_pre), {}, 4},    // local rack r1: a1, a4; other racks: 4 hosts
      {ta("NEUTRAL", rack_pre), {1}, 4},   // a1 down: lists of 1 and 4
      {ta("NEUTRAL", rack_post), {4}, 4},  // lists of 1 and 4
      {ta("TOPOLOGICAL", rack_pre), {}, 4},
      {ta("TOPOLOGICAL", rack_post), {}, 4},
      {dc, {}, 6},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec + fmt::format(" down={}", c.down.size()));
    const auto spec = nlohmann::json::parse(c.spec);
    std::vector<bool> down(topo.size(), false);
    ClusterView view(topo);
    for (NodeId d : c.down) {
      down[d] = true;
      view.set_up(d, false);
    }
    std::string why;
    const auto rs = routing_spec(spec, topo, why);
    ASSERT_TRUE(rs) << why;
    const Routing model = coordinator_routing(ring, *rs, down, /*dc_local_cl=*/true);

    auto pol = policy::make_policy(spec, "/policy", {&topo});
    Rng rng(5);
    pol->init(view, rng);
    PlanArena arena;
    for (std::size_t r = 0; r < ring.size(); ++r) {
      policy::Request req;
      req.routed = true;
      req.token = ring.token_at(r);
      req.replicas = ring.replicas_at(r, ReplicaOrder::Driver);
      req.cl = ConsistencyLevel::LocalOne;
      std::vector<double> freq(topo.size(), 0.0);
      for (std::size_t k = 0; k < c.period; ++k) {
        arena.reset();
        PlanRandom rnd(rng);
        const auto h = pol->new_plan(req, rnd, arena)->next();
        ASSERT_NE(h, policy::kNoHost);
        freq[h] += 1.0 / static_cast<double>(c.period);
      }
      for (NodeId h = 0; h < topo.size(); ++h)
        ASSERT_NEAR(model.fallback[r] ? model.unrouted[h] : model.routed.coeff(static_cast<Eigen::Index>(r), h), freq[h],
                    1e-12)
            << "range " << r << " node " << topo.nodes[h].id;
    }
  }
}

TEST(LoadModel, RandomOrderingIsUniformOverTheUpLocalReplicas) {
  const TokenRing ring(two_dcs_topology(), {StrategyKind::NetworkTopology, 1, {{"dc1", 3}, {"dc2", 2}}, {}});
  std::string why;
  const auto rs = routing_spec(nlohmann::json::parse(
                                   R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc2"}})"),
                               ring.topology(), why);
  ASSERT_TRUE(rs);
  std::vector<bool> down(ring.topology().size(), false);
  down[7] = true;  // b1
  const Routing m = coordinator_routing(ring, *rs, down, true);
  for (std::size_t r = 0; r < ring.size(); ++r) {
    std::vector<NodeId> lr;
    for (NodeId h : ring.replicas_at(r, ReplicaOrder::Driver))
      if (ring.topology().node_dc[h] == 1 && !down[h]) lr.push_back(h);
    double sum = 0;
    EXPECT_EQ(m.fallback[r] != 0, lr.empty()) << r;
    for (SparseRows::InnerIterator it(m.routed, static_cast<Eigen::Index>(r)); it; ++it) {
      sum += it.value();
      EXPECT_NEAR(it.value(), 1.0 / static_cast<double>(lr.size()), 1e-15);
    }
    if (lr.empty()) {  // the child plan: uniform over the 3 live dc2 hosts
      for (NodeId h = 0; h < ring.topology().size(); ++h)
        if (m.unrouted[h] > 0) {
          EXPECT_NEAR(m.unrouted[h], 1.0 / 3.0, 1e-15);
          sum += m.unrouted[h];
        }
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(LoadModel, AdaptivePoliciesAreMarkedNotModelled) {
  const TokenRing ring(two_dcs_topology(), {StrategyKind::NetworkTopology, 1, {{"dc1", 3}}, {}});
  LoadModelInput in;
  in.ring = &ring;
  in.range_weight.assign(ring.size(), 1.0 / static_cast<double>(ring.size()));
  for (const char* spec : {R"({"type":"Default4x","local_dc":"dc1"})",
                           R"({"type":"LatencyAware","child":{"type":"RoundRobin"}})"}) {
    const LoadModel m = analyze_load(in, nlohmann::json::parse(spec));
    EXPECT_FALSE(m.modelled) << spec;
    EXPECT_EQ(m.reason.rfind("adaptive: ", 0), 0u) << m.reason;  // the feedback named (driver_routing_test.cpp)
  }
}

TEST(LoadModel, SharesAddUpAndTheBusiestNodeSetsTheBound) {
  const TokenRing ring(two_dcs_topology(), {StrategyKind::NetworkTopology, 1, {{"dc1", 3}, {"dc2", 2}}, {}});
  KeySpec keys;
  keys.count = 100000;
  LoadModelInput in;
  in.ring = &ring;
  in.range_weight = range_weights(ring, keys);
  in.read_fraction = 0.25;
  in.read_cl = ConsistencyLevel::LocalQuorum;
  in.write_cl = ConsistencyLevel::LocalOne;
  in.down.assign(ring.topology().size(), false);
  in.coordinator_s = 20e-6;
  in.read_s = 200e-6;
  in.write_s = 100e-6;
  in.capacity.assign(ring.topology().size(), 4.0);
  const LoadModel m = analyze_load(
      in, nlohmann::json::parse(R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}})"));
  ASSERT_TRUE(m.modelled);
  double coord = 0, reads = 0, writes = 0, worst = 0;
  for (const auto& n : m.nodes) {
    coord += n.coordinator;
    reads += n.replica_reads;
    writes += n.replica_writes;
    worst = std::max(worst, n.busy_s);
  }
  EXPECT_NEAR(coord, 1.0, 1e-12);
  EXPECT_NEAR(reads, 0.25 * 2, 1e-12);          // LOCAL_QUORUM of rf 3 reads 2 replicas
  EXPECT_NEAR(writes, 0.75 * (3 + 2), 1e-12);   // every replica of both DCs
  EXPECT_NEAR(m.saturation_ops_s, 4.0 / worst, 1e-6);
  for (NodeId h = 6; h < 10; ++h) EXPECT_EQ(m.nodes[h].coordinator, 0.0);  // dc2 never coordinates
  EXPECT_EQ(m.unavailable, 0.0);
}

// per_shard discipline: one key carries every operation. Its work lands on one shard of its
// replica, so the bound is that shard's capacity (the node's / shards), and unrouted coordinator
// work spreads over all shards of the coordinators.
TEST(LoadModel, PerShardBoundIsTheBusiestShards) {
  const TokenRing ring(two_dcs_topology(), {StrategyKind::Simple, 1, {}, {}});
  const std::size_t n = ring.topology().size();
  KeySpec one;
  one.count = 1;
  const Sharding sharding{4, 12};
  LoadModelInput in;
  in.ring = &ring;
  in.range_weight = range_weights(ring, one, &sharding, &in.range_shard_weight);
  ASSERT_EQ(in.range_shard_weight.size(), ring.size() * 4);
  const Token t = token_of_key_id(1);
  const std::size_t r = ring.range_index(t);
  const std::uint32_t key_shard = shard_of(t, sharding);
  EXPECT_DOUBLE_EQ(in.range_weight[r], 1.0);
  EXPECT_DOUBLE_EQ(in.range_shard_weight[r * 4 + key_shard], 1.0);
  in.shards = 4;
  in.read_fraction = 1.0;
  in.read_cl = in.write_cl = ConsistencyLevel::One;
  in.down.assign(n, false);
  in.coordinator_s = 10e-6;
  in.read_s = 30e-6;
  in.capacity.assign(n, 4.0);  // 4 shards x speed 1
  const NodeId replica = ring.replicas_at(r, ReplicaOrder::Server)[0];
  const auto spec = nlohmann::json::parse(R"({"type":"TokenAware","ordering":"TOPOLOGICAL","child":{"type":"RoundRobin"}})");

  // Routed: coordinator and read on the replica's key shard; the node bound would be 4x higher.
  LoadModel m = analyze_load(in, spec);
  ASSERT_TRUE(m.modelled);
  EXPECT_NEAR(m.saturation_ops_s, 1.0 / 40e-6, 1e-6);
  EXPECT_NEAR(m.node_saturation_ops_s, 4.0 / 40e-6, 1e-6);
  EXPECT_EQ(m.bottleneck, replica);
  EXPECT_EQ(m.bottleneck_shard, key_shard);

  // Unrouted: the child's round robin spreads coordinators over the n nodes and each node's
  // coordinator work over its 4 shards; the read still hits the key's shard of the replica.
  in.unrouted_fraction = 1.0;
  m = analyze_load(in, spec);
  const double coord_per_shard = 10e-6 / static_cast<double>(n) / 4.0;
  EXPECT_NEAR(m.saturation_ops_s, 1.0 / (30e-6 + coord_per_shard), 1e-6);
  EXPECT_EQ(m.bottleneck_shard, key_shard);

  // Without the per-shard table the bound is the node's.
  in.range_shard_weight.clear();
  m = analyze_load(in, spec);
  EXPECT_NEAR(m.saturation_ops_s, m.node_saturation_ops_s, 1e-9);
  EXPECT_FALSE(m.bottleneck_shard.has_value());
}

TEST(LoadModel, KeyWeightsFollowTheDistributionsPmf) {
  const TokenRing ring(two_dcs_topology(), {StrategyKind::Simple, 1, {}, {}});
  for (KeyDistKind kind : {KeyDistKind::Uniform, KeyDistKind::Gaussian, KeyDistKind::Zipf, KeyDistKind::Exponential,
                           KeyDistKind::Hotspot}) {
    KeySpec k;
    k.kind = kind;
    k.count = 5000;
    const auto w = range_weights(ring, k);
    EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-9) << static_cast<int>(kind);
  }
  KeySpec hot;
  hot.kind = KeyDistKind::Hotspot;
  hot.count = 1000;
  hot.hot_keys = 0.01;
  hot.hot_ops = 0.5;
  const KeyPmf pmf(hot);
  EXPECT_NEAR(pmf(1), 0.05, 1e-15);              // 10 hot keys share half the operations
  EXPECT_NEAR(pmf(11), 0.5 / 990, 1e-15);
  KeySpec z;
  z.kind = KeyDistKind::Zipf;
  z.count = 3;
  z.zipf_s = 1.0;
  EXPECT_NEAR(KeyPmf(z)(1), 1.0 / (1 + 0.5 + 1.0 / 3), 1e-15);
}

}  // namespace
}  // namespace lbsim
