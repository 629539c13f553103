// What each fuzz target does with one input, shared by the libFuzzer targets (fuzz_*.cpp, clang
// only) and by the GoogleTest replay of the committed corpus and regressions
// (tests/fuzz_regression_test.cpp, every build).
//
// Contract of every parser: an input is either accepted or rejected with a ConfigError. Any
// other exception (nlohmann type_error, std::out_of_range, bad_alloc, ...) escapes these
// functions and is a bug; so is a sanitizer report, a crash or a hang. The policy target also
// checks the plans of an accepted spec: no duplicate host, no host outside the cluster.
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "policies/registry.hpp"
#include "sim/cluster/ring.hpp"
#include "sim/config/cluster_config.hpp"
#include "sim/config/scenario.hpp"
#include "sim/config/scenario_parts.hpp"
#include "sim/config/topology_file.hpp"
#include "sim/workload/trace_reader.hpp"

namespace lbsim::fuzz {

// Ring sizes above this are valid but make one execution take seconds; the scenario target skips
// them so that the fuzzer spends its time on parsing (the cap itself is tested in bad_inputs).
inline constexpr double kMaxFuzzRingTokens = 20000;

// A folder with the files that fuzzed scenarios may reference: "topo.json" (a topology file) and
// "trace.csv" (a trace). Created once per process.
inline const std::string& fixture_dir() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    const fs::path d = fs::temp_directory_path() / ("lbsim-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::ofstream(d / "topo.json") << R"({"nodes": [
      {"id": "a", "dc": "dc1", "rack": "r1", "tokens": [-6000000000000000000, 100]},
      {"id": "b", "dc": "dc1", "rack": "r2", "tokens": [-3000000000000000000, 3000000000000000000]},
      {"id": "c", "dc": "dc2", "rack": "r1", "tokens": [0, 6000000000000000000]}],
      "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 2, "dc2": 1}}})";
    std::ofstream(d / "trace.csv") << "time_us,op,key_hex,cl\n0,read,00000001,\n10,write,0002,ONE\n10,read,ff,\n";
    return d.string();
  }();
  return dir;
}

// Number of ring tokens a scenario document would build (a cheap pre-check, see above).
inline double ring_tokens(const jsonin::Json& doc) {
  if (!doc.is_object() || !doc.contains("cluster") || !doc["cluster"].is_object()) return 0;
  const auto& c = doc["cluster"];
  double tokens = c.contains("num_tokens") && c["num_tokens"].is_number() ? c["num_tokens"].get<double>() : 256;
  double nodes = 0;
  if (c.contains("datacenters") && c["datacenters"].is_array()) {
    for (const auto& dc : c["datacenters"])
      if (dc.is_object() && dc.contains("nodes") && dc["nodes"].is_number()) nodes += dc["nodes"].get<double>();
  } else if (c.contains("nodes") && c["nodes"].is_array()) {
    nodes = static_cast<double>(c["nodes"].size());
  }
  return nodes * tokens;
}

// Scenario: optional leading lines "//set PATH=VALUE" (applied like `lbsim run --set`), then the
// scenario JSON; the same steps as load_scenario, with relative files resolved in fixture_dir().
inline void scenario(std::string_view data) {
  std::string text(data);
  std::vector<std::string> sets;
  while (text.rfind("//set ", 0) == 0) {
    const auto eol = text.find('\n');
    sets.push_back(text.substr(6, eol == std::string::npos ? std::string::npos : eol - 6));
    text = eol == std::string::npos ? std::string() : text.substr(eol + 1);
  }
  jsonin::Json doc = jsonin::parse_text(text, "fuzz.json");
  if (!doc.is_object()) throw ConfigError("fuzz.json", "expected a JSON object");
  apply_sets(doc, sets);
  if (ring_tokens(doc) > kMaxFuzzRingTokens) return;
  (void)scenario_from_json(std::move(doc), "fuzz.json", fixture_dir());
}

// Topology file: parsed, then the ring built and every listed key and token looked up, as
// `lbsim ring` / `lbsim replicas` do.
inline void topology(std::string_view data) {
  const jsonin::Json doc = jsonin::parse_text(std::string(data), "fuzz.json");
  TopologyFile tf = parse_topology_file(doc, "fuzz.json");
  if (tf.replication.tablets) {  // as `lbsim ring` builds it
    const TabletMap map = initial_tablet_map(tf.topology, tf.replication, tf.sharding ? tf.sharding->nr_shards : 1,
                                             tf.topology.size(), Rng(kDefaultScenarioSeed));
    const TokenRing tablets = TokenRing::from_tablets(tf.topology, tf.replication, map);
    for (const auto& k : tf.keys)
      if (tablets.replicas(murmur3_token(k.routing_key), ReplicaOrder::Server).size() > tf.topology.size())
        throw std::logic_error("more tablet replicas than nodes");
  }
  const TokenRing ring(std::move(tf.topology), std::move(tf.replication));
  std::size_t sum = 0;
  for (const auto& k : tf.keys) sum += ring.replicas(murmur3_token(k.routing_key), ReplicaOrder::Driver).size();
  for (Token t : tf.tokens) sum += ring.replicas(t, ReplicaOrder::Server).size();
  if (sum > (tf.keys.size() + tf.tokens.size()) * ring.topology().size())
    throw std::logic_error("more replicas than nodes");
}

// Trace CSV, streamed through a small chunk so that lines cross chunk boundaries.
inline void trace(std::string_view data) {
  const auto recs = read_trace_text(data, "fuzz.csv", 64);
  for (std::size_t i = 1; i < recs.size(); ++i)
    if (recs[i].at < recs[i - 1].at) throw std::logic_error("trace times decrease");
}

// A fixed 2-DC cluster (dc1: 3 nodes on 2 racks, dc2: 2 nodes), RF {dc1: 2, dc2: 1}, 4 tokens each.
inline const TokenRing& policy_ring() {
  static const TokenRing ring = [] {
    std::vector<NodeSpec> nodes{{"n1", "dc1", "r1", {}}, {"n2", "dc1", "r2", {}}, {"n3", "dc1", "r1", {}},
                                {"n4", "dc2", "r1", {}}, {"n5", "dc2", "r1", {}}};
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (std::int64_t k = 0; k < 4; ++k)
        nodes[i].tokens.push_back(static_cast<Token>((k * 5 + static_cast<std::int64_t>(i)) * 461168601842738790LL -
                                                     4611686018427387904LL));
    Replication r;
    r.kind = StrategyKind::NetworkTopology;
    r.dc_rf = {{"dc1", 2}, {"dc2", 1}};
    return TokenRing(Topology::build(std::move(nodes)), r);
  }();
  return ring;
}

inline void check_plan(policy::Plan* plan, std::size_t hosts) {
  std::vector<int> seen(hosts, 0);
  for (policy::HostId h = plan->next(); h != policy::kNoHost; h = plan->next()) {
    if (h >= hosts) throw std::logic_error("plan returned a host outside the cluster");
    if (seen[h]++) throw std::logic_error("plan returned a host twice");
  }
}

// Policy spec JSON: built against policy_ring(); when accepted, a few plans (routed and not, with
// a host down, after some feedback) must be valid.
inline void policy_spec(std::string_view data) {
  const jsonin::Json spec = jsonin::parse_text(std::string(data), "--policy");
  const TokenRing& ring = policy_ring();
  const Topology& topo = ring.topology();
  auto p = policy::make_policy(spec, "--policy", policy::BuildContext{&topo, &ring.replication()});
  policy::ClusterView view(topo);
  Rng root(1);
  Rng init = root.fork("init"), draws = root.fork("plan");
  p->init(view, init);
  policy::PlanRandom rnd(draws);
  policy::PlanArena arena;
  const std::uint64_t h = std::hash<std::string_view>{}(data);
  for (int i = 0; i < 4; ++i) {
    policy::Request req;
    req.routed = i != 1;
    req.token = static_cast<Token>(h * 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(i + 1));
    if (req.routed) req.replicas = ring.replicas(req.token, ReplicaOrder::Driver);
    req.cl = i == 3 ? ConsistencyLevel::Quorum : ConsistencyLevel::LocalOne;
    req.now = i * kSec;
    if (i == 2) {
      view.set_up(static_cast<policy::HostId>(h % topo.size()), false);
      p->on_down(static_cast<policy::HostId>(h % topo.size()));
    }
    arena.reset();
    check_plan(p->new_plan(req, rnd, arena), topo.size());
    for (policy::HostId x = 0; x < topo.size(); ++x) {
      p->on_request_sent(x, req.now);
      p->on_response(x, req.now + kMs, kMs * (x + 1), policy::ResponseKind::Success);
    }
  }
}

}  // namespace lbsim::fuzz
