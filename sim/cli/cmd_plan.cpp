// `lbsim plan FILE --policy JSON --key HEX | --token T [--count N] [--cl CL] [--down n1,n2]
//  [--state STATE.json] [--seed S] [--set PATH=V ...] [--json]`: the replicas of one request in driver order (Java
// 3.x Metadata.getReplicas), then N consecutive query plans of a policy for it. Consecutive plans
// differ because round-robin indexes advance between plans.
//
// --state sets per-host feedback before the plans, in a JSON file:
//   {"now_ms": 1000,                      the request time (default 0)
//    "hosts": {"n1": {"in_flight": 12,    in-flight requests (ClusterView; Default4x)
//                     "response_times_ms": [950, 990],   last two response times, oldest first
//                     "latency_avg_ms": 4.5, "latency_samples": 60, "latency_updated_ms": 990,
//                                                        LatencyAware's decaying average
//                     "up_time_ms": 980}}}               4.x upTimes entry (Default4x newly-up)
// LatencyAware recomputes its minimum every update_rate_ms from time 0, so set now_ms at least
// one update period after the samples' times for the minimum to exist.
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "policies/registry.hpp"
#include "sim/cli/command.hpp"
#include "sim/cluster/routing_key.hpp"
#include "sim/config/ring_input.hpp"
#include "sim/config/scenario.hpp"

namespace lbsim::cli {
namespace {

using policy::HostId;

std::vector<std::string> split_ids(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

HostId node_or_fail(const Topology& t, const std::string& id, const std::string& where) {
  if (const auto n = t.node_index(id)) return *n;
  std::vector<std::string> valid;
  for (const auto& n : t.nodes) valid.push_back(n.id);
  throw ConfigError(where, fmt::format("unknown node '{}'; valid: {}", id, jsonin::join(valid)));
}

SimTime load_state(const std::string& file, const Topology& topo, policy::ClusterView& view, policy::Policy& p) {
  const jsonin::Json doc = jsonin::load_file(file);
  try {
    const jsonin::Object top(doc, "", {"now_ms", "hosts"});
    const SimTime now = from_ms(top.number("now_ms", 0, 1e12, 0));
    if (const jsonin::Json* hosts = top.find("hosts")) {
      if (!hosts->is_object()) jsonin::fail("/hosts", "must be an object keyed by node id");
      for (const auto& [id, js] : hosts->items()) {
        const std::string path = jsonin::key_path("/hosts", id);
        const HostId h = node_or_fail(topo, id, path);
        const jsonin::Object o(js, path,
                               {"in_flight", "response_times_ms", "latency_avg_ms", "latency_samples", "latency_updated_ms",
                                "up_time_ms"});
        view.set_in_flight(h, static_cast<std::int32_t>(o.integer("in_flight", 0, 1 << 30, 0)));
        policy::HostState s;
        if (const jsonin::Json* rt = o.find("response_times_ms")) {
          const auto& arr = jsonin::as_array(*rt, o.path_of("response_times_ms"), true);
          if (arr.size() > 2) jsonin::fail(o.path_of("response_times_ms"), "at most 2 timestamps (the driver keeps the last two)");
          for (std::size_t i = 0; i < arr.size(); ++i)
            s.response_times[i] = from_ms(jsonin::as_number(arr[i], jsonin::index_path(o.path_of("response_times_ms"), i), -1e12, 1e12));
          s.response_count = static_cast<int>(arr.size());
        }
        if (o.has("latency_avg_ms") || o.has("latency_samples") || o.has("latency_updated_ms")) {
          s.has_latency = true;
          s.latency_average = from_ms(o.number("latency_avg_ms", 0, 1e9));
          s.latency_samples = o.integer("latency_samples", 1, 1000000000);
          s.latency_updated = from_ms(o.number("latency_updated_ms", -1e12, 1e12, 0));
        }
        if (o.has("up_time_ms")) s.up_time = from_ms(o.number("up_time_ms", -1e12, 1e12));
        p.restore_state(h, s);
      }
    }
    return now;
  } catch (const ConfigError& e) {
    throw e.in_file(file);
  }
}

int run_plan(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::string>()->required(), "topology file or scenario (JSON)")(
      "policy", po::value<std::string>()->required(),
      "the policy: a policy name of the scenario FILE (as `lbsim run --policy NAME`), or a policy spec as JSON "
      "text or in a file")(
      "key", po::value<std::string>(), "routing key, hex (the bytes the driver hashes)")(
      "token", po::value<std::string>(), "Murmur3 token, decimal (instead of --key)")(
      "count", po::value<int>()->default_value(3), "consecutive plans to print")(
      "cl", po::value<std::string>()->default_value("LOCAL_ONE"), "consistency level")(
      "down", po::value<std::string>()->default_value(""), "comma-separated node ids the driver sees down")(
      "state", po::value<std::string>(),
      "a JSON file of per-host feedback set before the plans: {\"now_ms\": T, \"hosts\": {\"n1\": {\"in_flight\": N, "
      "\"response_times_ms\": [t1, t2], \"latency_avg_ms\": A, \"latency_samples\": K, \"latency_updated_ms\": T, "
      "\"up_time_ms\": T}}} (every field optional; see docs/commands.md, \"lbsim plan\")")(
      "seed", po::value<std::int64_t>()->default_value(1), "seed of the policy's random streams")(
      "set", po::value<std::vector<std::string>>()->composing(), kSetHelp)(
      "json", po::bool_switch(), "print {\"token\", \"replicas\", \"plans\"} as JSON");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse_options("plan", "FILE --policy NAME|JSON|FILE (--key HEX | --token T) [--count N] [--cl CL] [--down n1,n2] "
                             "[--state STATE.json] [--seed S] [--set PATH=V ...] [--json]",
                     args, opts, pos, vm))
    return 0;

