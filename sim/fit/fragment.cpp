// The scenario fragment of `lbsim fit` (format lbsim.fit/1): which sample feeds each value, the
// fits, the traps' checks (ScyllaDB's 512 us floor, decayed percentiles, coordinated omission,
// per-shard skew, the utilization law) and what has no scenario field yet.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/fit/fit.hpp"

namespace lbsim::fit {
namespace {

using OJ = nlohmann::ordered_json;

double r3(double v) { return std::round(v * 1000) / 1000; }  // report precision

// Which samples may stand for one replica's service time, best first: replica-local histograms,
// then the load generator's service time (client -> coordinator -> replica and back: an upper
// bound; exact only with a token-aware client at CL ONE and a negligible network), then the
// coordinator's; printed percentiles after histograms, being decayed or last-tick only.
int rank(const Sample& s) {
  const bool buckets = !s.count.empty();
  switch (s.role) {
    case Role::Replica: return buckets ? 0 : 3;
    case Role::ClientService: return 1;
    case Role::Coordinator: return buckets ? 2 : 4;
    default: return 99;
  }
}

const std::vector<double> kTable = {0, 0.1, 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.9, 100};

OJ table_json(const std::vector<std::pair<double, double>>& pts) {
  OJ t = OJ::array();
  for (const auto& [p, v] : pts) t.push_back(OJ::array({p, r3(v)}));
  return OJ{{"dist", "empirical"}, {"percentiles", t}};
}
double table_mean(const std::vector<std::pair<double, double>>& pts) {
  double m = 0;
  for (std::size_t i = 1; i < pts.size(); ++i)
    m += (pts[i].first - pts[i - 1].first) / 100.0 * (pts[i].second + pts[i - 1].second) / 2.0;
  return m;
}

struct Chosen {
  OJ dist;
  std::string how;
  double mean_us = 0, p99_us = 0, error = 0;
};

// The distribution written for one sample: the better family within kMaxFitError, else the
// empirical table of the sample itself (bucketed and uncensored only), else the better family
// anyway with a warning.
Chosen choose(const Sample& s, const DistFit& ln, const DistFit& ga, std::vector<std::string>& warnings) {
  const DistFit& best = (ga.error < ln.error - 1e-12) ? ga : ln;
  Chosen c;
  auto fit_table = [&](const DistFit& f) {
    std::vector<std::pair<double, double>> pts;
    for (double p : kTable) pts.push_back({p, p == 0 ? 0.0 : f.quantile(p >= 100 ? 0.9999 : p / 100)});
    return pts;
  };
  if (best.error <= kMaxFitError) {
    c.error = best.error;
    c.mean_us = best.mean_us;
    c.p99_us = best.p99_us;
    const double ratio = best.p99_us / best.mean_us;
    if (best.family == "lognormal" && ratio > 1 && ratio <= 14.9) {
      c.dist = OJ{{"dist", "lognormal"}, {"mean_us", r3(best.mean_us)}, {"p99_us", r3(best.p99_us)}};
      c.how = "lognormal";
    } else {
      const auto pts = fit_table(best);
      c.dist = table_json(pts);
      c.how = best.family + ", written as the empirical table of its quantiles (lbsim's distributions have no " +
              best.family + " kind with this shape; the 100th percentile is its 99.99th)";
    }
    return c;
  }
  const bool censored = (s.floor_first && !s.count.empty() && s.count[0] > 0) ||
                        (!s.hi.empty() && !std::isfinite(s.hi.back()) && s.count.back() > 0);
  if (!s.count.empty() && !censored) {
    // The histogram itself: its CDF, linear inside each bucket (uniform within a bucket), through
    // every non-empty bucket's edges; an empty gap becomes a step 1e-6 percentile wide (the table's
    // percentiles must increase strictly). At most about 1,024 buckets are kept (every k-th edge).
    const double n = s.total();
    std::vector<std::size_t> nz;
    for (std::size_t i = 0; i < s.count.size(); ++i)
      if (s.count[i] > 0) nz.push_back(i);
    const std::size_t step = std::max<std::size_t>(1, (nz.size() + 1023) / 1024);
    std::vector<std::pair<double, double>> pts;
    double cum = 0;
    for (std::size_t g = 0; g < nz.size(); g += step) {
      const std::size_t last = std::min(nz.size(), g + step) - 1;
      const double lo = s.lo[nz[g]], hi = s.hi[nz[last]];
      for (std::size_t k = g; k <= last; ++k) cum += s.count[nz[k]];
      if (pts.empty()) pts.push_back({0.0, lo});
      else if (lo > pts.back().second) pts.push_back({pts.back().first + 1e-6, lo});
      const double p = last + 1 == nz.size() ? 100.0 : std::min(100.0 - 1e-5, std::max(100 * cum / n, pts.back().first + 2e-6));
      pts.push_back({p, hi});
    }
    OJ t = OJ::array();
    for (const auto& [p, v] : pts) t.push_back(OJ::array({std::round(p * 1e6) / 1e6, r3(v)}));
    c.dist = OJ{{"dist", "empirical"}, {"percentiles", t}};
    c.how = fmt::format("empirical table of the histogram itself (lognormal error {:.1f} %, gamma {:.1f} %, both above {:.0f} %)",
                        100 * ln.error, 100 * ga.error, 100 * kMaxFitError);
    c.mean_us = table_mean(pts);
    c.p99_us = bucket_quantile(s, 0.99).value_or(pts.back().second);
    c.error = 0;
    return c;
  }
  warnings.push_back(fmt::format("{} {}: neither lognormal ({:.1f} %) nor gamma ({:.1f} %) fits within {:.0f} % and the "
                                 "sample cannot give an empirical table (censored or printed percentiles); the better "
                                 "fit is written anyway",
                                 s.file, s.metric, 100 * ln.error, 100 * ga.error, 100 * kMaxFitError));
  c.error = best.error;
  c.mean_us = best.mean_us;
  c.p99_us = best.p99_us;
  c.dist = table_json(fit_table(best));
  c.how = best.family + " (poor fit), as the empirical table of its quantiles";
  return c;
}

OJ fit_json(const DistFit& f) {
  if (f.family.empty()) return nullptr;
  return OJ{{"mean_us", r3(f.mean_us)}, {"p99_us", r3(f.p99_us)}, {"error", r3(f.error)}};
}

}  // namespace

OJ fit_fragment(const std::vector<std::pair<std::string, Parsed>>& inputs, const std::vector<std::string>& formats) {
  OJ doc;
  doc["format"] = "lbsim.fit/1";
  std::vector<std::string> warnings;
  OJ ins = OJ::array();
  std::vector<const Sample*> samples;
  std::vector<const Observation*> obs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& [file, p] = inputs[i];
    ins.push_back(OJ{{"file", file}, {"format", formats[i]}, {"latency_samples", p.samples.size()},
                     {"observations", p.observations.size()}});
    for (const auto& s : p.samples) samples.push_back(&s);
    for (const auto& o : p.observations) obs.push_back(&o);
    for (const auto& n : p.notes) warnings.push_back(n);
  }
  doc["inputs"] = ins;

