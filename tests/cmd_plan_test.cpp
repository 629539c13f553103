// `lbsim plan` and `lbsim policies` end to end: the J3 NEUTRAL case (4 nodes, Scassandra tokens)
// as JSON, the 4.x state file, and exit code 2 with the valid values on bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;

struct CmdResult {
  int rc;
  std::string out, err;
};

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() / fmt::format("lbsim_cmd_plan_{}", ::getpid());
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

using ::lbsim::testing_files::slurp;

CmdResult lbsim(const std::string& args) {
  const fs::path d = scratch();
  const int rc = std::system(fmt::format("{} {} >{} 2>{}", LBSIM_BINARY, args, (d / "out").string(), (d / "err").string()).c_str());
  return {WEXITSTATUS(rc), slurp(d / "out"), slurp(d / "err")};
}

// Four nodes, one token each at multiples of 2^61 - 1, SimpleStrategy with `rf`.
std::string topology(int rf = 2) {
  const fs::path f = scratch() / fmt::format("topo4-rf{}.json", rf);
  write(f, fmt::format(R"({{"nodes": [{{"id":"n1","dc":"dc1","rack":"r1","tokens":[0]}},
    {{"id":"n2","dc":"dc1","rack":"r1","tokens":[2305843009213693951]}},
    {{"id":"n3","dc":"dc1","rack":"r1","tokens":[4611686018427387902]}},
    {{"id":"n4","dc":"dc1","rack":"r1","tokens":[6917529027641081853]}}],
    "keyspace": {{"class":"SimpleStrategy","rf":{}}}}})",
                       rf));
  return f.string();
}

