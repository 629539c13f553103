// The placement's spec (changes.migration, changes.streaming_s; parsed by placement_config.cpp into
// its MechSpecs slot, present with a tablet keyspace or topology changes): what moving data costs.
// The changes themselves (ChangeSpec, sim/engine/model_spec.hpp) decide the membership over time.
#pragma once
#include <cstdint>
#include <string>

#include "sim/core/time.hpp"

namespace lbsim {

struct PlacementSpec {
  // A tablet migration: a fixed latency (group0 transitions and barriers, which dominate for small
  // tablets: scylladb/scylladb commit 2463e524ed) plus the tablet's size over the streaming
  // bandwidth. Writes go to old and new replica from the start, reads switch to the new one after streaming
  // (write_both_read_old -> streaming -> write_both_read_new -> use_new).
  SimTime migration_latency = kSec;
  // The tablet table's data in MiB (changes.migration.table_size_mb), one replica's worth: each
  // tablet holds it over the release's current count. 0: only the fixed latency.
  double table_size_mb = 0;
  // The refused changes.migration.tablet_size_mb, kept until the count it needs is known (then
  // ConfigError at legacy_tablet_size_path, naming the table_size_mb that replaces it); < 0: absent.
  double legacy_tablet_size_mb = -1;
  std::string legacy_tablet_size_path;
  double stream_mb_s = 100;        // one stream's own bound (a sender -> receiver pair)
  // Streaming cost (sim/mech/placement/streaming.cpp); all 0 by default: a stream then takes
  // size / stream_mb_s and costs nothing else (the earlier model).
  // Per-node streaming bandwidth, shared max-min fairly by the node's streams, sent and received
  // together: ScyllaDB's stream_io_throughput_mb_per_sec (db/config.cc, MiB/s, 0 = unthrottled,
  // the default). 0: no node bound.
  double node_stream_mb_s = 0;
  // CPU per MB streamed, on the sending and on the receiving replica's tablet shard, as work in
  // the shard's queue that competes with requests. No default from a measurement: see
  // configs/README.md (scylladb/scylladb#20921 gives an upper bound for the sender).
  double cpu_send_us_per_mb = 0;
  double cpu_receive_us_per_mb = 0;
  bool stream_cost() const { return node_stream_mb_s > 0 || cpu_send_us_per_mb > 0 || cpu_receive_us_per_mb > 0; }
  // scylladb/scylladb db/config.cc:
  std::uint32_t max_in_per_shard = 2;   // tablet_streaming_write_concurrency_per_shard
  std::uint32_t max_out_per_shard = 2;  // tablet_streaming_read_concurrency_per_shard
  // Vnode keyspaces: how long one ring change streams before ownership switches.
  SimTime streaming = 0;
};

}  // namespace lbsim