  // Every sample's fits.
  OJ fits = OJ::array();
  struct Fitted {
    const Sample* s;
    QuantilePoints q;
    DistFit ln, ga;
    bool floor_blocked = false;
  };
  std::vector<Fitted> fitted;
  for (const Sample* s : samples) {
    Fitted f{s, quantile_points(*s), {}, {}, false};
    f.ln = fit_lognormal(f.q);
    f.ga = fit_gamma(f.q);
    f.floor_blocked = s->floor_first && f.q.floor_share >= 0.5;
    OJ j{{"file", s->file}, {"metric", s->metric}, {"op", op_name(s->op)}, {"measures", role_name(s->role)}};
    if (!s->node.empty()) j["node"] = s->node;
    j["values"] = f.q.n > 0 ? OJ(f.q.n) : OJ("printed percentiles");
    OJ pts = OJ::array();
    for (const auto& [p, v] : f.q.points) pts.push_back(OJ::array({r3(100 * p), r3(v)}));
    j["quantiles_used"] = pts;
    if (f.q.mean_us) j["mean_us"] = r3(*f.q.mean_us);
    j["lognormal"] = fit_json(f.ln);
    j["gamma"] = fit_json(f.ga);
    if (s->floor_first) j["floor_share"] = r3(f.q.floor_share);
    if (!s->note.empty()) j["note"] = s->note;
    fits.push_back(j);
    if (s->floor_first && f.q.floor_share > 0.01)
      warnings.push_back(fmt::format(
          "{} {}: {:.0f} % of the requests sit in ScyllaDB's first bucket (under 640 us; the histogram starts at 512 us): "
          "{}",
          s->file, s->metric, 100 * f.q.floor_share,
          f.floor_blocked ? "sub-millisecond service cannot be fitted from it; the client's service-time log (-st) or "
                            "scheduler runtime / operations stands in"
                          : "only the quantiles above the floor are fitted"));
    if (s->decayed)
      warnings.push_back(fmt::format("{} {}: nodetool's percentiles are forward-decayed (60 s half-life, "
                                     "DecayingEstimatedHistogramReservoir): they weight the last minutes; give the raw "
                                     "values() arrays (JMX dump) for an unweighted fit",
                                     s->file, s->metric));
    fitted.push_back(std::move(f));
  }

