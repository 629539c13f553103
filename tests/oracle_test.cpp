// Cross-check against the reference oracle built on the DataStax Python driver
// (../shared/oracle, Debian python3-cassandra). On seeded random topologies (1 to 3 DCs, 1 to 4
// racks, 1 to 256 tokens, both strategies):
// - tokens, owners, shards and SimpleStrategy lists are equal;
// - NTS replica sets are equal, except where the oracle flags duplicate_replicas (a Python driver
//   bug), where lbsim must give Cassandra's set (the reference walk of ring_reference.hpp);
// - ownership fractions agree within 1e-12 and arcs exactly.
// The Python driver's NTS order differs from Cassandra's by design (oracle README caveats).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ring_reference.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/config/topology_file.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;

// The shared material sits next to the repository (../shared); LBSIM_SHARED_DIR points elsewhere
// for a clone kept in another place.
const fs::path kOracle = [] {
  const char* env = std::getenv("LBSIM_SHARED_DIR");
  return (env && *env ? fs::path(env) : fs::path(LBSIM_SOURCE_DIR) / ".." / "shared") / "oracle";
}();

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  if (rc != 0) ADD_FAILURE() << "command failed (" << rc << "): " << cmd;
  return out;
}

struct OracleCase {
  int seed;
  std::string nodes_per_dc, racks_per_dc, rf;
  int tokens;
  bool simple;
};

std::set<std::string> as_set(const nlohmann::json& a) {
  std::set<std::string> s;
  for (const auto& x : a) s.insert(x.get<std::string>());
  return s;
}

