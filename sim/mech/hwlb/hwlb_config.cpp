// cluster.cache_hit_rate_read_balancing (ScyllaDB releases with cluster.cache): its parser, key and
// warm-up check, compiled into lbsim_config (sim/mech/specs.inc). true / false, or an object
// {"max_hit_rate": cap} (on, with the cap of another release). Absent: on when the release is
// scylla-* and the cache is on (scylla.yaml cache_hit_rate_read_balancing, default true). Without a
// cache there are no hit rates to balance: asking for it is an error. It runs after the cache's
// parsing, since its default follows cluster.cache.
//
// The cap: hit rates are capped at 0.95 in db/consistency_level.cc filter_for_query since
// scylladb/scylladb commit b6b4df9a47 (2021-06-16, the fix of #8815), first in scylla-4.6.0 (git
// tag --contains); 0.999 before. Every scylla-* release lbsim models is later; max_hit_rate models
// older ones.
#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"
#include "sim/mech/cache/cache_spec.hpp"
#include "sim/mech/hwlb/hwlb_spec.hpp"

namespace lbsim {

using jsonin::Json;
using jsonin::Object;

void parse_hwlb_spec(const MechSpecInput& in, MechSpecs& out) {
  const jsonin::Object& o = in.cluster;
  const ServerRules rules = server_rules(in.nodes.server);
  const bool cache = out.get<CacheSpec>(MechSpecs::k_cache) != nullptr;  // parsed before (sim/mech/specs.inc)
  HwlbSpec b;
  b.max_hit_rate = 0.95;
  bool on = rules.scylla && cache;
  if (const Json* j = o.find("cache_hit_rate_read_balancing")) {
    const std::string path = o.path_of("cache_hit_rate_read_balancing");
    if (!rules.scylla)
      jsonin::fail(path, fmt::format("is a ScyllaDB option; cluster.server '{}' has none (valid with: scylla-2024.1, "
                                     "scylla-2025.1, scylla-2025.2, scylla-2026.1)",
                                     rules.name));
    on = true;
    if (j->is_object()) {
      Object ho(*j, path, {"max_hit_rate"});
      b.max_hit_rate = ho.number("max_hit_rate", 0.5, 0.9999, b.max_hit_rate);
    } else {
      on = jsonin::as_bool(*j, path);
    }
    if (on && !cache)
      jsonin::fail(path, "needs /cluster/cache: heat-weighted load balancing balances cache hit rates");
  }
  if (on) out.set(MechSpecs::k_hwlb, b);
  else out.clear(MechSpecs::k_hwlb);
}

const std::vector<MechKey>& hwlb_spec_keys() {
  static const std::vector<MechKey> keys{{MechSection::Cluster, "cache_hit_rate_read_balancing"}};
  return keys;
}

void hwlb_spec_check(const Scenario&) {}

void hwlb_warmup(const Scenario& sc, SimTime end, std::vector<std::string>& out) {
  if (sc.mech.get<HwlbSpec>(MechSpecs::k_hwlb) && end < 10 * kSec)
    out.push_back(fmt::format(
        "cluster.cache_hit_rate_read_balancing warms up at 10 s: the row cache's hit and miss meters (1-minute "
        "moving averages) first tick at 10 s and read 0 before it, so no hit rate is known; the run ends at {:.6g} s",
        to_sec(end)));
}

}  // namespace lbsim