  // The utilization law per node: statement scheduler runtime / replica operations.
  struct NodeLaw {
    double runtime_ms = 0, reads = 0, writes = 0;
    std::map<std::string, double> util;  // shard -> reactor utilization
  };
  std::map<std::string, NodeLaw> nodes;
  for (const Observation* o : obs) {
    if (o->metric == "scylla_scheduler_runtime_ms") nodes[o->node].runtime_ms += o->value;
    else if (o->metric == "scylla_database_total_reads") nodes[o->node].reads += o->value;
    else if (o->metric == "scylla_database_total_writes") nodes[o->node].writes += o->value;
    else if (o->metric == "scylla_reactor_utilization") nodes[o->node].util[o->shard] = o->value;
  }
  double all_runtime = 0, all_reads = 0, all_writes = 0;
  for (const auto& [n, l] : nodes)
    if (l.runtime_ms > 0 && l.reads + l.writes > 0) {
      all_runtime += l.runtime_ms;
      all_reads += l.reads;
      all_writes += l.writes;
    }

  // The chosen sample per operation.
  OJ cluster = OJ::object(), service = OJ::object(), prov = OJ::object();
  std::map<Op, Chosen> chosen;
  std::vector<Op> unfitted;
  for (Op op : {Op::Read, Op::Write}) {
    const Fitted* best = nullptr;
    for (const auto& f : fitted) {
      if (f.s->op != op || rank(*f.s) > 4 || f.floor_blocked || f.ln.family.empty()) continue;
      if (!best || rank(*f.s) < rank(*best->s)) best = &f;
    }
    const std::string key = std::string("cluster.service.") + op_name(op);
    if (best) {
      Chosen c = choose(*best->s, best->ln, best->ga, warnings);
      OJ p{{"file", best->s->file}, {"metric", best->s->metric}, {"measures", role_name(best->s->role)},
           {"written_as", c.how}, {"fit_error", r3(c.error)}, {"mean_us", r3(c.mean_us)}, {"p99_us", r3(c.p99_us)}};
      if (best->s->role == Role::ClientService)
        p["caveat"] = "a client's service time holds the network and coordinator too: it equals one replica's service "
                      "time only with a token-aware client at CL ONE and a negligible network";
      if (best->s->role == Role::Coordinator)
        p["caveat"] = "the coordinator's latency holds the replicas' network and queueing too: an upper bound";
      service[op_name(op)] = c.dist;
      prov[key] = p;
      chosen[op] = c;
    } else {
      unfitted.push_back(op);
    }
  }
  for (Op op : unfitted) {
    const std::string key = std::string("cluster.service.") + op_name(op);
    if (all_runtime > 0 && all_reads + all_writes > 0) {
      // Neither histogram nor client log: the mean from the utilization law, the only figure left.
      const Op other = op == Op::Read ? Op::Write : Op::Read;
      const double n_op = op == Op::Read ? all_reads : all_writes, n_other = op == Op::Read ? all_writes : all_reads;
      double mean = 1e3 * all_runtime / (all_reads + all_writes);
      std::string how = "mean only: statement scheduler runtime / replica operations (reads and writes together)";
      if (chosen.count(other) && n_op > 0) {
        mean = (1e3 * all_runtime - n_other * chosen[other].mean_us) / n_op;
        how = fmt::format("mean only: (statement scheduler runtime - {} writes' fitted mean) / {} operations", op_name(other),
                          op_name(op));
      }
      if (mean > 0) {
        service[op_name(op)] = OJ{{"dist", "constant"}, {"us", r3(mean)}};
        prov[key] = OJ{{"file", "scylla_scheduler_runtime_ms, scylla_database_total_reads/_writes"},
                       {"metric", "utilization law"},
                       {"written_as", how + "; the spread is unknown, so a constant (no spread) is written"},
                       {"mean_us", r3(mean)}};
        warnings.push_back(fmt::format("{}: no histogram above ScyllaDB's 512 us floor and no client log; the mean comes "
                                       "from scheduler runtime / operations and its spread is unknown",
                                       key));
      }
    }
  }
  if (!service.empty()) cluster["service"] = service;

