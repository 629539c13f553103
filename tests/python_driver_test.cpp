// lbsim's ring against the DataStax Python driver (Debian python3-cassandra 3.25), an independent
// implementation of Murmur3 tokens, composite routing keys and replica placement
// (datastax/python-driver cassandra/metadata.py: Murmur3Token, SimpleStrategy and
// NetworkTopologyStrategy.make_token_replica_map, TokenMap.get_replicas; cassandra/query.py:
// Statement.routing_key). tests/python_driver/ring_answers.py asks the driver; this test draws
// seeded random topologies (1 to 3 DCs, 1 to 4 racks, 1 to 256 tokens per node, both strategies,
// RF up to more than a DC's nodes), writes them as lbsim topology files, loads them with lbsim's
// parser and requires, for every key and token:
// - the same routing key bytes and the same token;
// - SimpleStrategy: the driver's list equal to lbsim's, in order (server and driver order are the
//   ring walk there);
// - NetworkTopologyStrategy: the driver's list equal, in order, to lbsim's driver order (Java
//   driver 3.x ReplicationStrategy, DCs interleaved along the ring) with its DCs regrouped in the
//   Python driver's DC order. Within a DC both drivers walk the ring and defer hosts of racks
//   already used until every rack has a replica, so each DC's sub-list must match exactly; the
//   Python driver only concatenates the DCs instead of interleaving them. Its set must equal the
//   set of lbsim's server order (Cassandra's NetworkTopologyStrategy.calculateNaturalEndpoints).
// The exception is the driver's duplicate bug: a host deferred twice is appended twice, and a real
// replica is then missing (more than one deferral of the same host happens when a DC has at least
// two racks and its RF exceeds its racks by two or more, or exceeds its nodes). Such lists are
// counted and checked to be the driver's bug (a repeat, every host a real replica), never lbsim's.
// lbsim's model of that map, bugs included (replica_source "python-3.25",
// policies/python/replicas.hpp), must equal every list of the driver, order and repeats included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "policies/python/replicas.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/config/topology_file.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kScript = fs::path(LBSIM_SOURCE_DIR) / "tests" / "python_driver" / "ring_answers.py";

struct Shape {
  std::vector<int> nodes, racks;  // per DC
  int tokens;                     // per node
  bool simple;
  std::vector<int> rf;            // per DC (SimpleStrategy: rf[0])
};

// A seeded random topology file with its keys and tokens. std::mt19937_64's output is fixed by the
// C++ standard, and only integer arithmetic is applied to it, so a seed gives the same file
// everywhere.
json make_topology(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  auto below = [&](std::uint64_t n) { return gen() % n; };
  json nodes = json::array();
  std::set<std::int64_t> used;
  std::vector<std::int64_t> ring_tokens;
  int id = 0;
  for (std::size_t d = 0; d < s.nodes.size(); ++d) {
    for (int i = 0; i < s.nodes[d]; ++i) {
      json toks = json::array();
      for (int k = 0; k < s.tokens; ++k) {
        std::int64_t t;
        do t = static_cast<std::int64_t>(gen()); while (!used.insert(t).second);
        toks.push_back(std::to_string(t));
        ring_tokens.push_back(t);
      }
      // Racks: round-robin for even DCs, at random otherwise (so racks of unequal size occur).
      const int rack = d % 2 == 0 ? i % s.racks[d] : static_cast<int>(below(static_cast<std::uint64_t>(s.racks[d])));
      nodes.push_back({{"id", fmt::format("n{}", ++id)},
                       {"dc", fmt::format("dc{}", d + 1)},
                       {"rack", fmt::format("r{}", rack + 1)},
                       {"tokens", toks}});
    }
  }
  json keyspace;
  if (s.simple) {
    keyspace = {{"class", "SimpleStrategy"}, {"rf", s.rf[0]}};
  } else {
    json rf = json::object();
    for (std::size_t d = 0; d < s.rf.size(); ++d) rf[fmt::format("dc{}", d + 1)] = s.rf[d];
    keyspace = {{"class", "NetworkTopologyStrategy"}, {"rf", rf}};
  }
  auto hex = [&](std::size_t len) {
    std::string h;
    for (std::size_t i = 0; i < len; ++i) h += fmt::format("{:02x}", static_cast<unsigned>(below(256)));
    return h;
  };
  json keys = json::array();
  for (int k = 0; k < 300; ++k) {
    if (below(5) == 0) {  // a composite partition key of 2 or 3 components
      json parts = json::array();
      for (std::uint64_t c = 0, n = 2 + below(2); c < n; ++c) parts.push_back(hex(1 + below(12)));
      keys.push_back(parts);
    } else {
      keys.push_back(hex(1 + below(16)));
    }
  }
  // Raw tokens: random ones, the extremes, and every 7th ring token with its neighbours (a range's
  // last token belongs to it, the next one to the following range).
  json tokens = json::array();
  for (int k = 0; k < 40; ++k) tokens.push_back(std::to_string(static_cast<std::int64_t>(gen())));
  tokens.push_back(std::to_string(std::numeric_limits<std::int64_t>::min()));
  tokens.push_back(std::to_string(std::numeric_limits<std::int64_t>::max()));
  std::sort(ring_tokens.begin(), ring_tokens.end());
  for (std::size_t i = 0; i < ring_tokens.size(); i += 7) {
    const std::int64_t t = ring_tokens[i];
    tokens.push_back(std::to_string(t));
    if (t > std::numeric_limits<std::int64_t>::min()) tokens.push_back(std::to_string(t - 1));
    if (t < std::numeric_limits<std::int64_t>::max()) tokens.push_back(std::to_string(t + 1));
  }
  return {{"description", "random topology of tests/python_driver_test.cpp"},
          {"nodes", nodes}, {"keyspace", keyspace}, {"keys", keys}, {"tokens", tokens}};
}

