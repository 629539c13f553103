// `lbsim replicas FILE [--key HEX ...] [--token T ...] [--set PATH=V ...] [--json]`: the token, owner and replicas of every key and token of a
// topology file, with the oracle's field names plus "driver_order" (Java driver 3.x order).
#include <iostream>

#include "sim/cli/command.hpp"
#include "sim/cli/ring_json.hpp"
#include "sim/config/ring_input.hpp"

namespace lbsim::cli {
namespace {

nlohmann::ordered_json answer(const RingInput& in, Token t) {
  const TokenRing& ring = *in.ring;
  const std::size_t r = ring.range_index(t);
  nlohmann::ordered_json j;
  j["token"] = std::to_string(t);
  j["owner"] = ring.topology().nodes[ring.owner_at(r)].id;
  j["replicas"] = id_list(ring, ring.replicas_at(r, ReplicaOrder::Server));
  j["driver_order"] = id_list(ring, ring.replicas_at(r, ReplicaOrder::Driver));
  if (in.sharding) j["shard"] = shard_of(t, *in.sharding);
  if (in.tablets) {
    // Tablet keyspaces: the tablet's replicas are the keyspace's; the vnode ones are the driver's
    // fallback for a tablet it has not learnt yet.
    const TokenRing& tr = *in.tablets;
    const std::size_t id = tr.range_index(t);
    const auto reps = tr.replicas_at(id, ReplicaOrder::Server);
    nlohmann::ordered_json rl = nlohmann::ordered_json::array();
    for (std::size_t p = 0; p < reps.size(); ++p)
      rl.push_back({{"node", tr.topology().nodes[reps[p]].id}, {"shard", tr.replica_shard(id, p)}});
    j["vnode_replicas"] = j["replicas"];
    j["replicas"] = id_list(tr, reps);
    j["driver_order"] = id_list(tr, tr.replicas_at(id, ReplicaOrder::Driver));
    j["tablet"] = {{"id", id},
                   {"first_exclusive", std::to_string(tr.token_at(id == 0 ? tr.size() - 1 : id - 1))},
                   {"last", std::to_string(tr.token_at(id))},
                   {"replicas", rl}};
    if (id == 0) j["tablet"]["first_exclusive"] = std::to_string(kMinToken);
  }
  return j;
}

int run_replicas(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::string>()->required(), "topology file (JSON) with \"keys\" and/or \"tokens\"")(
      "key", po::value<std::vector<std::string>>()->default_value({}, ""), "a partition key (hex) to look up; repeatable")(
      "token", po::value<std::vector<std::string>>()->default_value({}, ""), "a token to look up; repeatable")(
      "set", po::value<std::vector<std::string>>()->composing(), kSetHelp)(
      "json", po::bool_switch(), "optional: the output is always JSON (accepted for symmetry with the other commands)");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse_options("replicas", "FILE [--key HEX ...] [--token T ...] [--set PATH=V ...] [--json]", args, opts, pos, vm))
    return 0;
  const RingInput in = load_ring_input(vm["file"].as<std::string>(), strings_of(vm, "set"));
  nlohmann::ordered_json out;
  out["keys"] = nlohmann::ordered_json::array();
  for (const auto& k : in.keys) {
    nlohmann::ordered_json j = answer(in, murmur3_token(k.routing_key));
    j["key"] = k.text;
    if (k.composite) j["routing_key"] = to_hex(k.routing_key);
    out["keys"].push_back(std::move(j));
  }
  for (const auto& k : vm["key"].as<std::vector<std::string>>()) {
    const KeyQuery q = parse_key(nlohmann::json(k), "--key");
    nlohmann::ordered_json j = answer(in, murmur3_token(q.routing_key));
    j["key"] = q.text;
    out["keys"].push_back(std::move(j));
  }
  out["tokens"] = nlohmann::ordered_json::array();
  for (Token t : in.tokens) out["tokens"].push_back(answer(in, t));
  for (const auto& text : vm["token"].as<std::vector<std::string>>())
    out["tokens"].push_back(answer(in, jsonin::as_token(nlohmann::json(text), "--token")));
  out["nodes"] = node_ownership_json(*in.ring, false);
  out["warnings"] = in.warnings;
  std::cout << out.dump(1) << "\n";
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("replicas", "token, owner, replicas (server and driver order) and shard of each key/token of a file", run_replicas)

}  // namespace lbsim::cli
