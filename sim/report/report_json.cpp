#include "sim/report/report_json.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/error.hpp"
#include "sim/core/exit_cleanup.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/metrics/imbalance.hpp"

namespace lbsim {

using OJ = nlohmann::ordered_json;

namespace {

double round_to(double v, int decimals) {
  if (!std::isfinite(v)) return 0;
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

OJ latency_json(const LatencyHistogram& h) {
  OJ j;
  j["count"] = h.count();
  j["mean"] = round_to(h.mean() / 1e6, 6);
  j["p50"] = round_to(to_ms(h.percentile(50)), 6);
  j["p95"] = round_to(to_ms(h.percentile(95)), 6);
  j["p99"] = round_to(to_ms(h.percentile(99)), 6);
  j["p999"] = round_to(to_ms(h.percentile(99.9)), 6);
  j["max"] = round_to(to_ms(h.max()), 6);
  return j;
}

OJ errors_json(const std::array<std::uint64_t, kErrorKinds>& e) {
  OJ j;
  std::uint64_t total = 0;
  for (auto v : e) total += v;
  j["total"] = total;
  for (std::size_t k = 0; k < kErrorKinds; ++k) j[std::string(error_name(static_cast<ErrorKind>(k)))] = e[k];
  return j;
}

OJ imbalance_json(const Imbalance& i) {
  return OJ{{"max_over_mean", round_to(i.max_over_mean, 6)}, {"cov", round_to(i.cov, 6)}, {"gini", round_to(i.gini, 6)}};
}

}  // namespace

OJ report_json_stable(const RunResult& r) {
  OJ j;
  j["schema"] = kReportSchema;
  j["scenario"] = {{"name", r.scenario}, {"hash", r.scenario_hash}};
  j["policy"] = {{"name", r.policy_name}, {"index", r.policy_index}, {"spec", r.policy_spec}};
  j["seed"] = r.seed;
  const double window = to_sec(r.window);
  j["simulated_s"] = {{"window_start", round_to(to_sec(r.window_start), 9)},
                      {"window", round_to(window, 9)},
                      {"end", round_to(to_sec(r.end), 9)}};
  j["ops"] = {{"issued", r.issued},     {"completed", r.completed},         {"failed", r.failed},
              {"warmup", r.warmup_ops}, {"measured", r.measured_ops()}, {"measured_errors", r.measured_errors()}};
  std::array<std::uint64_t, kErrorKinds> all{};
  for (const auto& s : r.by_op)
    for (std::size_t k = 0; k < kErrorKinds; ++k) all[k] += s.errors[k];
  j["errors"] = errors_json(all);
  std::uint64_t rows = 0;
  for (const auto& s : r.by_op) rows += s.rows;
  j["throughput_ops_s"] = round_to(r.throughput(), 3);
  j["partition_rate_pk_s"] = round_to(r.throughput(), 3);
  j["row_rate_rows_s"] = round_to(window > 0 ? static_cast<double>(rows) / window : 0, 3);
  j["latency_ms"] = latency_json(r.latency);
  OJ by_op;
  for (std::size_t k = 0; k < kOpKinds; ++k) {
    const OpStats& s = r.by_op[k];
    // read and write always; lwt only in runs that had lightweight transactions.
    if (static_cast<OpKind>(k) == OpKind::Lwt && s.ops == 0 && s.error_total() == 0) continue;
    by_op[std::string(op_name(static_cast<OpKind>(k)))] = {
        {"ops", s.ops},
        {"throughput_ops_s", round_to(window > 0 ? static_cast<double>(s.ops) / window : 0, 3)},
        {"rows", s.rows},
        {"latency_ms", latency_json(s.latency)},
        {"errors", errors_json(s.errors)}};
  }
  j["by_op"] = std::move(by_op);

  std::vector<double> coord, replica;
  OJ nodes = OJ::array();
  for (const auto& n : r.nodes) {
    OJ node = {{"id", n.id},
               {"dc", n.dc},
               {"rack", n.rack},
               {"coordinator_ops", n.coordinator_ops},
               {"replica_reads", n.replica_reads},
               {"replica_writes", n.replica_writes},
               {"dropped", {{"coordinator", n.dropped_coordinator}, {"reads", n.dropped_reads}, {"writes", n.dropped_writes}}},
               {"cross_shard_hops", n.cross_shard_hops},
               {"busy_rejections", n.busy_rejections},
               {"utilization", round_to(n.utilization, 6)},
               {"mean_queue", round_to(n.mean_queue, 6)}};
    if (n.connections) {
      const ConnectionStats& c = *n.connections;
      node["connections"] = {{"count", c.count},
                             {"requests", c.requests},
                             {"requests_min", c.requests_min},
                             {"requests_max", c.requests_max},
                             {"peak_in_flight", c.peak_in_flight}};
    }
    if (n.cache)  // cluster.cache only (results/README.md "cache")
      node["cache"] = {{"hits", n.cache->hits},
                       {"misses", n.cache->misses},
                       {"hit_rate", round_to(n.cache->hit_rate, 6)},
                       {"misses_per_s", round_to(n.cache->misses_per_s, 3)},
                       {"disk_reads", n.cache->disk_reads},
                       {"disk_utilization", round_to(n.cache->disk_utilization, 6)}};
    if (n.streaming)
      node["streaming"] = {{"s", round_to(n.streaming->seconds, 9)},
                           {"sent_mb", round_to(n.streaming->sent_mb, 6)},
                           {"received_mb", round_to(n.streaming->received_mb, 6)}};
    if (!n.shards.empty()) {
      OJ shards = OJ::array();
      for (const auto& sr : n.shards)
        shards.push_back({{"coordinator_ops", sr.coordinator_ops},
                          {"replica_ops", sr.replica_ops},
                          {"cross_shard_hops", sr.cross_shard_hops},
                          {"requests", sr.requests},
                          {"busy_rejections", sr.busy_rejections},
                          {"utilization", round_to(sr.utilization, 6)}});
      node["shards"] = std::move(shards);
    }
    nodes.push_back(std::move(node));
    coord.push_back(static_cast<double>(n.coordinator_ops));
    replica.push_back(static_cast<double>(n.replica_reads + n.replica_writes));
  }
  j["nodes"] = std::move(nodes);  // moved: at 10,000 nodes a copy doubled the report's peak memory
  const HeadlineImbalance head = headline_imbalance(r);
  j["imbalance"] = {{"dcs", head.dcs}, {"coordinator", imbalance_json(head.coordinator)}, {"replica", imbalance_json(head.replica)}};
  j["imbalance_all_nodes"] = {{"coordinator", imbalance_json(imbalance_of(coord))},
                              {"replica", imbalance_json(imbalance_of(replica))}};
  OJ by_dc = OJ::object();
  for (const auto& dc : run_dcs(r)) {
    // A DC without coordinator requests (or replica work) has no such imbalance: null, not 0.
    const RunImbalance i = run_imbalance(r, &dc);
    const DcLoad load = dc_load(r, dc);
    by_dc[dc] = {{"coordinator", load.coordinator > 0 ? imbalance_json(i.coordinator) : OJ(nullptr)},
                 {"replica", load.replica > 0 ? imbalance_json(i.replica) : OJ(nullptr)}};
  }
  j["imbalance_by_dc"] = std::move(by_dc);
  // The load first: it decides how the other figures compare across policies.
  OJ client = r.client.open_loop ? OJ{{"loop", "open"}, {"rate_ops_s", round_to(r.client.rate_ops_s, 3)}}
                                 : OJ{{"loop", "closed"}, {"threads", r.client.threads}};
  client["cpu_utilization"] = round_to(r.client.cpu_utilization, 6);
  client["shared_rng_s"] = round_to(r.client.shared_rng_s, 9);
  client["shared_rng_cpu_fraction"] = round_to(r.client.shared_rng_cpu_fraction, 6);
  client["shared_draws"] = r.client.shared_draws;
  client["thread_local_draws"] = r.client.thread_local_draws;
  client["retries"] = r.client.retries;
  client["speculative_executions"] = r.client.speculative;
  if (r.client.stress_retries > 0) client["stress_retries"] = r.client.stress_retries;  // only when it happened
  if (r.client.speculative_same_host) client["speculative_same_host"] = *r.client.speculative_same_host;
  if (r.client.speculative_no_delay) client["speculative_no_delay"] = *r.client.speculative_no_delay;
  j["client"] = std::move(client);
  if (!r.loaders.empty()) {  // `clients` only: each loader's share (results/README.md, "loaders")
    OJ loaders = OJ::array();
    const double window_s = to_sec(r.window);
    for (const LoaderResult& l : r.loaders) {
      OJ lj{{"name", l.name}, {"dc", l.dc}, {"rack", l.rack.empty() ? OJ(nullptr) : OJ(l.rack)}, {"policy", l.policy}};
      if (l.open_loop) lj["rate_ops_s"] = round_to(l.rate_ops_s, 3);
      else lj["threads"] = l.threads;
      lj["ops"] = l.ops();
      lj["throughput_ops_s"] = round_to(window_s > 0 ? static_cast<double>(l.ops()) / window_s : 0.0, 3);
      lj["latency_ms"] = latency_json(l.latency);
      std::array<std::uint64_t, kErrorKinds> loader_errors{};
      for (const OpStats& s : l.by_op)
        for (std::size_t k = 0; k < kErrorKinds; ++k) loader_errors[k] += s.errors[k];
      lj["errors"] = errors_json(loader_errors);
      lj["coordinator_ops"] = l.coordinator_ops;
      lj["cpu_utilization"] = round_to(l.cpu_utilization, 6);
      loaders.push_back(std::move(lj));
    }
    j["loaders"] = std::move(loaders);
  }
  if (r.speculative_retry) {
    OJ th = OJ::array();
    for (double v : r.speculative_retry->threshold_ms) th.push_back(round_to(v, 6));
    j["speculative_retry"] = {{"option", r.speculative_retry->option}, {"reads", r.speculative_retry->reads}};
    if (!th.empty()) j["speculative_retry"]["threshold_ms"] = std::move(th);
  }
  if (const auto& m = r.replica_map) {  // only with a driver's replica map (replica_source)
    auto share = [](std::uint64_t a, std::uint64_t b) { return round_to(static_cast<double>(a) / static_cast<double>(b), 6); };
    OJ rm{{"ops", m->ops}, {"repeated", m->repeated}};
    if (m->ops > 0) rm["repeated_share"] = share(m->repeated, m->ops);  // a share of nothing is absent
    rm["retries"] = m->retries;
    rm["retries_same_host"] = m->retries_same_host;
    if (m->retries > 0) rm["retries_same_host_share"] = share(m->retries_same_host, m->retries);
    j["replica_map"] = std::move(rm);
  }
  if (r.detection) {
    OJ ev = OJ::array();
    for (const DetectionEvent& e : r.detection->events)
      ev.push_back({{"at_s", round_to(e.at_s, 6)}, {"node", e.node}, {"state", e.up ? "up" : "down"}, {"by", e.by}});
    j["driver_detection"] = {{"driver", r.detection->driver},
                             {"interval_ms", round_to(r.detection->interval_ms, 6)},
                             {"timeout_ms", round_to(r.detection->timeout_ms, 6)},
                             {"events", std::move(ev)}};
  }

  OJ points = OJ::array();
  const double iv = to_sec(r.timeline.interval());
  for (std::size_t i = 0; i < r.timeline.points().size(); ++i) {
    const auto& p = r.timeline.points()[i];
    OJ pt{{"t_s", round_to(static_cast<double>(i) * iv, 9)},
          {"ops", p.ops},
          {"errors", p.errors},
          {"p99_ms", round_to(to_ms(p.latency.percentile(99)), 6)}};
    // Requests served per node (coordinator attempts), in the order of "nodes".
    if (r.timeline.nodes() == r.nodes.size()) {
      OJ per = OJ::array();
      for (std::uint64_t v : r.timeline.node_ops(i)) per.push_back(v);
      pt["coordinator_ops"] = std::move(per);
    }
    if (r.timeline.has_cache()) {  // cluster.cache only: each node's hit rate in the point (null: no lookup)
      OJ per = OJ::array();
      const auto h = r.timeline.node_hits(i), m = r.timeline.node_misses(i);
      for (std::size_t n = 0; n < h.size(); ++n)
        per.push_back(h[n] + m[n] > 0 ? OJ(round_to(static_cast<double>(h[n]) / static_cast<double>(h[n] + m[n]), 6))
                                      : OJ(nullptr));
      pt["cache_hit_rate"] = std::move(per);
    }
    if (r.tablets) {
      pt["payloads"] = p.payloads;
      pt["fallback"] = p.fallback;
      pt["non_replica"] = p.non_replica;
      pt["cross_shard_hops"] = p.hops;
    }
    points.push_back(std::move(pt));
  }
  if (r.tablets) {
    const TabletResult& t = *r.tablets;
    OJ per = OJ::array();
    for (auto v : t.node_replicas) per.push_back(v);
    j["tablets"] = {{"count", t.tablets},
                    {"count_start", t.count_start},
                    {"table_mb", round_to(t.table_mb, 6)},
                    {"tablet_mb_start", round_to(t.tablet_mb_start, 6)},
                    {"count_end", t.tablets},
                    {"splits", t.splits},
                    {"merges", t.merges},
                    {"fallback_routed", t.fallback},
                    {"non_replica_coordinations", t.non_replica},
                    {"wrong_shard", t.wrong_shard},
                    {"payloads", t.payloads},
                    {"cache_updates", t.cache_updates},
                    {"migrations_started", t.migrations_started},
                    {"migrations_done", t.migrations_done},
                    {"replicas_per_node", nullptr},
                    {"overcommit", {{"node", round_to(t.overcommit_node, 6)},
                                    {"shard", round_to(t.overcommit_shard, 6)},
                                    {"best_node", round_to(t.best_node, 6)},
                                    {"best_shard", round_to(t.best_shard, 6)}}}};
    j["tablets"]["replicas_per_node"] = std::move(per);
  }
  if (r.cache)
    j["cache"] = {{"hit_rate", round_to(r.cache->hit_rate, 6)},
                  {"misses_per_s", round_to(r.cache->misses_per_s, 3)},
                  {"miss_overcommit", round_to(r.cache->miss_overcommit, 6)},
                  {"keys_cached", r.cache->keys_cached},
                  {"copies_per_key", round_to(r.cache->copies_per_key, 6)}};
  for (const RunResult::Section& s : r.mechanism_sections) j[s.key] = s.json;  // the mechanisms' own
  j["timeline"] = {{"interval_s", round_to(iv, 9)}};
  if (!r.events.empty()) {
    // Faults and topology changes at their scenario times (points' t_s count from the window start).
    OJ events = OJ::array();
    for (const ScenarioEvent& e : r.events) {
      OJ ev{{"at_s", round_to(to_sec(e.at), 9)}, {"event", e.kind}, {"nodes", e.nodes}};
      if (e.kind == "slow") ev["factor"] = round_to(e.factor, 6);
      if (e.shard >= 0) ev["shard"] = e.shard;  // only shard-pinned slow faults: other reports unchanged
      events.push_back(std::move(ev));
    }
    j["timeline"]["events"] = std::move(events);
  }
  j["timeline"]["points"] = nullptr;
  j["timeline"]["points"] = std::move(points);  // an initializer list would copy every point
  OJ buckets = OJ::array();
  const auto& b = r.latency.buckets();
  for (std::size_t i = 0; i < b.size(); ++i)
    if (b[i]) buckets.push_back(OJ::array({i, b[i]}));
  j["histogram"] = {{"encoding", "log-linear ns: 0-255 exact, then 128 buckets per octave"},
                    {"min_ns", r.latency.min()},
                    {"max_ns", r.latency.max()},
                    {"buckets", nullptr}};
  j["histogram"]["buckets"] = std::move(buckets);
  j["warnings"] = r.warnings;
  return j;
}

OJ report_json(const RunResult& r) {
  OJ j = report_json_stable(r);
  j["engine"] = {{"events", r.engine.events},
                 {"wall_s", round_to(r.engine.wall_s, 6)},
                 {"sim_ops_per_wall_s", round_to(r.engine.ops_per_wall_s, 1)},
                 {"ns_per_op", round_to(r.engine.ns_per_op, 1)},
                 {"peak_rss_mb", round_to(r.engine.peak_rss_mb, 1)},
                 {"draw_ahead", r.engine.draw_ahead},
                 {"request_path", r.engine.hooked ? "hooked" : "bare"}};
  return j;
}

void for_each_json_document(const std::string& dir,
                            const std::function<void(const std::string& path, nlohmann::json doc)>& fn) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    nlohmann::json j;
    try {
      j = jsonin::load_file(f.string());
    } catch (const ConfigError&) {
      // Not JSON: not a document of ours, unless it says it is one (a truncated or hand-edited
      // report, a repeated key): then it is bad input, named, not skipped in silence.
      std::ifstream in(f, std::ios::binary);
      std::string head(512, '\0');
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
      head.resize(static_cast<std::size_t>(in.gcount()));
      if (head.find("\"lbsim.") != std::string::npos && head.find("\"schema\"") != std::string::npos) throw;
      continue;
    }
    fn(f.string(), std::move(j));
  }
}

