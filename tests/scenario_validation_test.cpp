// Every scenario validation error: each case patches a valid scenario and expects a ConfigError
// whose message names the JSON path (and, where there is a closed set, the valid values).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "sim/mech/spec_retry/spec_retry_spec.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace {

using jsonin::Json;

struct ValidationCase {
  const char* name;
  std::function<void(Json&)> patch;
  std::vector<std::string> expect;  // substrings of the message
};

void set(Json& d, const std::string& a) { apply_set(d, a); }

std::string write_trace(const std::string& name, const std::string& text) {
  const std::string file = ::testing::TempDir() + name;
  std::ofstream(file) << text;
  return file;
}

Json two_dcs() {
  Json d = testing::cluster_doc();
  d["cluster"]["datacenters"] = Json::parse(R"([{"name": "dc1", "racks": 3, "nodes": 3}, {"name": "dc2", "racks": 3, "nodes": 3}])");
  d["keyspace"] = Json::parse(R"({"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}})");
  return d;
}

const std::vector<ValidationCase>& cases() {
  static const std::vector<ValidationCase> c = {
      {"unknown top-level key", [](Json& d) { d["polices"] = Json::array(); }, {"polices"}},
      {"missing workload", [](Json& d) { d.erase("workload"); }, {"/workload", "missing"}},
      {"bad scenario name", [](Json& d) { set(d, "name=\"a/b\""); }, {"/name"}},
      {"wrong type", [](Json& d) { set(d, "client.threads=\"many\""); }, {"/client/threads"}},
      {"out of range", [](Json& d) { set(d, "client.threads=0"); }, {"/client/threads"}},
      {"unknown client key", [](Json& d) { set(d, "client.thread=4"); }, {"/client", "thread"}},
      {"unknown distribution", [](Json& d) { set(d, "cluster.service.read={\"dist\": \"gamma\"}"); },
       {"/cluster/service/read/dist", "valid: constant, exponential, lognormal, empirical"}},
      {"distribution of the wrong type", [](Json& d) { set(d, "network={\"same_dc\": \"fast\"}"); }, {"/network/same_dc"}},
      {"negative duration", [](Json& d) { set(d, "network={\"same_dc\": -5}"); }, {"/network/same_dc"}},
      {"lognormal p99 too far", [](Json& d) { set(d, "cluster.service.read={\"dist\": \"lognormal\", \"mean_us\": 100, \"p99_us\": 5000}"); },
       {"/cluster/service/read/p99_us", "14.97"}},
      {"lognormal p99 below mean", [](Json& d) { set(d, "cluster.service.read={\"dist\": \"lognormal\", \"mean_us\": 100, \"p99_us\": 50}"); },
       {"/cluster/service/read/p99_us"}},
      {"empirical not from 0", [](Json& d) { set(d, "cluster.service.read={\"dist\": \"empirical\", \"percentiles\": [[10, 5], [100, 9]]}"); },
       {"/cluster/service/read/percentiles", "percentile 0"}},
      {"empirical decreasing", [](Json& d) { set(d, "cluster.service.read={\"dist\": \"empirical\", \"percentiles\": [[0, 5], [50, 4], [100, 9]]}"); },
       {"/cluster/service/read/percentiles/1"}},
      {"unknown discipline", [](Json& d) { set(d, "cluster.discipline=fifo"); }, {"/cluster/discipline", "valid: per_shard, shared"}},
      {"speed of unknown node", [](Json& d) { set(d, "cluster.speed={\"n99\": 2}"); }, {"/cluster/speed/n99"}},
      {"shards disagree with sharding", [](Json& d) { set(d, "cluster.sharding={\"nr_shards\": 8}"); }, {"/cluster/shards", "nr_shards"}},
      {"unknown client dc", [](Json& d) { set(d, "client.dc=dc9"); }, {"/client/dc", "valid: dc1"}},
      {"unknown client rack", [](Json& d) { set(d, "client.rack=r9"); }, {"/client/rack", "valid: r1, r2, r3"}},
      {"threads and rate", [](Json& d) { set(d, "client.rate_ops_s=100"); }, {"/client", "not both"}},
      {"think with open loop",
       [](Json& d) {
         d["client"].erase("threads");
         set(d, "client.rate_ops_s=100");
         set(d, "client.think=5");
       },
       {"/client/think"}},
      {"arrivals with closed loop", [](Json& d) { set(d, "client.arrivals=poisson"); }, {"/client/arrivals"}},
      {"ops and duration", [](Json& d) { set(d, "workload.duration_s=5"); }, {"/workload", "not both"}},
      {"warmup_s with ops", [](Json& d) { set(d, "workload.warmup_s=5"); }, {"/workload/warmup_s"}},
      {"warmup_ops with duration",
       [](Json& d) {
         d["workload"].erase("ops");
         set(d, "workload.duration_s=1");
       },
       {"/workload/warmup_ops"}},
      {"zero mix", [](Json& d) { set(d, "workload.mix={\"read\": 0, \"write\": 0}"); }, {"/workload/mix"}},
      {"unknown consistency", [](Json& d) { set(d, "workload.consistency={\"read\": \"LOCAL_TWO\"}"); },
       {"/workload/consistency/read", "valid: ANY, ONE"}},
      {"serial for a plain write", [](Json& d) { set(d, "workload.consistency={\"write\": \"SERIAL\"}"); },
       {"/workload/consistency/write", "workload.mix.lwt"}},
      {"lwt at a regular level", [](Json& d) { set(d, "workload.consistency={\"lwt\": \"QUORUM\"}"); },
       {"/workload/consistency/lwt", "valid: SERIAL, LOCAL_SERIAL"}},
      {"ANY read", [](Json& d) { set(d, "workload.consistency={\"read\": \"ANY\"}"); }, {"/workload/consistency/read", "ANY"}},
      {"CL above replica count", [](Json& d) { set(d, "keyspace.rf.dc1=2"); set(d, "workload.consistency={\"read\": \"THREE\"}"); },
       {"/workload/consistency/read", "needs 3 replicas"}},
      {"LOCAL_QUORUM without local replicas",
       [](Json& d) {
         d = two_dcs();
         set(d, "client.dc=dc2");
         set(d, "policies.0.policy.child.local_dc=dc2");
         set(d, "policies.1.policy.local_dc=dc2");
         set(d, "workload.consistency={\"read\": \"ONE\", \"write\": \"LOCAL_QUORUM\"}");
       },
       {"/workload/consistency/write", "client's datacenter 'dc2'"}},
      {"EACH_QUORUM with SimpleStrategy",
       [](Json& d) {
         set(d, "keyspace={\"class\": \"SimpleStrategy\", \"rf\": 3}");
         set(d, "workload.consistency={\"write\": \"EACH_QUORUM\"}");
       },
       {"/workload/consistency/write", "NetworkTopologyStrategy"}},
      {"unknown key distribution", [](Json& d) { set(d, "workload.keys.distribution=pareto"); },
       {"/workload/keys/distribution", "valid: uniform, gaussian, zipf, exponential, sequential, hotspot"}},
      {"parameter of another distribution", [](Json& d) { set(d, "workload.keys.s=1.2"); }, {"/workload/keys/s"}},
      {"zipf exponent out of range", [](Json& d) { set(d, "workload.keys={\"distribution\": \"zipf\", \"s\": 0}"); }, {"/workload/keys/s"}},
      {"hotspot fraction out of range", [](Json& d) { set(d, "workload.keys={\"distribution\": \"hotspot\", \"hot_ops\": 1.5}"); },
       {"/workload/keys/hot_ops"}},
      {"unrouted fraction out of range", [](Json& d) { set(d, "workload.unrouted_fraction=1.5"); }, {"/workload/unrouted_fraction"}},
      {"rows per partition 0", [](Json& d) { set(d, "workload.rows={\"per_partition\": 0}"); }, {"/workload/rows/per_partition"}},
      {"missing trace file", [](Json& d) { set(d, "workload={\"trace\": {\"file\": \"/nonexistent/t.csv\"}}"); },
       {"/workload/trace/file", "cannot open"}},
      {"trace directory", [](Json& d) { set(d, "workload={\"trace\": {\"file\": \"/tmp\"}}"); }, {"/workload/trace/file", "directory"}},
      {"trace bad row",
       [](Json& d) {
         d["workload"] = Json{{"trace", {{"file", write_trace("bad_row.csv", "0,read,00ff\n5,read\n")}}}};
       },
       {"bad_row.csv:2", "time_us,op,key_hex"}},
      {"trace bad op",
       [](Json& d) { d["workload"] = Json{{"trace", {{"file", write_trace("bad_op.csv", "0,scan,00ff\n")}}}}; },
       {"bad_op.csv:1", "valid: read, write"}},
      {"trace unsorted",
       [](Json& d) { d["workload"] = Json{{"trace", {{"file", write_trace("unsorted.csv", "10,read,00ff\n5,write,01\n")}}}}; },
       {"unsorted.csv:2", "must not decrease"}},
      {"trace negative time",
       [](Json& d) { d["workload"] = Json{{"trace", {{"file", write_trace("neg.csv", "-1,read,00ff\n")}}}}; }, {"neg.csv:1", ">= 0"}},
      {"trace bad hex",
       [](Json& d) { d["workload"] = Json{{"trace", {{"file", write_trace("hex.csv", "1,read,0g\n")}}}}; }, {"hex.csv:1", "hex"}},
      {"trace empty", [](Json& d) { d["workload"] = Json{{"trace", {{"file", write_trace("empty.csv", "")}}}}; }, {"empty"}},
      {"trace with mix",
       [](Json& d) {
         d["workload"] = Json{{"trace", {{"file", write_trace("ok.csv", "1,read,00ff\n")}}}, {"mix", {{"read", 1}}}};
       },
       {"/workload/trace", "remove"}},
      {"timeout out of range", [](Json& d) { set(d, "timeouts={\"read_ms\": -1}"); }, {"/timeouts/read_ms"}},
      {"unknown retry policy", [](Json& d) { set(d, "retry={\"policy\": \"always\"}"); }, {"/retry/policy", "valid: default, never"}},
      {"speculative max 0", [](Json& d) { set(d, "speculative={\"max_speculative\": 0}"); }, {"/speculative/max_speculative"}},
      {"fault on unknown node", [](Json& d) { set(d, "faults={\"events\": [{\"at_s\": 1, \"node\": \"x\", \"kind\": \"down\"}]}"); },
       {"/faults/events/0/node", "valid: n1"}},
      {"slow fault without duration",
       [](Json& d) { set(d, "faults={\"events\": [{\"at_s\": 1, \"node\": \"n1\", \"kind\": \"slow\", \"factor\": 2}]}"); },
       {"/faults/events/0/duration_s"}},
      {"unknown fault kind", [](Json& d) { set(d, "faults={\"events\": [{\"at_s\": 1, \"node\": \"n1\", \"kind\": \"crash\"}]}"); },
       {"/faults/events/0/kind", "valid: down, kill, up, slow, pause"}},
      {"factor on a down fault",
       [](Json& d) { set(d, "faults={\"events\": [{\"at_s\": 1, \"node\": \"n1\", \"kind\": \"down\", \"factor\": 2}]}"); },
       {"/faults/events/0/factor"}},
      {"unknown dc in a dc pair", [](Json& d) { set(d, "network={\"dc_pairs\": [{\"dcs\": [\"dc1\", \"dc7\"], \"latency\": 100}]}"); },
       {"/network/dc_pairs/0/dcs/1", "valid: dc1"}},
      {"timeline interval 0", [](Json& d) { set(d, "report={\"timeline_interval_s\": 0}"); }, {"/report/timeline_interval_s"}},
      {"no policies", [](Json& d) { set(d, "policies=[]"); }, {"/policies"}},
      {"duplicate policy name", [](Json& d) { set(d, "policies.1.name=ta"); }, {"/policies/1/name", "duplicate"}},
      {"policy name with a space", [](Json& d) { set(d, "policies.1.name=\"a b\""); }, {"/policies/1/name"}},
      {"unknown policy type", [](Json& d) { set(d, "policies.1.policy={\"type\": \"Random\"}"); }, {"/policies/1/policy", "valid:"}},
      {"policy local dc that does not exist", [](Json& d) { set(d, "policies.0.policy.child.local_dc=dc3"); },
       {"/policies/0/policy/child/local_dc", "valid: dc1"}},
  };
  return c;
}

