// The placement's rules by server release (issue 45: a mechanism's release rules in its folder):
// tablet migrations' stages, rebuilds, the tablet count and resizing, and the balancer. Each field
// names its source; configs/README.md "Tablet count, split and merge by release" and "Tablet
// balancing by release" give the tables. The default member values are lbsim's unspecified rules;
// the Cassandra releases have no tablets and keep them.
#pragma once
#include "sim/cluster/tablet_balancer.hpp"
#include "sim/cluster/tablets.hpp"
#include "sim/engine/model_spec.hpp"

namespace lbsim {

struct PlacementRules {
  // Tablet migrations (sim/mech/placement/migrations.cpp). ScyllaDB's stage sequence:
  // allow_write_both_read_old (writes and reads old), write_both_read_old, streaming (writes both, reads old),
  // write_both_read_new, use_new (writes and reads new), cleanup, end_migration
  // (scylladb/scylladb locator/tablets.cc get_selector_for_writes / get_selector_for_reads, read
  // at f4a4091ca2); a migration holds its shards' streaming slots only until streaming ends
  // (service/tablet_allocator.cc is_streaming: false from write_both_read_new on). lbsim's
  // unspecified rule: write both and read old, then read new, slots held to the end.
  bool stages = false;
  // removenode rebuilds a dead replica by repair (tablet_transition_kind::rebuild_v2, stage
  // rebuild_repair): every live replica reads its whole copy and the new replica receives the
  // tablet once (locator/tablets.cc get_migration_streaming_info; feature repair_based_tablet_rebuild,
  // scylladb/scylladb commits ed7b8bb787 and acd32b24d3, first released in 2025.2.0). Before: the
  // plain rebuild streams the whole tablet from every live replica (service/storage_service.cc
  // stream_tablet at scylla-2025.1.0: one range_streamer source per read_from replica).
  bool rebuild_repair = false;
  // Tablets: the count of a new table and its resizing (configs/README.md "Tablet count, split and
  // merge by release"; SS = scylladb/scylladb). The count rule: 2025.2 and later SS
  // service/tablet_allocator.cc make_sizing_plan (commit 94b5165ac7; the goal cap f1bda8d4c1, the
  // table options c5668d99c9); 6.0-2025.1 locator/network_topology_strategy.cc
  // calculate_initial_tablets_from_topology times the scale factor (4c4a9679d8, eb3b237e05); 2024.1
  // (5.4 base) the keyspace's initial_tablets only (5.4 allocate_tablets_for_new_table). lbsim's
  // unspecified rule: the 2025.2 count, no resizing.
  TabletCountRule count_rule = TabletCountRule::Target;
  // tablets_initial_scale_factor's default (SS db/config.cc): 10 since 2025.2.0 (commits f043c83ba5
  // and 2463e524ed, 2024-12), 1 in 6.0-2025.1.
  double scale_factor = 10;
  // The balancer splits and merges tables on their average tablet size: split above 2 x
  // target_tablet_size_in_bytes (5 GiB), merge below 1/2 x (SS tablet_allocator.cc
  // make_resize_plan; commit 7ed5b44d52, 6.0.0).
  bool resize_by_size = false;
  // The resize target also holds the count rule's minimums for the current topology: a table
  // splits when nodes join and never merges below them (commit 20c6ca2813, 2025.2.0).
  bool split_on_growth = false;
  // Nodes being drained still count in a DC's shards for that target (2025.2: normal token
  // owners); 2026.1 leaves them out (make_sizing_plan's !n.is_draining(), commit a009644c7d).
  bool target_counts_draining = true;
  // Tablet balancer (sim/cluster/tablet_balancer.hpp names the scylladb/scylladb commits; the table
  // is configs/README.md "Tablet balancing by release"). What it equalizes: tablet count per shard
  // (6.0-2025.1), storage utilization with equal tablets (2025.2, commit c4714180cc), utilization
  // from the tablets' sizes with a 1 % stop rule (2026.1, commit 10eb364821). Which tablet moves:
  // the first of the shard's set (5.4, the base of 2024.1), random (6.0-6.1, commit 603abddca9),
  // scored per table (6.2 and later, PR #19779). Shard moves inside a node: since commit
  // db9d3f0128 (6.0; 5.4 has none). Unspecified: lbsim's earlier rules (count, random, shard moves).
  BalanceGoal goal = BalanceGoal::Count;
  CandidateRule candidates = CandidateRule::Random;
  bool intranode = true;
};

// The rules of `r`, one row per release.
constexpr PlacementRules placement_rules(ServerRelease r) {
  PlacementRules s;  // unspecified and Cassandra: the member defaults
  if (r < ServerRelease::Scylla2024_1) return s;
  s.stages = true;  // the stages of 6.0 and later (tablets' first release) up to f4a4091ca2
  switch (r) {
    case ServerRelease::Scylla2024_1:
      s.count_rule = TabletCountRule::Initial;  // 5.4: initial_tablets only, no resizing
      s.candidates = CandidateRule::First;      // scylla-5.4.0 tablet_allocator.cc: candidates.begin()
      s.intranode = false;                      // no make_intranode_plan before db9d3f0128
      break;
    case ServerRelease::Scylla2025_1:
      s.count_rule = TabletCountRule::ShardsOverRf;
      s.scale_factor = 1;
      s.resize_by_size = true;
      s.candidates = CandidateRule::Scored;  // PR #19779 (99d0aaa7d2), in 6.2.0 and 2025.1.0
      break;
    case ServerRelease::Scylla2025_2:
      s.rebuild_repair = true;  // rebuild_v2 (acd32b24d3), first in 2025.2.0
      s.resize_by_size = true;
      s.split_on_growth = true;
      s.goal = BalanceGoal::Capacity;  // c4714180cc, in 2025.2.0 (and 2025.1.1+: backport 51ee15f02d)
      s.candidates = CandidateRule::Scored;
      break;
    case ServerRelease::Scylla2026_1:
      s.rebuild_repair = true;
      s.resize_by_size = true;
      s.split_on_growth = true;
      s.target_counts_draining = false;
      s.goal = BalanceGoal::Size;  // 10eb364821 / merge bbf9ce18ef, first in 2026.1.0
      s.candidates = CandidateRule::Scored;
      break;
    default: break;
  }
  return s;
}

// The tablet rules of a release, for sim/cluster/tablets.hpp.
constexpr TabletRules tablet_rules(const PlacementRules& s) {
  TabletRules t;
  t.count = s.count_rule;
  t.scale_factor = s.scale_factor;
  t.resize_by_size = s.resize_by_size;
  t.topology_target = s.split_on_growth;
  t.draining_counts = s.target_counts_draining;
  return t;
}

}  // namespace lbsim
