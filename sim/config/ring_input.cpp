#include "sim/config/ring_input.hpp"

#include <filesystem>

#include "sim/config/cluster_config.hpp"
#include "sim/config/import.hpp"
#include "sim/config/scenario.hpp"
#include "sim/config/scenario_parts.hpp"


namespace lbsim {

RingInput load_ring_input(const std::string& file, const std::vector<std::string>& sets) {
  jsonin::Json doc = load_json_or_import_hint(file);
  if (!doc.is_object()) throw ConfigError(file, "must be a JSON object (a topology file or a scenario)");
  for (const auto& s : sets) apply_set(doc, s);
  RingInput in;
  try {
    if (doc.contains("cluster")) {
      in.scenario = true;
      // Only the topology and keyspace of a scenario matter here; the scenario parser checks the rest.
      const jsonin::Json null;
      const jsonin::Json& ks = doc.contains("keyspace") ? doc["keyspace"] : null;
      // The scenario's default seed when it has none (the same ring as `lbsim run`).
      const Rng root(doc.contains("seed") && doc["seed"].is_number_unsigned() ? doc["seed"].get<std::uint64_t>()
                                                                              : kDefaultScenarioSeed);
      auto spec = parse_cluster_topology(doc["cluster"], "/cluster", ks, "/keyspace",
                                         std::filesystem::path(file).parent_path().string(), root,
                                         scenario_detail::node_model_keys());
      in.name = doc.contains("name") && doc["name"].is_string() ? doc["name"].get<std::string>() : file;
      in.sharding = spec.sharding;
      in.warnings = spec.warnings;
      if (spec.replication.tablets) {
        // The tablet map depends on the node model (shards) and the joining nodes: build the whole
        // scenario, so the map is the one `lbsim run` uses.
        const Scenario sc = load_scenario(file, sets);
        in.tablets = std::make_unique<TokenRing>(*sc.tablets);
        in.shards = sc.nodes.shards;
      }
      in.ring = std::make_unique<TokenRing>(std::move(spec.topology), std::move(spec.replication));
    } else {
      TopologyFile tf = parse_topology_file(doc, file);
      in.name = std::filesystem::path(file).filename().string();
      in.sharding = tf.sharding;
      in.keys = std::move(tf.keys);
      in.tokens = std::move(tf.tokens);
      in.warnings = std::move(tf.warnings);
      if (tf.replication.tablets) {
        in.shards = tf.sharding ? tf.sharding->nr_shards : 1;
        const TabletMap map =
            initial_tablet_map(tf.topology, tf.replication, in.shards, tf.topology.size(), Rng(kDefaultScenarioSeed));
        in.tablets = std::make_unique<TokenRing>(TokenRing::from_tablets(tf.topology, tf.replication, map));
      }
      in.ring = std::make_unique<TokenRing>(std::move(tf.topology), std::move(tf.replication));
    }
  } catch (const ConfigError& e) {
    if (!sets.empty() && !e.path().empty() && e.path()[0] == '/') throw blame_set(e, sets, file);
    throw e.in_file(file);
  }
  for (const auto& w : in.ring->warnings()) in.warnings.push_back(w);
  return in;
}

}  // namespace lbsim