TEST(ScenarioValidation, TheBaseScenarioIsValid) {
  EXPECT_NO_THROW(testing::build(testing::cluster_doc()));
  EXPECT_NO_THROW(testing::build(two_dcs(), {"workload.consistency={\"write\": \"LOCAL_QUORUM\", \"read\": \"LOCAL_ONE\"}"}));
}

TEST(ScenarioValidation, EveryErrorNamesThePathAndTheValidValues) {
  for (const ValidationCase& c : cases()) {
    Json d = testing::cluster_doc();
    try {
      c.patch(d);
      (void)scenario_from_json(d, "test", ".");
      ADD_FAILURE() << c.name << ": no error";
    } catch (const ConfigError& e) {
      for (const auto& s : c.expect)
        EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << c.name << ": '" << e.what() << "' lacks '" << s << "'";
    }
  }
}

TEST(ScenarioValidation, ConsistencyLevelsAreCaseInsensitive) {
  Json d = testing::cluster_doc();
  set(d, "workload.consistency={\"read\": \"local_one\", \"write\": \"Local_Quorum\"}");
  const Scenario sc = scenario_from_json(d, "test", ".");
  EXPECT_EQ(sc.workload.read_cl, ConsistencyLevel::LocalOne);
  EXPECT_EQ(sc.workload.write_cl, ConsistencyLevel::LocalQuorum);
}