std::string report_path(const std::string& out_dir, const std::string& scenario, const std::string& policy) {
  return (std::filesystem::path(out_dir) / scenario / (policy + ".json")).string();
}

void write_file_atomic(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw IoError("cannot create folder '" + target.parent_path().string() + "': " + ec.message());
  }
  std::string tmpl = (target.has_parent_path() ? target.parent_path() / ("." + target.filename().string() + ".XXXXXX")
                                               : fs::path("." + target.filename().string() + ".XXXXXX"))
                         .string();
  // Registered from its creation to its rename, so that a prompt exit (sim/core/exit_cleanup.hpp)
  // removes it: a report is complete under its name or absent.
  std::string tmp = tmpl;
  const int fd = make_temporary(tmp);
  if (fd < 0) throw IoError("cannot create a temporary file next to '" + path + "': " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    const std::string msg = what + " '" + path + "': " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    unregister_temporary(tmp);
    throw IoError(msg);
  };
  std::size_t done = 0;
  auto write_up_to = [&](std::size_t end) {
    while (done < end) {
      const ssize_t w = ::write(fd, text.data() + done, end - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        fail("cannot write");
      }
      done += static_cast<std::size_t>(w);
    }
  };
  write_up_to(text.size() / 2);
  pause_point("report");  // a test's interrupt "while a report is written"
  write_up_to(text.size());
  if (::fchmod(fd, 0644) != 0) fail("cannot set permissions of");
  if (::fsync(fd) != 0) fail("cannot flush");
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    unregister_temporary(tmp);
    throw IoError("cannot close '" + path + "': " + std::strerror(errno));
  }
  int rename_errno = 0;
  if (!finish_temporary(tmp, [&] {
        if (std::rename(tmp.c_str(), path.c_str()) == 0) return true;
        rename_errno = errno;
        ::unlink(tmp.c_str());
        return false;
      }))
    throw IoError("cannot rename the temporary file to '" + path + "': " + std::strerror(rename_errno));
}

}  // namespace lbsim
