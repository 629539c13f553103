// Tablet keyspaces (issues 11 and 35), the placement of a scenario with a tablet map
// (placement.hpp): the server's tablet map and its migrations under the balancer
// (tablets.cpp, migrations.cpp), their streaming (streaming.cpp), the table's splits and merges
// (resize.cpp), and the drivers' tablet cache with the tablets-routing-v1 payload that fills it.
// tablets.cpp gives the sources.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/tablet_balancer.hpp"
#include "sim/cluster/tablets.hpp"
#include "sim/core/rng.hpp"
#include "sim/engine/model_spec.hpp"
#include "sim/mech/placement/placement.hpp"
#include "sim/mech/placement/placement_rules.hpp"
#include "sim/mech/placement/placement_spec.hpp"

namespace lbsim {

struct RunResult;

class TabletPlacement final : public Placement {
 public:
  // A migration's stage (ScyllaDB's tablet_transition_stage, scylladb/scylladb locator/tablets.hh).
  // With lbsim's unspecified rules only WriteBothReadOld (streaming included) and WriteBothReadNew
  // occur, and Streaming when the streaming cost is modelled.
  enum class MigStage : std::uint8_t {
    AllowWriteBothReadOld,  // writes old, reads old
    WriteBothReadOld,       // writes old and pending, reads old
    Streaming,              // writes both, reads old; the data moves
    WriteBothReadNew,       // writes both, reads new
    UseNew,                 // writes new, reads new
    Cleanup,                // the old replica's data is dropped; then end_migration
  };
  struct Migration {
    TabletMigration m;
    MigStage stage = MigStage::WriteBothReadOld;
    bool active = false;
    std::uint32_t streams_left = 0;  // streams of its streaming stage not yet ended
  };
  // One stream of a migration's streaming stage: `src` sends to `dst` (tablet shards).
  struct Stream {
    std::uint32_t mig = 0;
    TabletReplica src, dst;
    double left_mb = 0;                  // still to send over the network
    double net_mb = 0;                   // its size over the network
    double send_us_per_mb = 0, recv_us_per_mb = 0;  // CPU per MB sent over the network
    double chunk_mb = 0;
    double rate = 0;                     // MB/s, while it streams in chunks
    bool active = false;
    bool chunked = false;                // paced chunk by chunk (kStreamChunk), else a fixed time
    SimTime start = 0, end = 0;          // a fixed-time stream's span (its data moves evenly over it)
  };
  struct Counters {
    std::uint64_t fallback = 0;      // operations routed without a cached tablet (driver fallback)
    std::uint64_t non_replica = 0;   // coordinators that held no replica of the tablet
    std::uint64_t wrong_shard = 0;   // replica coordinators reached on another shard than the tablet's
    std::uint64_t payloads = 0;      // answers carrying the tablet's replicas
    std::uint64_t cache_updates = 0; // payloads merged into the driver's cache
  };

  TabletPlacement(Core& core, std::uint16_t id);

  void on_event(std::uint16_t sub, std::uint32_t arg) override;
  void window_open() override;
  void window_close() override;
  // RunResult::tablets and, with streaming reported, each node's NodeResult::streaming.
  void collect(RunResult& r) const override;
  void streams(std::vector<std::pair<std::string, const Rng*>>& out) const override {
    out.emplace_back("balancer", &balancer_rng_);
  }

  // The strategies (hooks.hpp) for a tablet keyspace, where a range is a tablet's index:
  std::uint32_t op_range(Token t) const { return static_cast<std::uint32_t>(tablet_index(t, tmap_.log2_count())); }
  // The driver's cache, else its fallback (counted).
  std::span<const NodeId> driver_replicas(std::uint32_t tablet, Token t);
  std::uint32_t driver_shard(std::uint32_t tablet, Token t, NodeId host);
  // Reads see the read set (the new replica once a migration reads new), writes the write set:
  // the replicas, then the pending one while the tablet moves.
  std::span<const NodeId> server_replicas(std::uint32_t tablet, bool read, std::array<NodeId, 64>& buf,
                                          std::uint32_t& pending) const;
  std::uint32_t replica_shard(std::uint32_t tablet, Token t, NodeId r) const;  // the shard owning the work on r
  // The hooks: the server's locality check (payload or not), the driver merging a payload into
  // its cache, a hop counted in the timeline.
  void route(std::uint32_t cr);
  void learn(std::uint32_t cr);
  void hop();

