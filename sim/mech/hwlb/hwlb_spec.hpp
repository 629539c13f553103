// Heat-weighted load balancing's spec (cluster.cache_hit_rate_read_balancing; parsed by
// hwlb_config.cpp into its MechSpecs slot, present only when HWLB is on).
#pragma once

namespace lbsim {

struct HwlbSpec {
  double max_hit_rate = 0.95;  // the cap of the hit rates it balances (hwlb_config.cpp gives its source)
};

}  // namespace lbsim
