// Scenario sections of the load: "client", "workload" and trace files.
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "sim/config/scenario_parts.hpp"
#include "sim/workload/trace_reader.hpp"

namespace lbsim::scenario_detail {

using jsonin::Object;

ClientSpec parse_client(const Json* j, const std::string& path, const Topology& topo,
                        const std::vector<std::string>& extra) {
  ClientSpec s;
  const Json empty = Json::object();
  if (j && j->is_object()) {
    // Keys of the fitted contention model that the measured one replaced (issue 9): say what to use.
    if (j->contains("contention_ns"))
      jsonin::fail(jsonin::key_path(path, "contention_ns"), "removed: the shared generator is now a measured critical section; "
                                                    "set \"line_transfer_ns\" (and \"shared_draw_ns\") instead");
    if (j->contains("draw_ns"))
      jsonin::fail(jsonin::key_path(path, "draw_ns"), "removed: use \"thread_local_draw_ns\" and \"shared_draw_ns\"");
  }
  std::vector<std::string> keys = {
      "dc", "rack", "threads", "rate_ops_s", "arrivals", "think", "max_in_flight", "cores", "driver_cost",
      "response_share", "plan_ns", "plan_host_ns", "thread_local_draw_ns", "shared_draw_ns", "line_transfer_ns",
      "connections", "pool_size", "max_requests_per_connection", "on_busy", "tablets", "stress_retries"};
  keys.insert(keys.end(), extra.begin(), extra.end());
  Object o(j ? *j : empty, path, keys);
  s.dc = o.str("dc", topo.dcs.front());
  const auto dc = topo.dc_index(s.dc);
  if (!dc) jsonin::fail(o.path_of("dc"), "unknown datacenter '" + s.dc + "'; valid: " + jsonin::join(topo.dcs));
  s.dc_index = *dc;
  if (o.has("rack")) {
    s.rack = o.str("rack");
    std::vector<std::string> valid;
    for (std::size_t r = 0; r < topo.racks.size(); ++r) {
      if (topo.rack_dc[r] != s.dc_index) continue;
      valid.push_back(topo.racks[r]);
      if (topo.racks[r] == s.rack) s.rack_index = static_cast<std::int32_t>(r);
    }
    if (s.rack_index < 0)
      jsonin::fail(o.path_of("rack"), "unknown rack '" + s.rack + "' in datacenter '" + s.dc + "'; valid: " + jsonin::join(valid));
  }
  if (o.has("threads") && o.has("rate_ops_s"))
    jsonin::fail(path, "give either \"threads\" (closed loop) or \"rate_ops_s\" (open loop), not both");
  if (o.has("rate_ops_s")) {
    s.mode = LoadMode::Open;
    s.rate = o.number("rate_ops_s", 1e-3, 1e9);
    if (o.has("think")) jsonin::fail(o.path_of("think"), "think time applies to closed loop (\"threads\") only");
  } else {
    s.threads = static_cast<std::uint32_t>(o.integer("threads", 1, 1000000, s.threads));
    if (o.has("arrivals")) jsonin::fail(o.path_of("arrivals"), "arrivals apply to open loop (\"rate_ops_s\") only");
    if (o.has("max_in_flight")) jsonin::fail(o.path_of("max_in_flight"), "applies to open loop (\"rate_ops_s\") only");
  }
  s.arrivals = o.choice<Arrivals>("arrivals", {{"poisson", Arrivals::Poisson}, {"constant", Arrivals::Constant}},
                                  Arrivals::Poisson);
  if (const Json* t = o.find("think")) s.think = parse_dist(*t, o.path_of("think"));
  s.max_in_flight = static_cast<std::uint32_t>(o.integer("max_in_flight", 1, 1000000, s.max_in_flight));
  s.stress_retries = static_cast<std::uint32_t>(o.integer("stress_retries", 0, 100, s.stress_retries));
  s.cores = static_cast<std::uint32_t>(o.integer("cores", 0, 4096, s.cores));
  if (const Json* d = o.find("driver_cost")) s.driver_cost = parse_dist(*d, o.path_of("driver_cost"));
  s.plan_ns = o.number("plan_ns", 0, 1e9, s.plan_ns);
  s.plan_host_ns = o.number("plan_host_ns", 0, 1e9, s.plan_host_ns);
  s.response_share = o.number("response_share", 0, 1, s.response_share);
  s.thread_local_draw_ns = o.number("thread_local_draw_ns", 0, 1e9, s.thread_local_draw_ns);
  s.shared_draw_ns = o.number("shared_draw_ns", 0, 1e9, s.shared_draw_ns);
  s.line_transfer_ns = o.number("line_transfer_ns", 0, 1e9, s.line_transfer_ns);
  s.connections = o.choice<Connections>(
      "connections", {{"none", Connections::None}, {"shard_aware", Connections::ShardAware}, {"plain", Connections::Plain}},
      Connections::None);
  s.pool_size = static_cast<std::uint32_t>(o.integer("pool_size", 0, 4096, 0));
  if (o.has("pool_size") && s.connections != Connections::Plain)
    jsonin::fail(o.path_of("pool_size"), "applies to \"connections\": \"plain\" only (shard_aware keeps one per shard)");
  // Protocol v3+ stream ids: at most 32768 requests in flight on one connection.
  if (const Json* m = o.find("max_requests_per_connection")) {
    const std::string mp = o.path_of("max_requests_per_connection");
    if (m->is_object()) {
      Object mo(*m, mp, {"local", "remote"});
      s.max_requests_local = static_cast<std::uint32_t>(mo.integer("local", 1, 32768, s.max_requests_local));
      s.max_requests_remote = static_cast<std::uint32_t>(mo.integer("remote", 1, 32768, s.max_requests_remote));
    } else {
      s.max_requests_local = s.max_requests_remote = static_cast<std::uint32_t>(o.integer("max_requests_per_connection", 1, 32768, 1024));
    }
  }
  s.on_busy = o.choice<OnBusy>("on_busy", {{"next_host", OnBusy::NextHost}, {"least_busy", OnBusy::LeastBusy}},
                               OnBusy::NextHost);
  if (const Json* t = o.find("tablets")) {
    Object to(*t, o.path_of("tablets"), {"cache", "learn_from", "fallback"});
    s.tablet_cache_warm = to.choice<bool>("cache", {{"warm", true}, {"cold", false}}, true);
    s.tablet_learn_writes = to.choice<bool>("learn_from", {{"all", true}, {"reads", false}}, true);
    s.tablet_fallback = to.choice<TabletFallback>("fallback", {{"ring", TabletFallback::Ring},
                                                               {"random", TabletFallback::Random}},
                                                  TabletFallback::Ring);
  }
  return s;
}

namespace {
ConsistencyLevel parse_cl(const Json& j, const std::string& path) {
  const std::string s = jsonin::as_string(j, path);
  const auto cl = parse_consistency(s);
  if (!cl) jsonin::fail(path, "unknown consistency level '" + s + "'; valid: " + std::string(kConsistencyNames));
  return *cl;
}

}  // namespace

// One streamed pass over the trace: every error, and what the rest of the program needs from it.
std::shared_ptr<const TraceSummary> summarize_trace(const std::string& file, const std::string& where) {
  auto sum = std::make_shared<TraceSummary>();
  sum->path = file;
  TraceReader rd(file, where);
  sum->stamp = trace_stamp(file);
  TraceRecord r;
  while (rd.next(r)) {
    const bool read = r.op == OpKind::Read;
    sum->reads += read;
    if (r.has_cl) {
      auto& first = sum->first_cl[read ? 0 : 1][static_cast<std::size_t>(r.cl)];
      if (first == 0) first = rd.records();
    }
  }
  sum->records = rd.records();
  return sum;
}

WorkloadSpec parse_workload(const Json& j, const std::string& path, const std::string& dir) {
  WorkloadSpec s;
  Object o(j, path, {"ops", "duration_s", "warmup_ops", "warmup_s", "mix", "consistency", "keys", "unrouted_fraction",
                     "rows", "trace"});
  const bool has_trace = o.has("trace");
  if (o.has("ops") && o.has("duration_s")) jsonin::fail(path, "give either \"ops\" or \"duration_s\", not both");
  if (!o.has("ops") && !o.has("duration_s") && !has_trace) jsonin::fail(path, "give \"ops\" or \"duration_s\"");
  if (o.has("duration_s")) {
    s.duration = from_ms(o.number("duration_s", 1e-3, 1e7) * 1e3);
    if (o.has("warmup_ops")) jsonin::fail(o.path_of("warmup_ops"), "with \"duration_s\" the warm-up is \"warmup_s\"");
    s.warmup = from_ms(o.number("warmup_s", 0, 1e7, 0) * 1e3);
  } else {
    s.ops = static_cast<std::uint64_t>(o.integer("ops", 1, 100'000'000'000, 0));
    if (o.has("warmup_s")) jsonin::fail(o.path_of("warmup_s"), "with \"ops\" the warm-up is \"warmup_ops\"");
    s.warmup_ops = static_cast<std::uint64_t>(o.integer("warmup_ops", 0, 100'000'000'000, 0));
  }
  if (const Json* m = o.find("mix")) {
    Object mo(*m, o.path_of("mix"), {"read", "write", "lwt"});
    const double r = mo.number("read", 0, 1e9, 0), w = mo.number("write", 0, 1e9, 0), l = mo.number("lwt", 0, 1e9, 0);
    if (r + w + l <= 0) jsonin::fail(o.path_of("mix"), "the read, write and lwt weights must not all be 0");
    s.read_fraction = r / (r + w + l);
    s.lwt_fraction = l / (r + w + l);
  }
  if (const Json* c = o.find("consistency")) {
    Object co(*c, o.path_of("consistency"), {"read", "write", "lwt"});
    if (const Json* v = co.find("read")) s.read_cl = parse_cl(*v, co.path_of("read"));
    if (const Json* v = co.find("write")) s.write_cl = parse_cl(*v, co.path_of("write"));
    if (const Json* v = co.find("lwt")) {
      s.lwt_cl = parse_cl(*v, co.path_of("lwt"));
      if (s.lwt_cl != ConsistencyLevel::Serial && s.lwt_cl != ConsistencyLevel::LocalSerial)
        jsonin::fail(co.path_of("lwt"), "the serial consistency of a lightweight transaction; valid: SERIAL, LOCAL_SERIAL");
    }
  }
  if (const Json* k = o.find("keys")) {
    Object ko(*k, o.path_of("keys"), {"count", "distribution", "stdvrng", "s", "mean_fraction", "hot_keys", "hot_ops"});
    // At most 10^15: key_dist.cpp draws ids in doubles, exact below 2^53 (about 9.0e15).
    s.keys.count = static_cast<std::uint64_t>(ko.integer("count", 1, 1'000'000'000'000'000, static_cast<std::int64_t>(s.keys.count)));
    s.keys.kind = ko.choice<KeyDistKind>("distribution",
                                         {{"uniform", KeyDistKind::Uniform}, {"gaussian", KeyDistKind::Gaussian},
                                          {"zipf", KeyDistKind::Zipf}, {"exponential", KeyDistKind::Exponential},
                                          {"sequential", KeyDistKind::Sequential}, {"hotspot", KeyDistKind::Hotspot}},
                                         KeyDistKind::Uniform);
    auto only = [&](const char* key, KeyDistKind kind) {
      if (ko.has(key) && s.keys.kind != kind)
        jsonin::fail(ko.path_of(key), "applies only to the distribution that uses it");
    };
    only("stdvrng", KeyDistKind::Gaussian);
    only("s", KeyDistKind::Zipf);
    only("mean_fraction", KeyDistKind::Exponential);
    only("hot_keys", KeyDistKind::Hotspot);
    only("hot_ops", KeyDistKind::Hotspot);
    s.keys.stdvrng = ko.number("stdvrng", 0.1, 1000, s.keys.stdvrng);
    s.keys.zipf_s = ko.number("s", 0.01, 100, s.keys.zipf_s);
    s.keys.mean_fraction = ko.number("mean_fraction", 1e-9, 1e3, s.keys.mean_fraction);
    s.keys.hot_keys = ko.number("hot_keys", 1e-12, 1, s.keys.hot_keys);
    s.keys.hot_ops = ko.number("hot_ops", 0, 1, s.keys.hot_ops);
  }
  s.unrouted_fraction = o.number("unrouted_fraction", 0, 1, 0);
  if (const Json* r = o.find("rows")) {
    Object ro(*r, o.path_of("rows"), {"per_partition", "fat_fraction", "fat_rows"});
    s.rows = static_cast<std::uint32_t>(ro.integer("per_partition", 1, 1'000'000, 1));
    s.fat_fraction = ro.number("fat_fraction", 0, 1, 0);
    s.fat_rows = static_cast<std::uint32_t>(ro.integer("fat_rows", 1, 1'000'000, s.fat_rows));
  }
  if (const Json* t = o.find("trace")) {
    Object to(*t, o.path_of("trace"), {"file", "mode"});
    s.trace_file = to.str("file");
    s.trace_open_loop = to.choice<bool>("mode", {{"open", true}, {"closed", false}}, true);
    if (o.has("mix") || o.has("keys"))
      jsonin::fail(o.path_of("trace"), "a trace gives the operations and keys: remove \"mix\" and \"keys\"");
    const std::string file = (std::filesystem::path(dir) / s.trace_file).string();
    s.trace = summarize_trace(file, to.path_of("file"));
    if (s.duration > 0) jsonin::fail(o.path_of("duration_s"), "a trace replay runs by operations: use \"ops\" or nothing");
    if (s.ops > 0 && s.total_ops() > s.trace->records)
      jsonin::fail(o.path_of("ops"), fmt::format("ops + warmup_ops = {} exceeds the trace's {} records", s.total_ops(),
                                                 s.trace->records));
    if (s.ops == 0) {
      if (s.warmup_ops >= s.trace->records)
        jsonin::fail(o.path_of("warmup_ops"), fmt::format("must be below the trace's {} records", s.trace->records));
      s.ops = s.trace->records - s.warmup_ops;
    }
  }
  return s;
}

}  // namespace lbsim::scenario_detail