// A slow fault's "speed" divides service times as cluster.speed does; "factor" multiplies them
// (issue 13: the two read the same way now). Exactly one of them.
TEST(ScenarioValidation, SlowFaultsTakeAFactorOrASpeed) {
  Json d = testing::cluster_doc();
  d["faults"] = Json::parse(R"({"events": [{"at_s": 1, "node": "n2", "kind": "slow", "duration_s": 2, "speed": 0.25}]})");
  EXPECT_DOUBLE_EQ(testing::build(d).faults.events[0].factor, 4.0);
  d["faults"]["events"][0]["factor"] = 4;
  EXPECT_THROW(testing::build(d), ConfigError);
  d["faults"]["events"][0].erase("speed");
  EXPECT_DOUBLE_EQ(testing::build(d).faults.events[0].factor, 4.0);
  d["faults"]["events"][0]["kind"] = "down";
  EXPECT_THROW(testing::build(d), ConfigError);
}

TEST(ScenarioValidation, SetCreatesMissingObjectsAndBlamesItselfForTypos) {
  Json d = testing::cluster_doc();
  EXPECT_THROW(apply_set(d, "policies.7.name=x"), ConfigError);
  EXPECT_THROW(apply_set(d, "threads"), ConfigError);
  EXPECT_THROW(apply_set(d, "client.threads.x=1"), ConfigError);  // not an object
  // A missing object is created; validation then judges its keys and names the --set.
  apply_set(d, "timeouts.client_ms=500");
  EXPECT_EQ(d["timeouts"]["client_ms"], 500);
  const std::string dir = (std::filesystem::temp_directory_path() / "lbsim_set_blame").string();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/base.json") << testing::cluster_doc().dump();
  try {
    (void)load_scenario(dir + "/base.json", {"client.thread=64"});
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "--set client.thread=64");
    EXPECT_NE(std::string(e.what()).find("/client/thread: unknown key 'thread'"), std::string::npos) << e.what();
  }
  try {  // a list in `run`: the hint names sweep
    (void)load_scenario(dir + "/base.json", {"client.threads=1,8"});
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("a list of values is a sweep: lbsim sweep"), std::string::npos) << e.what();
  }
  apply_set(d, "/client/threads=3");
  EXPECT_EQ(d["client"]["threads"], 3);
  apply_set(d, "client.dc=dc1");
  EXPECT_EQ(d["client"]["dc"], "dc1");
}

