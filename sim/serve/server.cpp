#include "sim/serve/server.hpp"

#include "sim/serve/server_state.hpp"

#include "sim/report/report_json.hpp"

namespace lbsim::serve {

using detail::Clock;
using detail::Server;

nlohmann::ordered_json serve(const Scenario& scenario, const PolicyEntry& policy, std::uint64_t seed,
                             const ServeOptions& opt, std::ostream& out, const std::function<bool()>& stop,
                             const std::function<void()>& on_ready) {
  const auto base = cql::parse_ipv4(opt.address);
  if (!base) throw ConfigError("--address", "'" + opt.address + "' is not an IPv4 address (a.b.c.d)");
  const std::size_t n = scenario.topology().size();
  const std::uint64_t last = std::uint64_t{*base} + n - 1;
  if (last > 0xffffffffu) throw ConfigError("--address", fmt::format("{} nodes from {} run past 255.255.255.255", n, opt.address));
  const bool loopback = (*base >> 24) == 127 && (last >> 24) == 127;
  if (!loopback && !opt.allow_remote)
    throw ConfigError("--address", fmt::format("{}-{} is not all in 127.0.0.0/8 (loopback); give --allow-remote to "
                                               "listen on other addresses",
                                               opt.address, cql::ipv4_text(static_cast<std::uint32_t>(last))));
  if (!(opt.time_scale > 0)) throw ConfigError("--time-scale", "must be above 0");
  // A tablet keyspace needs the shards the tablets are placed on, and the routing payload that
  // tells a driver where a tablet is (ScyllaDB's; TABLETS_ROUTING_V1).
  if (scenario.cluster.replication.tablets &&
      !(server_rules(scenario.nodes.server).scylla && scenario.nodes.discipline == Discipline::PerShard &&
        scenario.nodes.shards > 1))
    throw ConfigError("/keyspace/tablets", "lbsim serve serves a tablet keyspace on a ScyllaDB release with the "
                                           "per_shard discipline and more than one shard (tablets routing goes to a "
                                           "replica's shard)");

  Server s(scenario, policy, seed, opt, *base, out);
  for (NodeId k = 0; k < n; ++k)
    if (s.catalog.member(k)) s.listen(k);
    else s.state[k] = detail::NodeState::Killed;  // a node that joins later listens once it is NORMAL
  s.sim.external_on_topology([&s](NodeId k, int change) { s.on_topology(k, change); });
  s.origin = Clock::now();
  s.sim.external_begin([&s](const ExternalEnd& e) { s.on_end(e); }, s.connection_shards);
  s.schedule_faults();
  s.signals.async_wait([&s](std::error_code ec, int) {
    if (!ec) s.stop_all();
  });
  std::unique_ptr<asio::steady_timer> end;
  if (opt.duration_s > 0) {
    end = std::make_unique<asio::steady_timer>(
        s.io, s.origin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s)));
    end->async_wait([&s](std::error_code ec) {
      if (!ec) s.stop_all();
    });
  }
  std::function<void()> poll_stop = [&] {
    s.poll.expires_after(std::chrono::milliseconds(50));
    s.poll.async_wait([&](std::error_code ec) {
      if (ec) return;
      if (stop && stop()) s.stop_all();
      else poll_stop();
    });
  };
  poll_stop();
  s.rearm();
  out << fmt::format("lbsim serve: ready: {} nodes on {}-{} port {} (scenario {}, time scale {})", n, opt.address,
                     cql::ipv4_text(static_cast<std::uint32_t>(last)), opt.port, scenario.name, opt.time_scale)
      << std::endl;
  if (on_ready) on_ready();
  s.io.run();
  const double wall_s = std::chrono::duration<double>(Clock::now() - s.origin).count();
  s.advance();

  RunResult r = s.sim.external_end();
  nlohmann::ordered_json doc = report_json(r);
  if (doc.contains("nodes"))
    for (std::size_t i = 0; i < doc["nodes"].size() && i < n; ++i)
      doc["nodes"][i]["address"] = cql::ipv4_text(*base + static_cast<std::uint32_t>(i));
  nlohmann::ordered_json sv;
  sv["address_first"] = opt.address;
  sv["address_last"] = cql::ipv4_text(static_cast<std::uint32_t>(last));
  sv["port"] = opt.port;
  sv["time_scale"] = opt.time_scale;
  sv["wall_s"] = wall_s;
  // The start (simulated time 0) on the steady clock (CLOCK_MONOTONIC on Linux), to line up a
  // client's own log (Python's time.monotonic_ns, Go's and Node.js's monotonic clocks are the same).
  sv["started_steady_ns"] = std::chrono::duration_cast<std::chrono::nanoseconds>(s.origin.time_since_epoch()).count();
  sv["connections"] = {{"accepted", s.accepted},
                       {"refused_over_limit", s.refused},
                       {"closed_by_faults", s.closed_by_fault},
                       {"peak", s.peak_connections}};
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.counts.by_opcode) ops[k] = v;
  sv["requests_by_opcode"] = ops;
  nlohmann::ordered_json per_node = nlohmann::ordered_json::array();
  for (NodeId k = 0; k < n; ++k) per_node.push_back({{"node", s.sc.topology().nodes[k].id}, {"data_requests", s.requests[k]}});
  sv["data_requests"] = per_node;
  nlohmann::ordered_json errs = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.counts.errors) errs[k] = v;
  sv["errors_sent"] = errs;
  nlohmann::ordered_json msgs = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.counts.messages) msgs[k] = v;
  sv["error_messages"] = msgs;
  if (s.counts.messages_dropped > 0) sv["error_messages_not_kept"] = s.counts.messages_dropped;
  sv["answered"] = s.answered;
  if (s.sc.cluster.replication.tablets) sv["tablets_routing_payloads"] = s.hints_sent;  // tablet keyspaces only
  sv["unanswered"] = {{"client_gone", s.unanswered}, {"in_flight_at_end", s.pending.size()}, {"node_down", s.dropped_down}};
  sv["limits"] = {{"max_frame_bytes", opt.max_frame},
                  {"max_connections_per_node", opt.max_connections},
                  {"max_streams_per_connection", opt.max_streams},
                  {"frames_over_limit", s.frame_limit},
                  {"streams_over_limit", s.stream_limit}};
  const double p99 = static_cast<double>(s.lag.percentile(99)) / 1e6;
  sv["lag_ms"] = {{"answers", s.lag.count()},
                  {"p50", static_cast<double>(s.lag.percentile(50)) / 1e6},
                  {"p99", p99},
                  {"max", static_cast<double>(s.lag.max()) / 1e6},
                  {"warn_above_ms", opt.lag_warn_ms}};
  if (s.lag.count() > 0 && p99 > opt.lag_warn_ms) {
    const std::string w = fmt::format(
        "lbsim serve: the scheduler's lag p99 was {:.3f} ms, above {} ms: answers left later than the model's "
        "times, so the drivers measured latencies up to that much too high",
        p99, opt.lag_warn_ms);
    doc["warnings"].push_back(w);
    out << w << std::endl;
  }
  doc["serve"] = sv;
  return doc;
}

}  // namespace lbsim::serve