  // For tests (the core harness).
  const TabletMap& map() const { return tmap_; }
  void routing_hint(std::uint32_t cr, RoutingHint& out) const;  // the routing_hint strategy (hooks.hpp)
  const Counters& counters() const { return tc_; }
  bool cached(std::uint32_t tablet) const { return cache_known_[tablet] != 0; }
  const std::vector<Migration>& migrations() const { return migs_; }

 private:
  bool in_window() const;
  // migrations.cpp: topology events, the balancer's plans and the migrations' stages.
  void on_change(std::uint32_t idx);
  void on_migration(std::uint32_t slot);
  void rebalance();
  void leave_if_drained(NodeId n);
  // streaming.cpp: the streaming stage of a migration (its streams, their bandwidth and CPU).
  void start_streaming(std::uint32_t slot);
  void on_stream_chunk(std::uint32_t stream);
  void end_stream(std::uint32_t stream);
  void streaming_done(std::uint32_t slot);  // every stream of the migration has ended
  void assign_stream_rates();
  void stream_node_change(NodeId n, int delta);  // a stream on node n began (+1) or ended (-1)
  SimTime stream_time_at(NodeId n, SimTime t) const;
  // MB each node has sent (sent) or received so far, a fixed-time stream's counted pro rata.
  std::vector<double> streamed_mb(bool sent) const;
  // resize.cpp: the table's splits and merges under the release's rules (PlacementRules;
  // configs/README.md "Tablet count, split and merge by release").
  void init_resize();
  // Called by rebalance() before it plans migrations: updates the resize decision, finalizes a
  // ready one when no migration is in flight; false while a ready resize holds new migrations.
  bool resize_before_balancing();
  void on_resize_tick(std::uint32_t decision);  // the load-stats refresh reports the split ready
  void finalize_resize();
  void drop_cached_entry(std::uint32_t tablet);  // the driver deletes the cache entry covering it
  double tablet_mb() const;                      // one tablet's data (the table's over the count)

  const ChangeSpec& ch_;      // the topology changes
  const PlacementSpec& ps_;   // what moving data costs
  const PlacementRules pr_;   // the release's rules
  std::size_t stride_ = 0;             // replicas per tablet
  TabletMap tmap_;                     // system.tablets replicas (the old set while a tablet moves)
  std::vector<NodeId> thosts_;         // tmap_'s hosts, tablet-major
  std::vector<std::int32_t> tmig_;     // per tablet: index into migs_, -1 when it does not move
  std::vector<Migration> migs_;
  std::vector<BalancerNode> bnodes_;   // per node: shards when a member, draining
  std::vector<std::uint8_t> left_;     // nodes that left the cluster
  std::vector<std::uint8_t> cache_known_;  // the driver's tablet cache, per tablet
  std::vector<NodeId> cache_hosts_;
  std::vector<std::uint32_t> cache_shards_;
  Counters tc_, tc_start_, tc_end_;
  std::uint64_t migrations_started_ = 0, migrations_done_ = 0;
  Rng balancer_rng_;
  std::vector<Stream> streams_;
  std::vector<std::uint32_t> free_streams_;
  bool stream_report_ = false;                  // nodes[].streaming is reported
  std::vector<std::uint32_t> node_streams_;     // per node: streams sending or receiving now
  std::vector<SimTime> node_stream_time_, node_stream_since_;  // time with >= 1 stream, up to since
  std::vector<double> node_sent_mb_, node_recv_mb_;
  std::vector<SimTime> stream_time_start_, stream_time_end_;  // at the window's start and end
  std::vector<double> sent_start_, sent_end_, recv_start_, recv_end_;
  // Resizing (resize.cpp). The driver's cache keeps, per tablet, the log2 of how many current
  // tablets its entry covers (an entry learnt before splits covers all their halves).
  TabletRules trules_;
  double table_mb_ = 0;                    // the table's data (Scenario::tablet_table_mb)
  std::vector<std::uint8_t> cache_w_;      // empty until the first split
  std::uint64_t tcount_start_ = 0, splits_ = 0, merges_ = 0;
  std::int8_t resize_pending_ = 0;         // the decision in progress: +1 split, -1 merge, 0 none
  bool resize_ready_ = false;              // a split's replicas reported ready (load stats)
  bool split_before_ = false;              // the table split since it was created (2025.1's growing mode)
  bool merge_warned_ = false;
  std::uint32_t resize_seq_ = 0;           // decision number (stale refresh ticks are ignored)
};

}  // namespace lbsim