// lbsim's driver-order list with its DCs regrouped in `dc_order`, each DC's hosts in their order.
std::vector<std::string> regroup(const Topology& topo, std::span<const NodeId> list,
                                 const std::vector<std::string>& dc_order) {
  std::vector<std::string> out;
  for (const auto& dc : dc_order)
    for (NodeId n : list)
      if (topo.nodes[n].dc == dc) out.push_back(topo.nodes[n].id);
  return out;
}

std::vector<std::string> ids(const Topology& topo, std::span<const NodeId> list) {
  std::vector<std::string> out;
  for (NodeId n : list) out.push_back(topo.nodes[n].id);
  return out;
}

struct Counts {
  int lists = 0, nts_lists = 0, driver_duplicates = 0, deferred_lists = 0, modelled_duplicates = 0;
};

// Compares one topology; `deferred_lists` counts NTS lists whose driver order differs from the
// server order (so that an order check is not vacuous).
void check_topology(const Shape& s, std::uint64_t seed, const fs::path& dir, Counts& counts) {
  SCOPED_TRACE(fmt::format("seed {}", seed));
  const fs::path topo_path = dir / fmt::format("topology-{}.json", seed);
  const fs::path answers_path = dir / fmt::format("answers-{}.json", seed);
  std::ofstream(topo_path) << make_topology(s, seed).dump();
  ASSERT_EQ(testing_files::shell(fmt::format("/usr/bin/python3 '{}' '{}' > '{}'", kScript.string(),
                                             topo_path.string(), answers_path.string())),
            0);
  const json answers = json::parse(testing_files::slurp(answers_path));
  const TopologyFile tf = load_topology_file(topo_path.string());
  const Topology& topo = tf.topology;
  const TokenRing ring(tf.topology, tf.replication);
  const auto dc_order = answers["dc_order"].get<std::vector<std::string>>();
  const policy::DriverReplicaMap model = policy::python::python325_replica_map(topo, tf.replication);

  auto check_list = [&](const json& got, Token t) {
    ++counts.lists;
    const auto driver = got.get<std::vector<std::string>>();
    const auto modelled = ids(topo, model.replicas(t));
    EXPECT_EQ(driver, modelled) << "token " << t << ": the driver's list, then replica_source python-3.25's";
    if (std::set<std::string>(modelled.begin(), modelled.end()).size() < modelled.size()) ++counts.modelled_duplicates;
    const auto server = ring.replicas(t, ReplicaOrder::Server);
    const auto java = ring.replicas(t, ReplicaOrder::Driver);
    if (s.simple) {
      EXPECT_EQ(driver, ids(topo, server)) << "token " << t;
      EXPECT_EQ(driver, ids(topo, java)) << "token " << t;
      return;
    }
    ++counts.nts_lists;
    if (!std::equal(server.begin(), server.end(), java.begin(), java.end())) ++counts.deferred_lists;
    const auto server_ids = ids(topo, server);
    const std::set<std::string> server_set(server_ids.begin(), server_ids.end());
    const std::set<std::string> driver_set(driver.begin(), driver.end());
    if (driver_set.size() < driver.size()) {  // the driver's duplicate bug, never lbsim's
      ++counts.driver_duplicates;
      EXPECT_EQ(server_set.size(), server_ids.size()) << "token " << t;
      // (Where a DC's RF exceeds its nodes, the repeats also pad the list beyond them.)
      EXPECT_TRUE(std::includes(server_set.begin(), server_set.end(), driver_set.begin(), driver_set.end()))
          << "token " << t;
      return;
    }
    EXPECT_EQ(driver_set, server_set) << "token " << t;
    EXPECT_EQ(driver, regroup(topo, java, dc_order)) << "token " << t;
  };

  ASSERT_EQ(answers["keys"].size(), tf.keys.size());
  for (std::size_t i = 0; i < tf.keys.size(); ++i) {
    const auto& a = answers["keys"][i];
    EXPECT_EQ(a["routing_key"].get<std::string>(), to_hex(tf.keys[i].routing_key)) << tf.keys[i].text;
    const Token t = murmur3_token(tf.keys[i].routing_key);
    EXPECT_EQ(a["token"].get<std::string>(), std::to_string(t)) << tf.keys[i].text;
    check_list(a["replicas"], t);
  }
  ASSERT_EQ(answers["tokens"].size(), tf.tokens.size());
  for (std::size_t i = 0; i < tf.tokens.size(); ++i) check_list(answers["tokens"][i]["replicas"], tf.tokens[i]);
}