TEST(Oracle, LbsimAgreesWithThePythonDriverOnRandomTopologies) {
  ASSERT_TRUE(fs::exists("/usr/bin/python3")) << "the oracle needs Debian's python3 and python3-cassandra";
  ASSERT_EQ(std::system("/usr/bin/python3 -c 'import cassandra.metadata' 2>/dev/null"), 0)
      << "python3-cassandra is missing: run scripts/deps.sh (the README's test command does)";
  ASSERT_TRUE(fs::exists(kOracle / "ring_oracle.py") && fs::exists(kOracle / "gen_topology.py"))
      << "the oracle scripts are not in " << kOracle.string()
      << ": keep the clone next to the shared material (../shared) or set LBSIM_SHARED_DIR";
  const std::vector<OracleCase> cases{
      {1, "5", "1", "3", 1, true},          {2, "6", "3", "dc1:3", 1, false},
      {3, "8", "2", "dc1:4", 16, false},     {4, "9", "3", "dc1:5", 16, false},
      {5, "4,3", "2,1", "dc1:3,dc2:2", 8, false}, {6, "5,4,3", "3,2,4", "dc1:3,dc2:2,dc3:4", 32, false},
      {7, "7", "4", "3", 256, true},         {8, "6,6", "3,3", "dc1:3,dc2:3", 256, false},
      {9, "3,5,2", "1,4,2", "dc1:2,dc2:6,dc3:3", 64, false}, {10, "10", "4", "5", 4, true},
      {11, "2,2", "2,1", "dc1:3,dc2:1", 128, false}, {12, "12", "3", "dc1:3", 64, false},
  };
  int dup_lists = 0, nts_lists = 0, lists = 0;
  const fs::path dir = fs::temp_directory_path() / fmt::format("lbsim-oracle-{}", ::getpid());
  fs::create_directories(dir);
  for (const auto& c : cases) {
    SCOPED_TRACE(fmt::format("seed {}", c.seed));
    const fs::path topo = dir / fmt::format("t{}.json", c.seed);
    run(fmt::format("python3 {}/gen_topology.py --seed {} --nodes-per-dc {} --racks-per-dc {} --num-tokens {} "
                    "--strategy {} --rf {} --nkeys 300 --ntokens 40 --edge-tokens --composite-frac 0.2 "
                    "--sharding 7:12 > {}",
                    kOracle.string(), c.seed, c.nodes_per_dc, c.racks_per_dc, c.tokens,
                    c.simple ? "SimpleStrategy" : "NetworkTopologyStrategy", c.rf, topo.string()));
    const auto oracle = nlohmann::json::parse(
        run(fmt::format("/usr/bin/python3 {}/ring_oracle.py --input {}", kOracle.string(), topo.string())));
    TopologyFile tf = load_topology_file(topo.string());
    const Topology topology = tf.topology;
    const Replication repl = tf.replication;
    TokenRing ring(tf.topology, tf.replication);
    auto names = [&](std::span<const NodeId> s) {
      std::vector<std::string> v;
      for (auto n : s) v.push_back(topology.nodes[n].id);
      return v;
    };
    auto check = [&](const nlohmann::json& e, Token t) {
      ++lists;
      EXPECT_EQ(e["token"].get<std::string>(), std::to_string(t));
      EXPECT_EQ(e["owner"].get<std::string>(), topology.nodes[ring.owner(t)].id);
      EXPECT_EQ(e["shard"].get<std::uint32_t>(), shard_of(t, *tf.sharding));
      const auto mine = names(ring.replicas(t, ReplicaOrder::Server));
      if (c.simple) {
        EXPECT_EQ(e["replicas"].get<std::vector<std::string>>(), mine);
        return;
      }
      ++nts_lists;
      const std::set<std::string> mine_set(mine.begin(), mine.end());
      if (e.value("duplicate_replicas", false)) {
        ++dup_lists;
        EXPECT_LT(as_set(e["replicas"]).size(), e["replicas"].size());  // the driver repeated a host
        EXPECT_EQ(mine_set.size(), mine.size());
        EXPECT_EQ(mine, names(testref::nts_server(topology, repl, t)));
      } else {
        EXPECT_EQ(as_set(e["replicas"]), mine_set);
      }
    };
    ASSERT_EQ(oracle["keys"].size(), tf.keys.size());
    for (std::size_t i = 0; i < tf.keys.size(); ++i) check(oracle["keys"][i], murmur3_token(tf.keys[i].routing_key));
    ASSERT_EQ(oracle["tokens"].size(), tf.tokens.size());
    for (std::size_t i = 0; i < tf.tokens.size(); ++i) check(oracle["tokens"][i], tf.tokens[i]);
    // Where the Python driver's duplicate bug can occur (a DC with >= 2 racks and RF >= racks + 2
    // or RF > its nodes), its replica map, and so its replica_fraction, is not Cassandra's.
    bool bug_possible = false;
    for (const auto& [dc, rf] : repl.dc_rf) {
      const auto d = topology.dc_index(dc);
      if (!d) continue;
      const int racks = static_cast<int>(topology.dc_rack_count[*d]);
      bug_possible = bug_possible || (racks >= 2 && (rf >= racks + 2 || rf > static_cast<int>(topology.dc_node_count[*d])));
    }
    ASSERT_EQ(oracle["nodes"].size(), topology.size());
    for (std::size_t n = 0; n < topology.size(); ++n) {
      const auto& e = oracle["nodes"][n];
      const auto& o = ring.ownership()[*topology.node_index(e["id"].get<std::string>())];
      EXPECT_NEAR(e["primary_fraction"].get<double>(), o.primary, 1e-12);
      if (!bug_possible) {
        EXPECT_NEAR(e["replica_fraction"].get<double>(), o.replica, 1e-12);
      }
      const auto arc = [](u128 v) {
        std::string s;
        do {
          s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
          v /= 10;
        } while (v);
        return s;
      };
      EXPECT_EQ(e["primary_arc"].get<std::string>(), arc(o.primary_arc));
      if (!bug_possible) {
        EXPECT_EQ(e["replica_arc"].get<std::string>(), arc(o.replica_arc));
      }
    }
  }
  fs::remove_all(dir);
  std::printf("oracle cross-check: %d lists (%d NTS), %d flagged duplicate_replicas by the oracle\n", lists,
              nts_lists, dup_lists);
  EXPECT_GT(lists, 3000);
  EXPECT_GT(dup_lists, 0) << "the cases are meant to exercise the Python driver's duplicate bug";
}

}  // namespace
}  // namespace lbsim
