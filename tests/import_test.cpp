// `lbsim import` (issue 13): nodetool ring / describering output and CSV into a topology file that
// the ring code reads back with the same tokens, DCs and racks.
#include <gtest/gtest.h>

#include "sim/cluster/ring.hpp"
#include "sim/config/import.hpp"
#include "sim/config/topology_file.hpp"
#include "sim/core/error.hpp"

namespace lbsim::import_test {

const char* kRing = R"(
Datacenter: dc1
==========
Address     Rack        Status State   Load            Owns                Token
                                                                           4611686018427387904
10.0.0.1    r1          Up     Normal  1.12 GiB        25.00%              -9223372036854775807
10.0.0.2    r2          Up     Normal  1.10 GiB        25.00%              -4611686018427387904
10.0.0.1    r1          Up     Normal  1.12 GiB        25.00%              0
10.0.0.2    r2          Up     Normal  1.10 GiB        25.00%              4611686018427387904

Datacenter: dc2
==========
Address     Rack        Status State   Load            Owns                Token
10.1.0.1    rack1       Up     Normal  1.12 GiB        50.00%              -9223372036854775707
10.1.0.2    rack1       Down   Normal  1.10 GiB        50.00%              100
)";

TEST(Import, NodetoolRingGivesNodesDcsRacksAndTokens) {
  const ImportedRing r = parse_ring_text(kRing, ImportFormat::NodetoolRing, "ring.txt");
  ASSERT_EQ(r.nodes.size(), 4u);
  EXPECT_EQ(r.nodes[0].id, "10.0.0.1");
  EXPECT_EQ(r.nodes[0].dc, "dc1");
  EXPECT_EQ(r.nodes[0].rack, "r1");
  EXPECT_EQ(r.nodes[0].tokens, (std::vector<Token>{-9223372036854775807LL, 0}));
  EXPECT_EQ(r.nodes[3].dc, "dc2");
  EXPECT_EQ(r.nodes[3].tokens, (std::vector<Token>{100}));
  // Read back as a topology file: the ring has the 6 tokens and RF 2 + 1 replicas per range.
  const auto doc = topology_file_json(r, parse_rf_option("dc1=2,dc2=1"), "test");
  const TopologyFile tf = parse_topology_file(doc, "imported.json");
  const TokenRing ring(tf.topology, tf.replication);
  EXPECT_EQ(ring.size(), 6u);
  EXPECT_EQ(ring.replicas_per_range(), 3u);
  EXPECT_EQ(ring.topology().nodes[ring.owner(1)].id, "10.1.0.2");    // (0, 100] is 10.1.0.2's
  EXPECT_EQ(ring.topology().nodes[ring.owner(200)].id, "10.0.0.2");  // (100, 2^62] is 10.0.0.2's
}

TEST(Import, DescriberingAndCsvGiveTheSameRing) {
  const std::string desc =
      "TokenRange(start_token:100, end_token:-9223372036854775807, endpoints:[10.0.0.1], rpc_endpoints:[10.0.0.1], "
      "endpoint_details:[EndpointDetails(host:10.0.0.1, datacenter:dc1, rack:r1), EndpointDetails(host:10.1.0.1, "
      "datacenter:dc2, rack:rack1)])\n"
      "TokenRange(start_token:-9223372036854775807, end_token:100, endpoints:[10.1.0.1], "
      "endpoint_details:[EndpointDetails(host:10.1.0.1, datacenter:dc2, rack:rack1), EndpointDetails(host:10.0.0.1, "
      "datacenter:dc1, rack:r1)])\n";
  const ImportedRing a = parse_ring_text(desc, ImportFormat::Describering, "desc.txt");
  const ImportedRing b = parse_ring_text("address,dc,rack,tokens\n10.0.0.1,dc1,r1,-9223372036854775807\n"
                                         "10.1.0.1,dc2,rack1,100\n",
                                         ImportFormat::Csv, "nodes.csv");
  ASSERT_EQ(a.nodes.size(), 2u);
  ASSERT_EQ(b.nodes.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.nodes[i].id, b.nodes[i].id);
    EXPECT_EQ(a.nodes[i].dc, b.nodes[i].dc);
    EXPECT_EQ(a.nodes[i].rack, b.nodes[i].rack);
    EXPECT_EQ(a.nodes[i].tokens, b.nodes[i].tokens);
  }
  // cassandra-rackdc.properties overrides the DC and rack.
  NodeSpec n = a.nodes[0];
  apply_rackdc(n, "# comment\ndc=east\nrack=rackA\nprefer_local=true\n", "rackdc");
  EXPECT_EQ(n.dc, "east");
  EXPECT_EQ(n.rack, "rackA");
}