TEST(PythonDriver, TokensAndReplicaListsAgreeOnRandomTopologies) {
  ASSERT_EQ(testing_files::shell("/usr/bin/python3 -c 'import cassandra.metadata' 2>/dev/null"), 0)
      << "Debian's python3-cassandra is missing: scripts/deps.sh installs it (scripts/dev test runs it)";
  const std::vector<Shape> shapes{
      {{5}, {1}, 1, true, {3}},
      {{7}, {4}, 256, true, {3}},
      {{10}, {4}, 4, true, {5}},
      {{6}, {3}, 1, false, {3}},
      {{8}, {2}, 16, false, {4}},   // 2 racks, RF 4: the driver's duplicate bug can occur
      {{9}, {3}, 16, false, {5}},
      {{12}, {3}, 64, false, {3}},
      {{4, 3}, {2, 1}, 8, false, {3, 2}},
      {{6, 6}, {3, 3}, 256, false, {3, 3}},
      {{5, 4, 3}, {3, 2, 4}, 32, false, {3, 2, 4}},
      {{3, 5, 2}, {1, 4, 2}, 64, false, {2, 6, 3}},  // RF above a DC's nodes
      {{2, 2}, {2, 1}, 128, false, {3, 1}},
  };
  const fs::path dir = fs::temp_directory_path() / fmt::format("lbsim-python-driver-{}", ::getpid());
  fs::create_directories(dir);
  Counts counts;
  for (std::size_t i = 0; i < shapes.size(); ++i) check_topology(shapes[i], 1000 + i, dir, counts);
  fs::remove_all(dir);
  std::printf("python driver cross-check: %d lists (%d NTS, %d in an order other than the server's), "
              "%d with the driver's duplicate bug (%d in lbsim's python-3.25 map)\n",
              counts.lists, counts.nts_lists, counts.deferred_lists, counts.driver_duplicates, counts.modelled_duplicates);
  EXPECT_GT(counts.lists, 4000);
  // The cases must exercise what they are meant to: rack deferral that reorders lists, and the
  // driver's bug (which must be told apart from an lbsim error).
  EXPECT_GT(counts.deferred_lists, 200);
  EXPECT_GT(counts.driver_duplicates, 0);
  EXPECT_EQ(counts.modelled_duplicates, counts.driver_duplicates);
}

}  // namespace
}  // namespace lbsim