// Issue 34: configs/default.json became an open loop, and `--set client.threads=N` (sweeps, docs,
// benchmarks) must still mean a closed loop of N threads, not "give threads or rate_ops_s".
TEST(ScenarioValidation, SettingOneLoopsKeyReplacesTheOtherLoop) {
  const std::string file = std::string(LBSIM_SOURCE_DIR) + "/configs/default.json";
  const Scenario open = load_scenario(file);
  ASSERT_EQ(open.client.mode, LoadMode::Open);
  const Scenario closed = load_scenario(file, {"client.threads=64"});
  EXPECT_EQ(closed.client.mode, LoadMode::Closed);
  EXPECT_EQ(closed.client.threads, 64u);
  EXPECT_FALSE(closed.doc["client"].contains("rate_ops_s"));
  Json d = testing::cluster_doc();  // closed loop
  d["client"]["think"] = 100;
  apply_sets(d, {"client.rate_ops_s=5000", "client.arrivals=constant"});
  EXPECT_EQ(d["client"], Json({{"dc", "dc1"}, {"cores", 4}, {"rate_ops_s", 5000}, {"arrivals", "constant"}}));
  // Both loops' keys set: validation names the conflict.
  try {
    (void)load_scenario(file, {"client.threads=8", "client.rate_ops_s=10"});
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("give either \"threads\" (closed loop) or \"rate_ops_s\""), std::string::npos)
        << e.what();
  }
}

