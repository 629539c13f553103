#include "sim/runner/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/report/aggregate.hpp"

namespace lbsim {

using OJ = nlohmann::ordered_json;

namespace {

OJ header_json(const SweepHeader& h) {
  OJ j;
  j["schema"] = kSweepSchema;
  j["scenario"] = {{"name", h.scenario_name}, {"hash", h.scenario_hash}};
  OJ params = OJ::array(), grid = OJ::array();
  for (const auto& a : h.axes) {
    params.push_back(a.path);
    grid.push_back({{"path", a.path}, {"values", a.values}});
  }
  j["parameters"] = params;
  j["grid"] = grid;
  j["grid_points"] = h.grid_points;
  j["policies"] = h.policies;
  j["seeds"] = h.seeds.size();
  j["seed_list"] = h.seeds;
  return j;
}

OJ finish(OJ head, std::vector<OJ> points) {
  std::sort(points.begin(), points.end(),
            [](const OJ& a, const OJ& b) { return a["index"].get<std::size_t>() < b["index"].get<std::size_t>(); });
  head["points"] = points;
  return head;
}

}  // namespace

OJ sweep_document(const SweepHeader& h, const std::vector<GridPoint>& points, const PointReports& reports,
                  std::optional<Shard> shard) {
  OJ head = header_json(h);
  if (shard) head["shard"] = {{"index", shard->index}, {"count", shard->count}};
  std::vector<OJ> pts;
  for (const auto& p : points) {
    auto it = reports.find(p.index);
    if (it == reports.end()) continue;
    OJ pj{{"index", p.index}, {"id", p.id}, {"values", p.values}};
    OJ pols = OJ::object();
    for (const auto& name : h.policies) {
      auto r = it->second.find(name);
      if (r == it->second.end() || r->second.empty()) continue;
      pols[name] = {{"metrics", aggregate_metrics(r->second)}};
      std::vector<const nlohmann::json*> runs;
      for (const auto& x : r->second) runs.push_back(&x);
      if (const std::string scope = imbalance_scope(runs); !scope.empty()) pols[name]["imbalance_scope"] = scope;
    }
    pj["policies"] = pols;
    pts.push_back(std::move(pj));
  }
  return finish(head, std::move(pts));
}

OJ merge_sweeps(const std::vector<OJ>& slices) {
  if (slices.empty()) throw ConfigError("", "no sweep slices given");
  auto strip = [](OJ j) {
    j.erase("points");
    j.erase("shard");
    return j;
  };
  const OJ ref = strip(slices.front());
  if (ref.value("schema", std::string()) != kSweepSchema)
    throw ConfigError("slice 1", fmt::format("not a {} document", kSweepSchema));
  std::map<std::size_t, OJ> points;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    if (strip(slices[i]) != ref)
      throw ConfigError(fmt::format("slice {}", i + 1), "comes from a different sweep (scenario, grid, policies or seeds differ)");
    for (const auto& p : slices[i]["points"]) {
      const auto idx = p["index"].get<std::size_t>();
      auto [it, fresh] = points.emplace(idx, p);
      if (!fresh && it->second != p)
        throw ConfigError(fmt::format("slice {}", i + 1), fmt::format("grid point {} differs from another slice", idx));
    }
  }
  const auto n = ref["grid_points"].get<std::size_t>();
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < n; ++i)
    if (!points.count(i)) missing.push_back(fmt::format("p{:03}", i));
  if (!missing.empty())
    throw ConfigError("", fmt::format("{} grid point(s) missing: {}", missing.size(), fmt::join(missing, ", ")));
  // Rebuild in the same key order as sweep_document().
  std::vector<OJ> pts;
  for (const auto& [i, p] : points) pts.push_back(p);
  return finish(ref, std::move(pts));
}

namespace {
// A table cell in plain notation: thousands grouped ("29,930", not "2.993e+04"), decimals by
// magnitude; a confidence interval takes the decimals of its mean ("29,930 ± 98").
std::string table_number(double v, double like = NAN, int fixed = -1) {
  const double a = std::fabs(std::isnan(like) ? v : like);
  const int decimals = fixed >= 0 ? fixed : a >= 1000 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  std::string s = fmt::format("{:.{}f}", v, decimals);
  const std::size_t dot = s.find('.');
  const std::size_t int_end = dot == std::string::npos ? s.size() : dot;
  const std::size_t first = (s[0] == '-') ? 1 : 0;
  for (std::ptrdiff_t k = static_cast<std::ptrdiff_t>(int_end) - 3; k > static_cast<std::ptrdiff_t>(first); k -= 3)
    s.insert(static_cast<std::size_t>(k), ",");
  return s;
}
}  // namespace

