// Topology-file validation (issue 2 section 5): every bad input gets one message naming the JSON
// path, and `lbsim ring` / `lbsim replicas` exit with code 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "sim/config/scenario.hpp"
#include "sim/config/topology_file.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_topology_file(jsonin::parse_text(text, "t.json"), "t.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kKs = R"("keyspace": {"class": "SimpleStrategy", "rf": 1})";
std::string with_nodes(const std::string& nodes, const std::string& rest = "") {
  return "{\"nodes\": " + nodes + ", " + kKs + rest + "}";
}

struct BadCase {
  std::string name, text, expected;
};

TEST(TopologyFile, EveryBadInputNamesItsJsonPath) {
  const std::string n1 = R"({"id": "a", "dc": "dc1", "rack": "r1", "tokens": ["1"]})";
  const std::vector<BadCase> cases{
      {"duplicate token", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": [5]}, {"id": "b", "dc": "d", "rack": "r", "tokens": ["5"]}])"),
       "/nodes/1/tokens/0: duplicate token 5 (also owned by node 'a')"},
      {"token above range", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": ["9223372036854775808"]}])"),
       "/nodes/0/tokens/0: token 9223372036854775808 is out of range"},
      {"token below range", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": ["-9223372036854775809"]}])"),
       "/nodes/0/tokens/0: token -9223372036854775809 is out of range"},
      {"integer token above range", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": [9223372036854775808]}])"),
       "/nodes/0/tokens/0: token 9223372036854775808 is out of range"},
      {"token not a number", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": ["12x"]}])"),
       "/nodes/0/tokens/0: token '12x' is not a decimal integer"},
      {"node without tokens", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": []}])"),
       "/nodes/0/tokens: must not be empty"},
      {"node missing tokens", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r"}])"), "/nodes/0/tokens: node 'a' has no tokens"},
      {"duplicate node id", with_nodes("[" + n1 + R"(, {"id": "a", "dc": "dc1", "rack": "r1", "tokens": ["2"]}])"),
       "/nodes/1/id: duplicate node id 'a'"},
      {"no nodes", with_nodes("[]"), "/nodes: must not be empty"},
      {"rf zero", "{\"nodes\": [" + n1 + R"(], "keyspace": {"class": "SimpleStrategy", "rf": 0}})", "/keyspace/rf: must be in [1, 1000000], got 0"},
      {"rf negative", "{\"nodes\": [" + n1 + R"(], "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": -1}}})",
       "/keyspace/rf/dc1: must be in [1, 1000000], got -1"},
      {"unknown class", "{\"nodes\": [" + n1 + R"(], "keyspace": {"class": "LocalStrategy", "rf": 1}})",
       "/keyspace/class: unknown replication class 'LocalStrategy'; valid: SimpleStrategy, NetworkTopologyStrategy"},
      {"unknown top-level key", with_nodes("[" + n1 + "]", R"(, "tokenz": [])"), "/tokenz: unknown key 'tokenz'; allowed keys: nodes, keyspace"},
      {"unknown node key", with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": ["1"], "token": 3}])"),
       "/nodes/0/token: unknown key 'token'; allowed keys: id, dc, rack, tokens"},
      {"malformed hex", with_nodes("[" + n1 + "]", R"(, "keys": ["abc"])"), "/keys/0: malformed hex 'abc'"},
      {"non-hex digits", with_nodes("[" + n1 + "]", R"(, "keys": [["00", "zz"]])"), "/keys/0/1: malformed hex 'zz'"},
      {"empty key", with_nodes("[" + n1 + "]", R"(, "keys": [""])"), "/keys/0: empty key"},
      {"key of wrong type", with_nodes("[" + n1 + "]", R"(, "keys": [12])"), "/keys/0: a key must be a hex string or an array of hex strings, got an integer"},
      {"sharding out of range", with_nodes("[" + n1 + "]", R"(, "sharding": {"nr_shards": 0})"), "/sharding/nr_shards: must be in [1, 65535], got 0"},
      {"msb out of range", with_nodes("[" + n1 + "]", R"(, "sharding": {"nr_shards": 2, "msb_ignore": 64})"), "/sharding/msb_ignore: must be in [0, 63], got 64"},
      {"wrong type for dc", with_nodes(R"([{"id": "a", "dc": 1, "rack": "r", "tokens": ["1"]}])"), "/nodes/0/dc: must be a string, got an integer"},
      {"not an object", "[1, 2]", "/: must be an object, got an array"},
      {"missing keyspace", "{\"nodes\": [" + n1 + "]}", "/keyspace: required field is missing"},
  };
  for (const auto& c : cases) {
    const std::string got = error_of(c.text);
    EXPECT_NE(got.find(c.expected), std::string::npos) << c.name << "\n  got:      " << got << "\n  expected: " << c.expected;
  }
}