  if (vm.count("key") == vm.count("token")) throw ConfigError("--key, --token", "give exactly one of --key HEX and --token T");
  const int count = vm["count"].as<int>();
  if (count < 1 || count > 100000) throw ConfigError("--count", fmt::format("must be in [1, 100000], got {}", count));
  const std::string cl_name = vm["cl"].as<std::string>();
  const auto cl = parse_consistency(cl_name);
  if (!cl) throw ConfigError("--cl", fmt::format("unknown consistency level '{}'; valid: {}", cl_name, kConsistencyNames));

  const std::vector<std::string> sets = strings_of(vm, "set");
  const RingInput in = load_ring_input(vm["file"].as<std::string>(), sets);
  // Tablet keyspaces: the tablet's replicas (a warm driver cache), else the vnode ring.
  const TokenRing& ring = in.tablets ? *in.tablets : *in.ring;
  const Topology& topo = ring.topology();

  Token token = 0;
  std::string key_hex;
  if (vm.count("key")) {
    key_hex = vm["key"].as<std::string>();
    const auto bytes = parse_hex(key_hex);
    if (!bytes || bytes->empty()) throw ConfigError("--key", "must be non-empty hex with an even number of digits, got '" + key_hex + "'");
    token = murmur3_token(*bytes);
  } else {
    token = jsonin::as_token(jsonin::Json(vm["token"].as<std::string>()), "--token");
  }

  // Inline JSON reports its errors under "--policy/..."; a file under "FILE: /...", as scenarios do.
  const std::string spec_text = vm["policy"].as<std::string>();
  const bool inline_spec = !spec_text.empty() && spec_text.front() == '{';
  // A policy name of the scenario, as `lbsim run --policy NAME` takes it.
  std::optional<jsonin::Json> named;
  if (!inline_spec && in.scenario && !std::filesystem::exists(spec_text)) {
    const Scenario sc = load_scenario(vm["file"].as<std::string>(), sets);
    const PolicyEntry* e = sc.find_policy(spec_text);
    if (!e) {
      std::vector<std::string> names;
      for (const auto& q : sc.policies) names.push_back(q.name);
      throw ConfigError("--policy", fmt::format("'{}' is neither a policy of the scenario nor a file; policies: {} "
                                                "(or give a spec as JSON)",
                                                spec_text, jsonin::join(names)));
    }
    named = e->spec;
  }
  const jsonin::Json spec =
      named ? *named : (inline_spec ? jsonin::parse_text(spec_text, "--policy") : jsonin::load_file(spec_text));
  std::unique_ptr<policy::Policy> p;
  try {
    p = policy::make_policy(spec, inline_spec ? "--policy" : "", policy::BuildContext{&topo, &ring.replication()});
  } catch (const ConfigError& e) {
    if (inline_spec) throw;
    throw e.in_file(spec_text);
  }
  policy::ClusterView view(topo);
  const Rng root(static_cast<std::uint64_t>(int_option(vm, "seed", 0, INT64_MAX)));
  Rng init_rng = root.fork("policy-init");
  p->init(view, init_rng);
  for (const auto& id : split_ids(vm["down"].as<std::string>())) {
    const HostId h = node_or_fail(topo, id, "--down");
    view.set_up(h, false);
    p->on_down(h);
  }
  SimTime now = 0;
  if (vm.count("state")) now = load_state(vm["state"].as<std::string>(), topo, view, *p);

  policy::Request req;
  req.routed = true;
  req.token = token;
  req.replicas = ring.replicas(token, ReplicaOrder::Driver);
  req.cl = *cl;
  req.now = now;

  Rng plan_rng = root.fork("policy");
  policy::PlanRandom rnd(plan_rng);
  policy::PlanArena arena;
  auto id_of = [&](HostId h) { return topo.nodes[h].id; };
  nlohmann::json plans = nlohmann::json::array();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> draws;
  for (int i = 0; i < count; ++i) {
    arena.reset();
    const auto before = std::make_pair(rnd.shared_draws, rnd.thread_local_draws);
    nlohmann::json plan = nlohmann::json::array();
    policy::Plan* pl = p->new_plan(req, rnd, arena);
    for (HostId h = pl->next(); h != policy::kNoHost; h = pl->next()) plan.push_back(id_of(h));
    draws.emplace_back(rnd.shared_draws - before.first, rnd.thread_local_draws - before.second);
    plans.push_back(std::move(plan));
  }
  nlohmann::json replicas = nlohmann::json::array();
  for (HostId h : req.replicas) replicas.push_back(id_of(h));

  if (vm["json"].as<bool>()) {
    nlohmann::json out;
    out["token"] = std::to_string(token);
    out["replicas"] = replicas;
    out["plans"] = plans;
    std::cout << out.dump() << "\n";
    return 0;
  }
  std::cout << "token " << token;
  if (!key_hex.empty()) std::cout << " (key " << key_hex << ")";
  std::cout << "\nreplicas (driver order, " << ring.replication().describe() << "):";
  for (const auto& r : replicas) std::cout << " " << r.get<std::string>();
  std::cout << "\npolicy: " << spec.dump() << "\n";
  for (std::size_t i = 0; i < plans.size(); ++i) {
    std::cout << fmt::format("plan {}:", i + 1);
    for (const auto& h : plans[i]) std::cout << " " << h.get<std::string>();
    if (plans[i].empty()) std::cout << " (empty: no host available)";
    std::cout << fmt::format("   [random draws: shared {}, thread_local {}]\n", draws[i].first, draws[i].second);
  }
  for (const auto& w : in.warnings) std::cerr << "warning: " << w << "\n";
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("plan", "the replicas and N consecutive query plans of a policy for one key or token", run_plan)

}  // namespace lbsim::cli
