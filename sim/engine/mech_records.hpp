// The records of the mechanisms still in sim/engine/ (issue 45 moves each to its folder under
// sim/mech/ with its state): tablets and their migrations and streams. Simulation::Impl names
// them with `using`.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/cluster/tablet_balancer.hpp"
#include "sim/config/scenario.hpp"
#include "sim/core/time.hpp"

namespace lbsim::mech_records {

inline constexpr SimTime kNever = std::numeric_limits<SimTime>::max();

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

struct TabletCounters {
  std::uint64_t fallback = 0;      // operations routed without a cached tablet (driver fallback)
  std::uint64_t non_replica = 0;   // coordinators that held no replica of the tablet
  std::uint64_t wrong_shard = 0;   // replica coordinators reached on another shard than the tablet's
  std::uint64_t payloads = 0;      // answers carrying the tablet's replicas
  std::uint64_t cache_updates = 0; // payloads merged into the driver's cache
};

}  // namespace lbsim::mech_records