TEST(Import, BadInputNamesTheLine) {
  try {
    (void)parse_ring_text("address,dc,rack,tokens\n10.0.0.1,dc1,r1,12x\n", ImportFormat::Csv, "nodes.csv");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "nodes.csv:2");
  }
  EXPECT_THROW((void)parse_ring_text("a,dc1,r1,5\nb,dc1,r1,5\n", ImportFormat::Csv, "x.csv"), ConfigError);  // owned twice
  EXPECT_THROW((void)parse_ring_text("hello\n", ImportFormat::NodetoolRing, "x.txt"), ConfigError);         // no node
  EXPECT_THROW((void)parse_rf_option("dc1=0"), ConfigError);
  EXPECT_THROW((void)parse_rf_option("three"), ConfigError);
  EXPECT_EQ(parse_rf_option("3").simple_rf, 3);
}

}  // namespace lbsim::import_test

#include <fstream>
#include <regex>
#include <sstream>

#include "sim/config/scenario.hpp"

namespace lbsim::import_test {

// The examples in configs/README.md ("Topology files", "A minimal scenario") stay valid.
TEST(ConfigDocs, TheReadmesTopologyFileAndMinimalScenarioAreValid) {
  std::ifstream in(std::string(LBSIM_SOURCE_DIR) + "/configs/README.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::string> blocks;
  const std::regex re("```json\\n([\\s\\S]*?)```");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    blocks.push_back((*it)[1].str());
  ASSERT_GE(blocks.size(), 2u);
  const TopologyFile tf = parse_topology_file(jsonin::Json::parse(blocks[0]), "README topology");
  EXPECT_EQ(tf.topology.size(), 2u);
  EXPECT_EQ(tf.keys.size(), 2u);
  const Scenario sc = scenario_from_json(jsonin::Json::parse(blocks[1]), "README scenario", ".");
  EXPECT_EQ(sc.policies.size(), 2u);
  EXPECT_EQ(sc.topology().size(), 6u);
}

}  // namespace lbsim::import_test

#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "test_files.hpp"

namespace lbsim::import_test {

namespace fs = std::filesystem;
using testing_files::shell;
using testing_files::slurp;

// Runs `lbsim ARGS` in `dir`; stdout and stderr to dir/out and dir/err; the exit code.
int lbsim_in(const fs::path& dir, const std::string& args) {
  return shell("cd '" + dir.string() + "' && '" + LBSIM_BINARY + "' " + args + " >out 2>err");
}

// Issue 34: from `nodetool ring` output to runs on that ring with no hand-editing. `import
// --scenario` writes a runnable scenario with the topology file beside it; every command that takes
// a ring (run, sweep, analyze, ring, plan, replicas) takes what it wrote; nodetool output given to
// a JSON command points to `lbsim import`; a topology file given where a scenario is needed says
// how to make one; and nothing is announced before it is written.
TEST(ImportCli, ScenarioAroundTheImportedRingRunsEverywhere) {
  const fs::path dir = fs::temp_directory_path() / ("lbsim-import-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sc");
  std::ofstream(dir / "ring.txt") << kRing;
  const std::string base = std::string(LBSIM_SOURCE_DIR) + "/configs/first-answer.json";

  // Nodetool output where JSON is expected.
  ASSERT_EQ(lbsim_in(dir, "ring ring.txt"), 2);
  EXPECT_NE(slurp(dir / "err").find("`nodetool ring` output; lbsim takes it through `lbsim import`: lbsim import "
                                    "--ring ring.txt"),
            std::string::npos)
      << slurp(dir / "err");

  ASSERT_EQ(lbsim_in(dir, "import --ring ring.txt --rf dc1=2,dc2=1 --scenario " + base + " -o sc/mine.json"), 0)
      << slurp(dir / "err");
  EXPECT_NE(slurp(dir / "err").find("wrote sc/mine.json"), std::string::npos) << slurp(dir / "err");
  const auto sc = nlohmann::json::parse(slurp(dir / "sc" / "mine.json"));
  EXPECT_EQ(sc["name"], "mine");
  EXPECT_EQ(sc["cluster"]["topology_file"], "mine.topology.json");  // relative to the scenario
  EXPECT_FALSE(sc["cluster"].contains("datacenters"));
  EXPECT_FALSE(sc.contains("keyspace"));  // the imported --rf is the keyspace
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "sc" / "mine.topology.json"))["nodes"].size(), 4u);
  const std::string small = " --set workload.ops=2000 --set workload.warmup_ops=100";
  const std::vector<std::string> commands{
      "run sc/mine.json --quiet --out res" + small,
      "sweep sc/mine.json --set client.threads=2,4 --quiet --out sw" + small,
      "analyze sc/mine.json",
      "ring sc/mine.json",
      "ring sc/mine.topology.json",
      "plan sc/mine.json --policy topological --token 0",
      "plan sc/mine.topology.json --policy topological.json --token 0",
      "replicas sc/mine.topology.json --token 0",
      "replicas sc/mine.json --token 0"};
  for (const std::string& cmd : commands) {
    if (cmd.find("topological.json") != std::string::npos)
      std::ofstream(dir / "topological.json") << sc["policies"][2]["policy"].dump();
    EXPECT_EQ(lbsim_in(dir, cmd), 0) << cmd << ": " << slurp(dir / "err");
  }
  const auto report = nlohmann::json::parse(slurp(dir / "res" / "mine" / "random.json"));
  EXPECT_EQ(report["nodes"].size(), 4u);
  // The imported keyspace is the one in use.
  ASSERT_EQ(lbsim_in(dir, "plan sc/mine.json --policy neutral --token 0"), 0) << slurp(dir / "err");
  EXPECT_NE(slurp(dir / "out").find("replicas (driver order, NetworkTopologyStrategy {dc1: 2, dc2: 1}): "),
            std::string::npos)
      << slurp(dir / "out");

  // A topology file where a scenario is needed.
  ASSERT_EQ(lbsim_in(dir, "analyze sc/mine.topology.json"), 2);
  EXPECT_NE(slurp(dir / "err").find("this is a topology file"), std::string::npos) << slurp(dir / "err");
  EXPECT_NE(slurp(dir / "err").find("lbsim import --topology sc/mine.topology.json --scenario"), std::string::npos);
  // ... which import takes: a scenario around an existing topology file.
  ASSERT_EQ(lbsim_in(dir, "import --topology sc/mine.topology.json --scenario " + base + " -o again.json"), 0)
      << slurp(dir / "err");
  auto ring_of = [](const fs::path& p) {
    auto j = nlohmann::json::parse(slurp(p));
    j.erase("generator");
    return j;
  };
  EXPECT_EQ(ring_of(dir / "again.topology.json"), ring_of(dir / "sc" / "mine.topology.json"));

  // A base that does not fit the ring: exit 2, the --set that fixes it named, nothing written.
  ASSERT_EQ(lbsim_in(dir, "import --ring ring.txt --rf dc2=1 --scenario " + base + " -o bad.json"), 2);
  EXPECT_NE(slurp(dir / "err").find("does not fit the imported ring"), std::string::npos) << slurp(dir / "err");
  EXPECT_NE(slurp(dir / "err").find("--set PATH=VALUE"), std::string::npos) << slurp(dir / "err");
  EXPECT_FALSE(fs::exists(dir / "bad.json"));
  EXPECT_FALSE(fs::exists(dir / "bad.topology.json"));

  // An output that cannot be written: exit 1 and no success summary.
  std::ofstream(dir / "a-file") << "x";
  EXPECT_EQ(lbsim_in(dir, "import --ring ring.txt --rf dc1=2 -o a-file/topo.json"), 1);
  EXPECT_EQ(slurp(dir / "err").find("nodes in"), std::string::npos) << slurp(dir / "err");
  EXPECT_NE(slurp(dir / "err").find("cannot create folder 'a-file'"), std::string::npos) << slurp(dir / "err");
  fs::remove_all(dir);
}

// `--set PATH=null` removes a key: a scenario's "datacenters" make way for a topology file.
TEST(ImportCli, SetNullRemovesAKey) {
  jsonin::Json doc = jsonin::Json::parse(R"({"cluster": {"datacenters": [1], "num_tokens": 4}, "policies": [1, 2, 3]})");
  apply_set(doc, "cluster.datacenters=null");
  EXPECT_EQ(doc["cluster"], jsonin::Json::parse(R"({"num_tokens": 4})"));
  apply_set(doc, "/policies/1=null");
  EXPECT_EQ(doc["policies"], jsonin::Json::parse("[1, 3]"));
  EXPECT_THROW(apply_set(doc, "cluster.nodes=null"), ConfigError);        // nothing to remove: a typo
  EXPECT_THROW(apply_set(doc, "missing.inner=null"), ConfigError);
  EXPECT_FALSE(doc.contains("missing"));
  try {
    apply_set(doc, "cluster.datacenter=null");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no key 'datacenter' to remove; keys: num_tokens"), std::string::npos) << e.what();
  }
}

}  // namespace lbsim::import_test