TEST(PlanCommand, PrintsTheNeutralPlanOfTheJ3TestAsJson) {
  const CmdResult r = lbsim("plan " + topology() +
                      R"( --policy '{"type":"TokenAware","ordering":"NEUTRAL","child":{"type":"RoundRobin"}}')"
                      " --token 6444339665561646341 --down n2 --count 2 --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["token"], "6444339665561646341");
  EXPECT_EQ(j["replicas"], nlohmann::json({"n4", "n1"}));
  ASSERT_EQ(j["plans"].size(), 2u);
  for (const auto& p : j["plans"]) {
    ASSERT_EQ(p.size(), 3u) << "n2 is down";
    EXPECT_TRUE((p[0] == "n4" && p[1] == "n1") || (p[0] == "n1" && p[1] == "n4")) << p;
    EXPECT_EQ(p[2], "n3");
  }
}

TEST(PlanCommand, StateFileDemotesABusyReplicaWithStaleResponses) {
  const fs::path s = scratch() / "state.json";
  write(s, R"({"now_ms": 1000, "hosts": {"n4": {"in_flight": 30, "response_times_ms": [500, 600]}}})");
  const std::string t = topology(3);
  const CmdResult r = lbsim("plan " + t + R"( --policy '{"type":"Default4x","shuffle_replicas":false}' --token -5 --state )" +
                      s.string() + " --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  // Replicas of token -5: n1, n2, n3 (n4 is not one), so n4's state does not matter here...
  EXPECT_EQ(nlohmann::json::parse(r.out)["plans"][0], nlohmann::json({"n1", "n2", "n3", "n4"}));
  // ...but for token 6444339665561646341 (replicas n4, n1, n2) n4 is demoted behind n1 and n2.
  const CmdResult r2 = lbsim("plan " + t + R"( --policy '{"type":"Default4x","shuffle_replicas":false}' --token 6444339665561646341 --state )" +
                       s.string() + " --json");
  ASSERT_EQ(r2.rc, 0) << r2.err;
  EXPECT_EQ(nlohmann::json::parse(r2.out)["plans"][0], nlohmann::json({"n1", "n2", "n4", "n3"}));
}

TEST(PlanCommand, BadPolicyTypeExitsWithTwoAndListsTheTypes) {
  const CmdResult r = lbsim("plan " + topology() + R"( --policy '{"type":"RANDON"}' --token 1)");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--policy/type: unknown policy type 'RANDON'; valid: Basic4x, DCAwareRoundRobin"), std::string::npos) << r.err;
}

TEST(PlanCommand, PolicyFileErrorsNameTheFileAndTheJsonPath) {
  const fs::path f = scratch() / "policy.json";
  write(f, R"({"type":"TokenAware","ordering":"RANDUM","child":{"type":"RoundRobin"}})");
  const CmdResult r = lbsim("plan " + topology() + " --policy " + f.string() + " --token 1");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(f.string() + ": /ordering: unknown value 'RANDUM'; valid: RANDOM, TOPOLOGICAL, NEUTRAL"),
            std::string::npos)
      << r.err;
  write(f, R"({"type":"TokenAware","child":{"type":"DCAwareRoundRobin","local_dc":"dc9"}})");
  const CmdResult r2 = lbsim("plan " + topology() + " --policy " + f.string() + " --token 1");
  EXPECT_EQ(r2.rc, 2);
  EXPECT_NE(r2.err.find(f.string() + ": /child/local_dc: unknown datacenter 'dc9'; valid: dc1"), std::string::npos)
      << r2.err;
  // A good file gives the same plans as the same spec inline.
  write(f, R"({"type":"TokenAware","ordering":"TOPOLOGICAL","child":{"type":"RoundRobin"}})");
  const CmdResult from_file = lbsim("plan " + topology() + " --policy " + f.string() + " --token 1 --json");
  const CmdResult from_text = lbsim("plan " + topology() +
                                    R"( --policy '{"type":"TokenAware","ordering":"TOPOLOGICAL","child":{"type":"RoundRobin"}}')"
                                    " --token 1 --json");
  ASSERT_EQ(from_file.rc, 0) << from_file.err;
  EXPECT_EQ(from_file.out, from_text.out);
  EXPECT_EQ(nlohmann::json::parse(from_file.out)["plans"][0][0], "n2");  // token 1: first replica n2
}

TEST(PlanCommand, KeyAndTokenAreMutuallyExclusive) {
  const CmdResult r = lbsim("plan " + topology() + R"( --policy '{"type":"RoundRobin"}' --token 1 --key 00)");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("exactly one of --key HEX and --token T"), std::string::npos) << r.err;
}

TEST(PoliciesCommand, ListsEveryRegisteredType) {
  const CmdResult r = lbsim("policies --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GE(j.size(), 8u);
  // Grouped by driver, the Java 3.x policies first, sorted by type within a driver.
  EXPECT_EQ(j[0]["type"], "DCAwareRoundRobin");
  EXPECT_EQ(j[0]["driver"], "Java driver 3.x (DataStax and ScyllaDB)");
  nlohmann::json ta;
  for (const auto& p : j)
    if (p["type"] == "TokenAware") ta = p;
  ASSERT_TRUE(ta.is_object());
  EXPECT_EQ(ta["params"][0], nlohmann::json({{"name", "ordering"}, {"values", "RANDOM | TOPOLOGICAL | NEUTRAL"},
                                             {"default", "RANDOM"}}));
  EXPECT_EQ(ta["params"].size(), 3u);
  for (std::size_t i = 1; i < j.size(); ++i)
    if (j[i]["driver"] == j[i - 1]["driver"]) {
      EXPECT_LT(j[i - 1]["type"], j[i]["type"]);
    }
}

}  // namespace

