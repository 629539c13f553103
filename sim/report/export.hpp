// `lbsim run --export DIR`: a simulated run written in the formats a real cluster exports, so that
// `lbsim fit DIR` can be checked against known parameters (docs/fit.md, the round trip).
//
//   scylla-all.prom      the run's per-operation latencies as ScyllaDB's coordinator histograms
//                        (scylla_storage_proxy_coordinator_{read,write}_latency, time_estimated_histogram
//                        layout, `_sum` as ScyllaDB computes it: layouts.hpp), instance "all": the
//                        client-observed latency, which is the coordinator's in a scenario without
//                        network and driver costs, not in general
//   scylla-<node>.prom   per node (instance = node id): scylla_reactor_utilization (written in
//                        percent; `lbsim fit` uses only its ratios between shards) and
//                        scylla_scheduler_runtime_ms{group="statement"} per shard (busy time in the
//                        window), scylla_database_total_reads/_writes (replica work items, split over
//                        shards by each shard's replica operations), and
//                        scylla_storage_proxy_replica_cross_shard_ops
//   proxyhistograms.txt  nodetool proxyhistograms of the same latencies (Cassandra 4.x's columns;
//                        percentiles as EstimatedHistogram bucket offsets, not decayed: a simulated run
//                        has no clock to decay by)
//   jmx-clientrequest.txt the raw EstimatedHistogram arrays (jmxterm style, #unit = us)
//   stress.hlog          a cassandra-stress-style interval log, one interval: tags READ-st, WRITE-st,
//                        LWT-st in a closed loop (lbsim times from the actual start), READ-rt, ... in an
//                        open loop (from the intended start)
#pragma once
#include <cstdint>
#include <string>

#include "sim/metrics/run_result.hpp"

namespace lbsim {

// Writes the files above into `dir` (created). `shards`: servers per node (utilization's divisor).
void export_run(const RunResult& r, std::uint32_t shards, const std::string& dir);

}  // namespace lbsim