  // Per-node speed factors: each node's mean work per operation against the nodes' mean.
  OJ checks = OJ::object();
  OJ law = OJ::array(), skew = OJ::array();
  std::map<std::string, double> per_op;
  for (const auto& [n, l] : nodes) {
    if (l.runtime_ms > 0 && l.reads + l.writes > 0) {
      const double d = 1e3 * l.runtime_ms / (l.reads + l.writes);
      per_op[n] = d;
      OJ j{{"node", n}, {"runtime_ms", r3(l.runtime_ms)}, {"operations", l.reads + l.writes}, {"mean_service_us", r3(d)}};
      if (chosen.count(Op::Read) && chosen.count(Op::Write)) {
        const double fitted_mean =
            (l.reads * chosen[Op::Read].mean_us + l.writes * chosen[Op::Write].mean_us) / (l.reads + l.writes);
        j["fitted_mean_us"] = r3(fitted_mean);
        j["disagreement"] = r3(d / fitted_mean - 1);
      }
      law.push_back(j);
    }
    if (l.util.size() > 1) {
      double sum = 0, mx = 0;
      for (const auto& [s, u] : l.util) {
        sum += u;
        mx = std::max(mx, u);
      }
      const double mean = sum / static_cast<double>(l.util.size());
      skew.push_back(OJ{{"node", n}, {"shards", l.util.size()}, {"mean_utilization", r3(mean)}, {"max_utilization", r3(mx)},
                        {"max_over_mean", r3(mean > 0 ? mx / mean : 0)}});
      if (mean > 0 && mx / mean > 1.2)  // assumed threshold, for the warning only
        warnings.push_back(fmt::format("node {}: its busiest shard runs at {:.2f} x its mean utilization; the node's "
                                       "histograms, summed over shards, hide this skew",
                                       n, mx / mean));
    }
  }
  if (per_op.size() >= 2) {
    // With both service times fitted, a node's speed is the fitted mean of its own read/write mix
    // over its measured work per operation (so a node that serves more writes is not called slow);
    // otherwise the nodes' mean work per operation over the node's.
    const bool mix = chosen.count(Op::Read) && chosen.count(Op::Write);
    double mean = 0;
    for (const auto& [n, d] : per_op) mean += d;
    mean /= static_cast<double>(per_op.size());
    OJ speed = OJ::object();
    for (const auto& [n, d] : per_op) {
      const NodeLaw& l = nodes[n];
      const double expected = mix ? (l.reads * chosen[Op::Read].mean_us + l.writes * chosen[Op::Write].mean_us) / (l.reads + l.writes)
                                  : mean;
      speed[n] = r3(expected / d);
    }
    cluster["speed"] = speed;
    prov["cluster.speed"] = OJ{
        {"metric", "scylla_scheduler_runtime_ms (statement, sl:*) / scylla_database_total_reads+_writes per node"},
        {"written_as", mix ? "the fitted mean service time of the node's own read/write mix / its measured work per operation"
                           : "the nodes' mean work per operation / the node's"},
        {"node_ids", "from the `instance` label, else the file name: they must be the scenario's node ids"}};
  }
  if (!law.empty()) {
    checks["utilization_law"] = law;
    for (const auto& j : law)
      if (j.contains("disagreement") && std::abs(j["disagreement"].get<double>()) > kMaxFitError)
        warnings.push_back(fmt::format("node {}: scheduler runtime / operations ({} us) disagrees with the fitted mean "
                                       "service time ({} us) by {:.0f} %",
                                       j["node"].get<std::string>(), j["mean_service_us"].dump(), j["fitted_mean_us"].dump(),
                                       100 * j["disagreement"].get<double>()));
  }
  if (!skew.empty()) checks["shard_skew"] = skew;