TEST(TopologyFile, CompositeComponentOver65535BytesIsRejected) {
  const std::string big(2 * 65536, 'a');
  const std::string text = with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": ["1"]}])",
                                      ", \"keys\": [[\"00\", \"" + big + "\"]]");
  EXPECT_NE(error_of(text).find("/keys/0/1: composite key component of 65536 bytes exceeds the limit of 65535"),
            std::string::npos);
}

TEST(TopologyFile, DatacenterWithoutNodesIsAWarningNotAnError) {
  const auto tf = parse_topology_file(
      jsonin::parse_text(R"({"nodes": [{"id": "a", "dc": "dc1", "rack": "r1", "tokens": ["1"]}],
        "keyspace": {"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "rf": {"dc1": 1, "dc9": 3}}})", "t"),
      "t");
  ASSERT_EQ(tf.warnings.size(), 1u);
  EXPECT_NE(tf.warnings[0].find("/keyspace/rf/dc9: datacenter 'dc9' has no nodes"), std::string::npos);
  EXPECT_EQ(tf.replication.kind, StrategyKind::NetworkTopology);
}

TEST(TopologyFile, KeysTokensAndShardingAreRead) {
  const auto tf = parse_topology_file(
      jsonin::parse_text(R"({"nodes": [{"id": "a", "dc": "dc1", "rack": "r1", "tokens": [-5, "7"]}],
        "keyspace": {"class": "SimpleStrategy", "rf": 1}, "keys": ["313233", ["0a", ""]],
        "tokens": ["-9223372036854775808", 9223372036854775807], "sharding": {"nr_shards": 8}})", "t"),
      "t");
  EXPECT_EQ(tf.topology.nodes[0].tokens, (std::vector<Token>{-5, 7}));
  ASSERT_EQ(tf.keys.size(), 2u);
  EXPECT_EQ(murmur3_token(tf.keys[0].routing_key), -7468325962851647638);  // "123"
  EXPECT_EQ(to_hex(tf.keys[1].routing_key), "00010a00000000");  // [0001][0a][00] [0000][][00]
  EXPECT_EQ(tf.tokens, (std::vector<Token>{kMinToken, kMaxToken}));
  ASSERT_TRUE(tf.sharding);
  EXPECT_EQ(tf.sharding->nr_shards, 8u);
  EXPECT_EQ(tf.sharding->msb_ignore, 12u);
}

// The CLI maps every bad input to exit code 2 with a message on stderr and nothing on stdout.
int run_cli(const std::string& args, std::string& out, std::string& err) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto o = dir / fmt::format("lbsim-cli-{}.out", ::getpid());
  const auto e = dir / fmt::format("lbsim-cli-{}.err", ::getpid());
  const int rc = std::system(fmt::format("{} {} >{} 2>{}", LBSIM_BINARY, args, o.string(), e.string()).c_str());
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  out = slurp(o);
  err = slurp(e);
  std::filesystem::remove(o);
  std::filesystem::remove(e);
  return WEXITSTATUS(rc);
}