TEST(ScenarioValidation, FileErrorsNameTheFile) {
  try {
    (void)load_scenario("/nonexistent/scenario.json");
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/scenario.json"), std::string::npos);
  }
  const std::string file = ::testing::TempDir() + "bad_scenario.json";
  Json d = testing::cluster_doc();
  d["client"]["threads"] = -1;
  std::ofstream(file) << d.dump();
  try {
    (void)load_scenario(file);
    ADD_FAILURE();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(file + ":/client/threads"), std::string::npos) << e.what();
  }
}

TEST(ScenarioValidation, ShippedScenariosAreValid) {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(LBSIM_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NO_THROW((void)load_scenario(entry.path().string())) << entry.path();
  }
}

// Issue 44.7: a fault needs a member throughout its time: from the node's add_node on, ending at
// the latest when its decommission or remove_node starts (the bounds themselves are inside).
TEST(ScenarioValidation, FaultsFallWhileTheirNodeIsAMember) {
  Json d = testing::cluster_doc();
  d["workload"] = Json::parse(R"({"duration_s": 10})");
  d["changes"] = Json::parse(R"({"events": [{"at_s": 2, "action": "add_node", "nodes": [{"dc": "dc1", "rack": "r1", "id": "x"}]},
                                             {"at_s": 6, "action": "remove_node", "node": "n3"}], "streaming_s": 0.5})");
  auto with_fault = [&](const std::string& fault) {
    Json doc = d;
    doc["faults"] = Json::parse(R"({"events": [)" + fault + "]}");
    return doc;
  };
  // Inside: at the join time; a slow fault that ends as the node leaves; a down that lasts into the removal.
  EXPECT_NO_THROW(testing::build(with_fault(R"({"at_s": 2, "node": "x", "kind": "kill"})")));
  EXPECT_NO_THROW(testing::build(with_fault(R"({"at_s": 4, "node": "n3", "kind": "slow", "duration_s": 2, "factor": 3})")));
  EXPECT_NO_THROW(testing::build(with_fault(R"({"at_s": 5, "node": "n3", "kind": "down"})")));
  auto message = [&](const std::string& fault) -> std::string {
    try {
      (void)testing::build(with_fault(fault));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message(R"({"at_s": 1.5, "node": "x", "kind": "kill"})"),
            "/faults/events/0/at_s: node 'x' has not joined at 1.5 s: it is a member from 2 s on (changes.events: "
            "add_node at 2 s); a fault must start and end while its node is a member");
  EXPECT_EQ(message(R"({"at_s": 6, "node": "n3", "kind": "restart"})"),
            "/faults/events/0/at_s: node 'n3' has left at 6 s: it is a member from 0 s to 6 s (changes.events: "
            "remove_node at 6 s); a fault must start and end while its node is a member");
  EXPECT_EQ(message(R"({"at_s": 5, "node": "n3", "kind": "down", "duration_s": 1.5})"),
            "/faults/events/0/duration_s: the fault on node 'n3' lasts until 6.5 s, after it leaves: it is a member "
            "from 0 s to 6 s (changes.events: remove_node at 6 s); a fault must start and end while its node is a "
            "member");
  EXPECT_EQ(message(R"({"at_s": 7, "node": "n3", "kind": "up"})").rfind("/faults/events/0/at_s: node 'n3' has left at 7 s", 0),
            0u);
}