  // Coordinated omission: service (-st) against response (-rt) time per operation and file.
  OJ co = OJ::array();
  for (const auto& st : fitted)
    for (const auto& rt : fitted)
      if (st.s->role == Role::ClientService && rt.s->role == Role::ClientResponse && st.s->file == rt.s->file &&
          st.s->op == rt.s->op && st.q.mean_us && rt.q.mean_us) {
        const auto st99 = bucket_quantile(*st.s, 0.99), rt99 = bucket_quantile(*rt.s, 0.99);
        OJ j{{"file", st.s->file}, {"service", st.s->metric}, {"response", rt.s->metric},
             {"mean_ratio", r3(*rt.q.mean_us / *st.q.mean_us)}};
        if (st99 && rt99) j["p99_ratio"] = r3(*rt99 / *st99);
        co.push_back(j);
        if (st99 && rt99 && *rt99 > 1.1 * *st99)
          warnings.push_back(fmt::format("{}: response time p99 ({:.0f} us) exceeds service time p99 ({:.0f} us) by {:.0f} %: "
                                         "requests waited for their intended start (coordinated omission); the service "
                                         "distribution comes from {}",
                                         st.s->file, *rt99, *st99, 100 * (*rt99 / *st99 - 1), st.s->metric));
      }
  if (!co.empty()) checks["coordinated_omission"] = co;