namespace {

// `--policy` takes a scenario's policy name, as `lbsim run --policy NAME` does (issue 13), and
// gives the same plans as the spec itself.
TEST(PlanCommand, APolicyNameOfTheScenarioEqualsItsSpec) {
  const std::string cfg = std::string(LBSIM_SOURCE_DIR) + "/configs/default.json";
  const CmdResult by_name = lbsim("plan " + cfg + " --policy neutral --key 0001 --count 3 --json");
  const CmdResult by_spec =
      lbsim("plan " + cfg +
            R"( --policy '{"type":"TokenAware","ordering":"NEUTRAL","child":{"type":"DCAwareRoundRobin","local_dc":"dc1"}}')" +
            " --key 0001 --count 3 --json");
  ASSERT_EQ(by_name.rc, 0) << by_name.err;
  ASSERT_EQ(by_spec.rc, 0) << by_spec.err;
  EXPECT_EQ(nlohmann::json::parse(by_name.out)["plans"], nlohmann::json::parse(by_spec.out)["plans"]);
  const CmdResult bad = lbsim("plan " + cfg + " --policy nope --key 01");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("policies: random, topological, neutral"), std::string::npos) << bad.err;
}

// `lbsim ring` and `lbsim replicas` on a tablet keyspace (issue 11): tablets per node and per
// shard, and for a key its tablet (index = (token + 2^63) >> (64 - log2 N)), range and replicas.
TEST(TabletsCli, RingCountsTabletsPerNodeAndShardAndReplicasNamesTheKeysTablet) {
  const std::string cfg = std::string(LBSIM_SOURCE_DIR) + "/configs/tablets-vs-vnodes.json";
  const CmdResult ring = lbsim("ring " + cfg + " --json");
  ASSERT_EQ(ring.rc, 0) << ring.err;
  const auto rj = nlohmann::json::parse(ring.out);
  ASSERT_TRUE(rj.contains("tablets"));
  EXPECT_EQ(rj["tablets"]["count"], 256);  // 6 x 7 shards, RF 3: ceil(10 x 42 / 3) = 140 -> 256
  EXPECT_EQ(rj["tablets"]["shards_per_node"], 7);
  std::uint64_t total = 0;
  for (const auto& n : rj["tablets"]["nodes"]) {
    std::uint64_t shards = 0;
    for (const auto& v : n["per_shard"]) {
      shards += v.get<std::uint64_t>();
      EXPECT_GE(v.get<int>(), 18);  // 768 replicas on 42 shards: 18 or 19 each
      EXPECT_LE(v.get<int>(), 19);
    }
    EXPECT_EQ(shards, n["tablets"].get<std::uint64_t>());
    total += shards;
  }
  EXPECT_EQ(total, 768u);
  EXPECT_NEAR(rj["tablets"]["dc_stats"]["dc1"]["per_shard"]["max_over_mean"].get<double>(), 19.0 / (768.0 / 42), 1e-3);

  const CmdResult rep = lbsim("replicas " + cfg + " --key 0001 --token 0");
  ASSERT_EQ(rep.rc, 0) << rep.err;
  const auto pj = nlohmann::json::parse(rep.out);
  const auto& key = pj["keys"][0];
  const auto t = std::stoll(key["token"].get<std::string>());
  const auto index = (static_cast<std::uint64_t>(t) + (std::uint64_t{1} << 63)) >> (64 - 8);
  EXPECT_EQ(key["tablet"]["id"], index);
  EXPECT_LT(std::stoll(key["tablet"]["first_exclusive"].get<std::string>()), t);
  EXPECT_GE(std::stoll(key["tablet"]["last"].get<std::string>()), t);
  ASSERT_EQ(key["tablet"]["replicas"].size(), 3u);
  EXPECT_EQ(key["replicas"].size(), 3u);
  // Token 0 is in tablet 128 of 256, whose range ends at 2^56 - 1.
  EXPECT_EQ(pj["tokens"][0]["tablet"]["id"], 128);
  EXPECT_EQ(pj["tokens"][0]["tablet"]["last"], std::to_string((std::int64_t{1} << 56) - 1));
  EXPECT_EQ(pj["tokens"][0]["tablet"]["first_exclusive"], "-1");
}

}  // namespace