std::string sweep_table(const nlohmann::json& sweep) {
  struct M {
    const char* id;
    const char* label;
    double scale;
    bool zero_is_none = false;  // 0 means the figure does not apply: "-", and no table when all are
    int decimals = -1;          // fixed decimals (-1: by magnitude)
    bool if_present = false;    // no table when no report has it (cluster.cache's figures)
  };
  const M metrics[] = {{"throughput_ops_s", "throughput (op/s)", 1},
                       {"latency_ms.p99", "latency p99 (ms)", 1},
                       {"errors.total", "errors", 1},
                       // Near 1, where two decimals would show 1.005 and 1.000 alike.
                       {"imbalance.coordinator.max_over_mean", "coordinator max/mean", 1, false, 3},
                       {"client.cpu_utilization", "client CPU (%)", 100},
                       // Only policies drawing from a shared generator spend time on it.
                       {"client.shared_rng_cpu_fraction", "shared generator (% of client CPU)", 100, true},
                       {"cache.hit_rate", "cache hit rate (%)", 100, false, 1, true},
                       {"cache.miss_overcommit", "cache miss overcommit (max/mean per node)", 1, false, 3, true},
                       {"cache.copies_per_key", "copies per cached key", 1, false, 3, true}};
  const auto policies = sweep["policies"].get<std::vector<std::string>>();
  // The imbalance rows are the reports' headline (the DCs that coordinate): named with several DCs.
  const std::string scope = imbalance_label_suffix(sweep_imbalance_scopes(sweep));
  std::string out;
  auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  // An axis with one value is the same in every point: said once above the tables, not in each label.
  std::set<std::string> fixed;
  std::string fixed_line;
  if (sweep.contains("grid"))
    for (const auto& a : sweep["grid"])
      if (a["values"].size() == 1) {
        fixed.insert(a["path"].get<std::string>());
        // The value as the points hold it (a JSON value when it parses, else the bare string).
        const auto& first = sweep["points"].empty() ? a["values"][0] : sweep["points"][0]["values"][a["path"].get<std::string>()];
        fixed_line += fmt::format("{}{}={}", fixed_line.empty() ? "" : " ", a["path"].get<std::string>(), text(first));
      }
  if (!fixed_line.empty()) out += "every point: " + fixed_line + "\n";
  auto point_label = [&](const nlohmann::json& pt) {
    std::string label;
    for (const auto& [k, v] : pt["values"].items())
      if (!fixed.count(k)) label += (label.empty() ? "" : " ") + k + "=" + text(v);
    return label.empty() ? pt.value("id", std::string("p000")) : label;
  };
  std::size_t lw = 28;
  for (const auto& pt : sweep["points"]) lw = std::max(lw, point_label(pt).size() + 1);
  auto applies = [&](const M& m, const nlohmann::json& pt, const std::string& p) {
    if (!pt["policies"].contains(p) || !pt["policies"][p]["metrics"].contains(m.id)) return false;
    return !m.zero_is_none || pt["policies"][p]["metrics"][m.id]["mean"].get<double>() != 0;
  };
  for (const auto& m : metrics) {
    bool any = false;
    for (const auto& pt : sweep["points"])
      for (const auto& p : policies) any = any || applies(m, pt, p);
    if ((m.zero_is_none || m.if_present) && !any) continue;
    out += fmt::format("\n{}{}\n{:<{}}", m.label, std::string_view(m.id).starts_with("imbalance.") ? scope : "", "point", lw);
    for (const auto& p : policies) out += fmt::format(" {:>22}", p);
    out += "\n";
    for (const auto& pt : sweep["points"]) {
      out += fmt::format("{:<{}}", point_label(pt), lw);
      for (const auto& p : policies) {
        std::string cell = "-";
        if (applies(m, pt, p)) {
          const auto& a = pt["policies"][p]["metrics"][m.id];
          const double mean = a["mean"].get<double>() * m.scale;
          double ci = a["ci95"].get<double>() * m.scale;
          if (ci < 1e-9 * std::fabs(mean)) ci = 0;  // rounding noise of identical samples
          cell = table_number(mean, NAN, m.decimals);
          if (a["n"].get<std::size_t>() > 1) cell += " ± " + table_number(ci, mean, m.decimals);
        }
        out += fmt::format(" {:>22}", cell);
      }
      out += "\n";
    }
  }
  return out;
}

std::string sweep_rows(const nlohmann::json& sweep, bool markdown) {
  std::vector<std::string> params;
  for (const auto& p : sweep["parameters"]) params.push_back(p.is_string() ? p.get<std::string>() : p.dump());
  std::vector<std::string> head = params;
  for (const char* h : {"policy", "metric", "n", "mean", "ci95", "min", "max"}) head.emplace_back(h);
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    if (markdown) {
      out += "|";
      for (const auto& c : cells) out += " " + c + " |";
    } else {
      for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    }
    out += "\n";
  };
  line(head);
  if (markdown) line(std::vector<std::string>(head.size(), "---"));
  for (const auto& pt : sweep["points"]) {
    std::vector<std::string> values;
    for (const auto& p : params) {
      const auto& v = pt["values"].contains(p) ? pt["values"][p] : nlohmann::json();
      values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    for (const auto& [policy, pj] : pt["policies"].items())
      for (const auto& [metric, a] : pj["metrics"].items()) {
        std::vector<std::string> row = values;
        row.push_back(policy);
        row.push_back(metric);
        row.push_back(a["n"].dump());
        for (const char* k : {"mean", "ci95", "min", "max"}) row.push_back(fmt::format("{}", a[k].get<double>()));
        line(row);
      }
  }
  return out;
}

}  // namespace lbsim