  // What has no scenario field: caches, sstables per read, dropped messages, queue waits,
  // the part of the client's latency outside the replica.
  OJ observed = OJ::object();
  double row_hits = 0, row_misses = 0, cache_total = 0;
  bool scylla_cache = false;
  for (const Observation* o : obs) {
    if (o->metric == "scylla_cache_row_hits") row_hits += o->value, scylla_cache = true;
    if (o->metric == "scylla_cache_row_misses") row_misses += o->value, scylla_cache = true;
    if (o->metric == "scylla_cache_bytes_total") cache_total += o->value;
    if (o->metric.rfind("scylla_", 0) != 0 || o->metric.find("cross_shard") != std::string::npos ||
        o->metric.find("outside_replica_set") != std::string::npos) {
      if (o->metric.rfind("scylla_", 0) == 0) {
        auto& slot = observed["scylla"][o->metric];
        slot = (slot.is_null() ? 0.0 : slot.get<double>()) + o->value;
      } else {
        observed["cassandra"][o->metric] = o->value;
      }
    }
  }
  // Cassandra's caches (nodetool info) and sstables per read (tablehistograms), by name.
  for (const Observation* o : obs) {
    const auto at = o->metric.find(" Cache ");
    if (at != std::string::npos && o->metric.rfind("scylla_", 0) != 0) {
      const std::string cache = o->metric.substr(0, at + 6), what = o->metric.substr(at + 7);
      auto& c = observed["cache"][cache];
      if (what == "hits" || what == "requests" || what == "capacity bytes" || what == "recent hit rate")
        c[what == "capacity bytes" ? "capacity_bytes" : (what == "recent hit rate" ? "recent_hit_rate" : what)] = o->value;
      if (c.contains("hits") && c.contains("requests") && c["requests"].get<double>() > 0)
        c["hit_rate"] = r3(c["hits"].get<double>() / c["requests"].get<double>());
      c["source"] = o->file + " (nodetool info)";
    }
    if (o->metric.rfind("tablehistograms SSTables p", 0) == 0)
      observed["sstables_per_read"][o->metric.substr(std::string("tablehistograms SSTables ").size())] = o->value,
      observed["sstables_per_read"]["source"] = o->file;
  }
  if (scylla_cache && row_hits + row_misses > 0)
    observed["cache"]["scylla row cache"] = OJ{{"hit_rate", r3(row_hits / (row_hits + row_misses))}, {"capacity_bytes", cache_total},
                                              {"source", "scylla_cache_row_hits / (row_hits + row_misses); scylla_cache_bytes_total"}};
  for (Op op : {Op::Read, Op::Write}) {
    const Fitted *client = nullptr, *replica = nullptr;
    for (const auto& f : fitted) {
      if (f.s->op != op || !f.q.mean_us) continue;
      if (f.s->role == Role::ClientService && !client) client = &f;
      if (f.s->role == Role::Replica && !replica) replica = &f;
    }
    if (client && replica)
      observed["outside_replica_us"][op_name(op)] =
          OJ{{"mean", r3(*client->q.mean_us - *replica->q.mean_us)},
             {"what", "client service-time mean minus replica-local mean: network both ways, coordinator and driver "
                      "together (not separable further from these files)"}};
  }
  if (!observed.empty()) {
    observed["note"] = "not written as scenario fields: lbsim's cache model (issue 37) is not parsed yet, and sstables per "
                       "read, dropped messages and queue waits have no field";
    doc["observed"] = observed;
  }

  doc["cluster"] = cluster;
  doc["provenance"] = prov;
  doc["checks"] = checks;
  doc["fits"] = fits;
  doc["warnings"] = warnings;
  return doc;
}

std::vector<std::string> physics_sets(const nlohmann::json& fragment, const std::string& file) {
  if (!fragment.is_object() || !fragment.contains("format") || fragment["format"] != "lbsim.fit/1")
    throw ConfigError(file + ": /format", "not an lbsim fit fragment; expected \"format\": \"lbsim.fit/1\" (written by `lbsim fit`)");
  if (!fragment.contains("cluster") || !fragment["cluster"].is_object())
    throw ConfigError(file + ": /cluster", "missing; expected the object `lbsim fit` writes");
  std::vector<std::string> sets;
  const auto& c = fragment["cluster"];
  for (const auto& [k, v] : c.items()) {
    if (k == "service") {
      if (!v.is_object()) throw ConfigError(file + ": /cluster/service", "expected an object of distributions");
      for (const auto& [op, d] : v.items()) sets.push_back("cluster.service." + op + "=" + d.dump());
    } else if (k == "speed") {
      sets.push_back("cluster.speed=" + v.dump());
    } else {
      throw ConfigError(file + ": /cluster/" + k, "unknown key; valid: service, speed");
    }
  }
  return sets;
}

}  // namespace lbsim::fit