TEST(TopologyFile, CliExitsWithCode2OnBadFilesAndPrintsNothingOnStdout) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("lbsim-bad-{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "notjson.json") << "{\"nodes\": [1,";
  std::ofstream(dir / "empty.json") << "";
  std::ofstream(dir / "dup.json") << with_nodes(R"([{"id": "a", "dc": "d", "rack": "r", "tokens": [5, 5]}])");
  struct Cli {
    std::string args, expected;
  };
  const std::vector<Cli> cases{
      {"ring " + (dir / "missing.json").string(), "missing.json: no such file"},
      {"ring " + (dir / "notjson.json").string(), "notjson.json: not valid JSON (line 1, column 14)"},
      {"ring " + (dir / "empty.json").string(), "empty.json: file is empty"},
      {"ring " + dir.string(), "is a directory"},
      {"replicas " + (dir / "dup.json").string() + " --json", "dup.json: /nodes/0/tokens/1: duplicate token 5"},
      {"ring", "missing FILE; usage: lbsim ring FILE"},
      {"ring a.json --bogus", "unrecognised option '--bogus'"},
  };
  for (const auto& c : cases) {
    std::string out, err;
    EXPECT_EQ(run_cli(c.args, out, err), 2) << c.args;
    EXPECT_EQ(out, "") << c.args;
    EXPECT_NE(err.find(c.expected), std::string::npos) << c.args << "\n  stderr: " << err;
  }
  std::filesystem::remove_all(dir);
}

TEST(TopologyFile, CliRingPrintsOwnershipThatSumsToOne) {
  std::string out, err;
  ASSERT_EQ(run_cli(std::string("ring ") + LBSIM_SOURCE_DIR + "/configs/default.json --json", out, err), 0) << err;
  const auto j = nlohmann::json::parse(out);
  double prim = 0, repl = 0;
  for (const auto& n : j["nodes"]) {
    prim += n["primary_fraction"].get<double>();
    repl += n["replica_fraction"].get<double>();
    EXPECT_EQ(n["num_tokens"].get<int>(), 256);
  }
  EXPECT_EQ(j["nodes"].size(), 6u);
  EXPECT_NEAR(prim, 1.0, 1e-12);
  EXPECT_NEAR(repl, 3.0, 1e-12);
  EXPECT_NEAR(j["dc_stats"]["dc1"]["replica_fraction"]["mean"].get<double>(), 0.5, 1e-12);
}

// Issue 34: a scenario with a topology file (RF 2) and its own keyspace (RF 3) runs RF 3, the
// scenario's, and says so on stderr and in every report's warnings[], naming both keyspaces (the
// scenario's JSON path, the topology file and its /keyspace). The same keyspace written another
// way (the Java class name, DCs in another order) is no conflict.
TEST(TopologyFile, ScenarioKeyspaceOverridesTheFilesWithAWarningNamingBoth) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("lbsim-ks-{}", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "topo.json") << R"({"generator": "test", "nodes": [
    {"id": "a", "dc": "dc1", "rack": "r1", "tokens": [-100]}, {"id": "b", "dc": "dc1", "rack": "r2", "tokens": [0]},
    {"id": "c", "dc": "dc1", "rack": "r3", "tokens": [100]}, {"id": "d", "dc": "dc2", "rack": "r1", "tokens": [200]}],
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 2, "dc2": 1}}})";
  auto scenario = [&](const std::string& keyspace) {
    std::ofstream(dir / "s.json") << R"({"name": "ks", "cluster": {"topology_file": "topo.json"}, )" << keyspace
                                  << R"("client": {"threads": 2}, "workload": {"ops": 300, "warmup_ops": 0},
      "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]})";
    return load_scenario((dir / "s.json").string());
  };
  const std::string expected =
      "/keyspace (NetworkTopologyStrategy {dc1: 3, dc2: 1}) differs from topo.json:/keyspace "
      "(NetworkTopologyStrategy {dc1: 2, dc2: 1}), the keyspace of the topology file that /cluster/topology_file "
      "names: the run uses /keyspace; remove it to use the file's (--set keyspace=null)";
  const Scenario over = scenario(R"("keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3, "dc2": 1}}, )");
  EXPECT_EQ(over.ring->replicas_per_range(), 4u);  // RF 3 + 1: the scenario's
  ASSERT_EQ(over.warnings.size(), 1u);
  EXPECT_EQ(over.warnings[0], expected);
  const RunResult r = run_simulation(over, over.policies[0], over.seed);
  EXPECT_EQ(report_json(r)["warnings"], nlohmann::ordered_json::array({expected}));
  std::string out, err;
  ASSERT_EQ(run_cli(fmt::format("analyze {}", (dir / "s.json").string()), out, err), 0) << err;
  EXPECT_NE(err.find("lbsim analyze: warning: " + expected), std::string::npos) << err;

  const Scenario same = scenario(
      R"("keyspace": {"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "rf": {"dc2": 1, "dc1": 2}}, )");
  EXPECT_TRUE(same.warnings.empty()) << same.warnings[0];
  const Scenario file_only = scenario("");
  EXPECT_TRUE(file_only.warnings.empty());
  EXPECT_EQ(file_only.ring->replicas_per_range(), 3u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lbsim
