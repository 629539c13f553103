// `lbsim serve` (issue 46): the scenario's nodes on loopback addresses, speaking CQL v4 to real
// drivers, with every data request run through the model on a paced real-time clock.
//
// One thread runs one Asio io_context (standalone Asio, Debian's libasio-dev): an acceptor per
// node, one coroutine reading each connection, and one steady_timer armed for the simulation's
// next event. Simulated time = (wall - start) x time_scale: a request is submitted at the
// simulated now of its arrival, and its answer is written when the event that ends it has run,
// at the wall time of that event (ns-3's RealtimeSimulatorImpl BestEffort rule: when behind, the
// due events run at once, in order, and the lag is measured, not hidden).
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/scenario.hpp"

namespace lbsim::serve {

struct ServeOptions {
  double duration_s = 0;       // 0: until SIGINT or SIGTERM
  double time_scale = 1;       // simulated seconds per wall second
  std::string address = "127.0.0.1";  // node k listens on address + k - 1
  std::uint16_t port = 9042;
  // ScyllaDB releases with several shards: the shard-aware port, where a connection's shard is its
  // source port modulo the shards (0: none).
  std::uint16_t shard_aware_port = 19042;
  bool allow_remote = false;   // bind addresses outside 127.0.0.0/8
  std::uint32_t max_frame = 1u << 20;        // body bytes
  std::uint32_t max_connections = 1024;      // per node
  std::uint32_t max_streams = 32768;         // in flight per connection (the v4 stream ids)
  double lag_warn_ms = 1.0;                  // the scheduler's lag p99 above which the report warns
};

// Runs until a signal, the duration, or `stop()` returning true (polled every 50 ms); prints the
// `ready` line to `out` once every node listens (and `on_ready` runs, for tests). Returns the
// serve report (lbsim.report/1 with nodes[].address and a `serve` section). Throws ConfigError
// for a bad address, IoError when a node cannot listen.
nlohmann::ordered_json serve(const Scenario& sc, const PolicyEntry& policy, std::uint64_t seed,
                             const ServeOptions& opt, std::ostream& out, const std::function<bool()>& stop = {},
                             const std::function<void()>& on_ready = {});

}  // namespace lbsim::serve