// Issue 44.6: a dc_pairs entry names two different DCs, each pair once; distinct pairs are kept.
TEST(ScenarioValidation, DcPairsNameTwoDatacentersOnce) {
  Json d = two_dcs();
  d["network"] = Json::parse(R"({"dc_pairs": [{"dcs": ["dc2", "dc1"], "latency": 900}]})");
  const Scenario sc = testing::build(d);
  ASSERT_EQ(sc.network.dc_pairs.size(), 1u);
  EXPECT_EQ(sc.network.dc_pairs[0].from, 1u);
  EXPECT_EQ(sc.network.dc_pairs[0].to, 0u);
  d["network"]["dc_pairs"].push_back(Json::parse(R"({"dcs": ["dc1", "dc2"], "latency": 100})"));
  EXPECT_THROW(testing::build(d), ConfigError);
  d["network"]["dc_pairs"] = Json::parse(R"([{"dcs": ["dc2", "dc2"], "latency": 100}])");
  EXPECT_THROW(testing::build(d), ConfigError);
}

// Issue 44: two --set on one path would silently keep the last; a later --set inside an earlier
// one's object patches it and is allowed.
TEST(ScenarioValidation, SetPathsAreGivenOnce) {
  EXPECT_NO_THROW(check_set_paths({"client={\"threads\": 3}", "client.threads=4", "client.dc=dc1"}));
  EXPECT_NO_THROW(check_set_paths({"client.threads=4", "client.think=10", "/clientx/threads=1"}));
  EXPECT_THROW(check_set_paths({"client.threads=4", "/client/threads=8"}), ConfigError);
  EXPECT_THROW(check_set_paths({"client.threads=4", "client=null"}), ConfigError);
  EXPECT_THROW(check_set_paths({"client.threads=1,2", "workload.ops=5", "client.threads=8,16"}), ConfigError);
}

// Issue 44: the numbers of speculative_retry are the servers' "[0-9.]+" (std::stod read "0x10ms"
// as 16 ms and " 10ms" as 10 ms).
SpecRetrySpec spec_retry_of(const Scenario& sc) { return *sc.mech.get<SpecRetrySpec>(MechSpecs::k_spec_retry); }

TEST(ScenarioValidation, SpeculativeRetryNumbersAreDecimal) {
  Json d = testing::cluster_doc();
  d["cluster"]["speculative_retry"] = "12.5ms";
  EXPECT_EQ(spec_retry_of(testing::build(d)).fixed, from_ms(12.5));
  d["cluster"]["speculative_retry"] = ".5ms";
  EXPECT_EQ(spec_retry_of(testing::build(d)).fixed, from_ms(0.5));
  d["cluster"]["speculative_retry"] = "99.0PERCENTILE";
  EXPECT_DOUBLE_EQ(spec_retry_of(testing::build(d)).percentile, 99.0);
  for (const char* bad : {"0x10ms", "1e1ms", " 10ms", "+99p", "9.9.9p", ".ms", "infms", "nanp", "10 ms"}) {
    d["cluster"]["speculative_retry"] = bad;
    EXPECT_THROW(testing::build(d), ConfigError) << bad;
  }
}

}  // namespace
}  // namespace lbsim
