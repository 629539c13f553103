// The `reproduces` block and its figures (sim/config/incident.hpp).
#include "sim/config/incident.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace lbsim {
namespace {

using jsonin::Json;
using jsonin::Object;

constexpr double kBig = 1e18;

Figure parse_figure(const Json& j, const std::string& path, const std::vector<std::string>& policies, std::size_t nodes) {
  if (!j.is_object()) jsonin::fail(path, std::string("expected an object (a figure), got ") + jsonin::type_name(j));
  const Json* k = j.find("kind") != j.end() ? &j.at("kind") : nullptr;
  if (!k) jsonin::fail(jsonin::key_path(path, "kind"), "required field is missing; valid: value, timeline_sum, ratio, change, max, min, sum");
  const std::string kind = jsonin::as_string(*k, jsonin::key_path(path, "kind"));
  Figure f;
  auto policy_of = [&](const Object& o) {
    const std::string p = o.str("policy");
    if (std::find(policies.begin(), policies.end(), p) == policies.end())
      jsonin::fail(o.path_of("policy"), "unknown policy '" + p + "'; valid: " + jsonin::join(policies));
    return p;
  };
  // A leaf's run: its seed and --set patches (optional).
  auto run_of = [&](const Object& o) {
    if (o.has("seed")) f.seed = static_cast<std::uint64_t>(o.integer("seed", 0, std::int64_t{1} << 53));
    if (const Json* st = o.find("set")) {
      const Json& arr = jsonin::as_array(*st, o.path_of("set"));
      for (std::size_t i = 0; i < arr.size(); ++i) {
        std::string s = jsonin::as_string(arr[i], jsonin::index_path(o.path_of("set"), i));
        if (s.find('=') == std::string::npos || s[0] == '=')
          jsonin::fail(jsonin::index_path(o.path_of("set"), i), "'" + s + "' must be PATH=VALUE, as --set");
        f.set.push_back(std::move(s));
      }
    }
  };
  if (kind == "value") {
    Object o(j, path, {"kind", "policy", "path", "seed", "set"});
    run_of(o);
    f.kind = Figure::Kind::Value;
    f.policy = policy_of(o);
    f.path = o.str("path");
    if (f.path.empty() || f.path[0] != '/')
      jsonin::fail(o.path_of("path"), "'" + f.path + "' must be a JSON pointer into the report, e.g. /throughput_ops_s");
    try {
      (void)nlohmann::json::json_pointer(f.path);
    } catch (const nlohmann::json::exception& e) {
      jsonin::fail(o.path_of("path"), std::string("not a JSON pointer: ") + e.what());
    }
  } else if (kind == "timeline_sum") {
    Object o(j, path, {"kind", "policy", "field", "node", "from_s", "to_s", "seed", "set"});
    run_of(o);
    f.kind = Figure::Kind::TimelineSum;
    f.policy = policy_of(o);
    f.field = o.choice<std::string>("field", {{"ops", "ops"}, {"errors", "errors"}, {"coordinator_ops", "coordinator_ops"},
                                              {"payloads", "payloads"}, {"fallback", "fallback"},
                                              {"non_replica", "non_replica"}, {"cross_shard_hops", "cross_shard_hops"}});
    if (o.has("node")) f.node = static_cast<std::size_t>(o.integer("node", 0, static_cast<std::int64_t>(nodes) - 1));
    if (f.field == "coordinator_ops" && !f.node)
      jsonin::fail(o.path_of("node"), "required with field coordinator_ops (a per-node list): a node index in nodes[]");
    if (f.field != "coordinator_ops" && f.node)
      jsonin::fail(o.path_of("node"), "only with field coordinator_ops (the other fields are one number per point)");
    f.from_s = o.number("from_s", 0, kBig);
    f.to_s = o.number("to_s", 0, kBig);
    if (f.to_s <= f.from_s) jsonin::fail(o.path_of("to_s"), "must be greater than from_s");
  } else if (kind == "ratio" || kind == "change") {
    const bool ratio = kind == "ratio";
    const char* a = ratio ? "num" : "new";
    const char* b = ratio ? "den" : "old";
    Object o(j, path, {"kind", a, b});
    f.kind = ratio ? Figure::Kind::Ratio : Figure::Kind::Change;
    f.of.push_back(parse_figure(o.at(a), o.path_of(a), policies, nodes));
    f.of.push_back(parse_figure(o.at(b), o.path_of(b), policies, nodes));
  } else if (kind == "max" || kind == "min" || kind == "sum") {
    Object o(j, path, {"kind", "of"});
    f.kind = kind == "max" ? Figure::Kind::Max : kind == "min" ? Figure::Kind::Min : Figure::Kind::Sum;
    const Json& arr = jsonin::as_array(o.at("of"), o.path_of("of"));
    for (std::size_t i = 0; i < arr.size(); ++i)
      f.of.push_back(parse_figure(arr[i], jsonin::index_path(o.path_of("of"), i), policies, nodes));
  } else {
    jsonin::fail(jsonin::key_path(path, "kind"),
                 "unknown value '" + kind + "'; valid: value, timeline_sum, ratio, change, max, min, sum");
  }
  return f;
}

void collect(const Figure& f, std::vector<std::string>& out) {
  if (!f.policy.empty()) out.push_back(f.policy);
  for (const Figure& g : f.of) collect(g, out);
}

void collect_runs(const Figure& f, std::map<std::string, Figure>& out) {
  if (!f.policy.empty()) out.emplace(f.run_key(), f);
  for (const Figure& g : f.of) collect_runs(g, out);
}

double number_at(const nlohmann::json& doc, const std::string& pointer, const std::string& policy) {
  const nlohmann::json::json_pointer p(pointer);
  if (!doc.contains(p)) throw std::runtime_error(fmt::format("report of '{}' has no {}", policy, pointer));
  const nlohmann::json& v = doc.at(p);
  if (!v.is_number()) throw std::runtime_error(fmt::format("report of '{}': {} is not a number", policy, pointer));
  return v.get<double>();
}

}  // namespace

Reproduces parse_reproduces(const Json& j, const std::string& path, const std::vector<std::string>& policies,
                            std::size_t nodes) {
  Object o(j, path, {"source", "claim", "published", "status", "reason", "figure", "tolerance", "setup", "test_set"});
  Reproduces r;
  r.source = o.str("source");
  const auto hash = r.source.find('#');
  const auto slash = r.source.find('/');
  // No thread: a finding of lbsim's own, named as such with where it was checked.
  const bool own = r.source.starts_with(kOwnFinding) && r.source.size() > kOwnFinding.size();
  if (!own && (slash == std::string::npos || hash == std::string::npos || hash < slash || hash + 1 == r.source.size() ||
               r.source.find_first_not_of("0123456789", hash + 1) != std::string::npos))
    jsonin::fail(o.path_of("source"), "'" + r.source + "' must be owner/repo#N, e.g. scylladb/scylladb#19107, or \"" +
                                          std::string(kOwnFinding) + " (where it was checked)\"");
  r.claim = o.str("claim");
  {
    Object p(o.at("published"), o.path_of("published"), {"value", "text"});
    r.published = p.number("value", -kBig, kBig);
    r.published_text = p.str("text", "");
  }
  const std::string status = o.choice<std::string>(
      "status", {{"reproduced", "reproduced"}, {"not-reproduced", "not-reproduced"}}, std::string("reproduced"));
  r.reproduced = status == "reproduced";
  r.reason = o.str("reason", "");
  if (!r.reproduced && r.reason.empty())
    jsonin::fail(o.path_of("reason"), "required with status 'not-reproduced': say why lbsim does not reproduce it");
  if (r.reproduced && o.has("reason"))
    jsonin::fail(o.path_of("reason"), "only with status 'not-reproduced' (valid statuses: reproduced, not-reproduced)");
  if (const Json* f = o.find("figure")) r.figure = parse_figure(*f, o.path_of("figure"), policies, nodes);
  else if (r.reproduced) jsonin::fail(o.path_of("figure"), "required with status 'reproduced': how lbsim computes the figure");
  if (const Json* t = o.find("tolerance")) {
    Object to(*t, o.path_of("tolerance"), {"absolute", "relative", "reason"});
    if (to.has("absolute") == to.has("relative"))
      jsonin::fail(o.path_of("tolerance"), "give exactly one of 'absolute' (same unit as published) or 'relative' "
                                           "(a fraction of published)");
    if (to.has("absolute")) r.absolute = to.number("absolute", 0, kBig);
    else r.relative = to.number("relative", 0, 10);
    r.tolerance_reason = to.str("reason");
  } else if (r.figure) {
    jsonin::fail(o.path_of("tolerance"), "required with a figure: {absolute or relative, reason}");
  }
  if (const Json* s = o.find("setup")) {
    if (!s->is_object()) jsonin::fail(o.path_of("setup"), "expected an object {parameter: its source or \"assumed ...\"}");
    for (const auto& [k, v] : s->items()) r.setup[k] = jsonin::as_string(v, jsonin::key_path(o.path_of("setup"), k));
  } else {
    jsonin::fail(o.path_of("setup"), "required: each parameter with its source in the thread, or \"assumed ...\"");
  }
  if (const Json* ts = o.find("test_set")) {
    const Json& arr = jsonin::as_array(*ts, o.path_of("test_set"), true);
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string s = jsonin::as_string(arr[i], jsonin::index_path(o.path_of("test_set"), i));
      if (s.find('=') == std::string::npos || s[0] == '=')
        jsonin::fail(jsonin::index_path(o.path_of("test_set"), i), "'" + s + "' must be PATH=VALUE, as --set");
      r.test_set.push_back(std::move(s));
    }
  }
  return r;
}

std::string Figure::run_key() const {
  std::string k = policy;
  if (seed) k += "~seed-" + std::to_string(*seed);
  for (const std::string& s : set) k += "~" + s;
  return k;
}

std::vector<Figure> figure_runs(const Figure& f) {
  std::map<std::string, Figure> runs;
  collect_runs(f, runs);
  std::vector<Figure> out;
  for (auto& [k, g] : runs) {
    Figure leaf;
    leaf.policy = g.policy;
    leaf.seed = g.seed;
    leaf.set = g.set;
    out.push_back(std::move(leaf));
  }
  return out;
}

std::vector<std::string> figure_policies(const Figure& f) {
  std::vector<std::string> out;
  collect(f, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double evaluate_figure(const Figure& f, const std::map<std::string, nlohmann::json>& reports) {
  auto report = [&]() -> const nlohmann::json& {
    const auto it = reports.find(f.run_key());
    if (it == reports.end()) throw std::runtime_error("no report of run '" + f.run_key() + "'");
    return it->second;
  };
  switch (f.kind) {
    case Figure::Kind::Value:
      return number_at(report(), f.path, f.policy);
    case Figure::Kind::TimelineSum: {
      const nlohmann::json& doc = report();
      const nlohmann::json::json_pointer points("/timeline/points");
      if (!doc.contains(points)) throw std::runtime_error("report of '" + f.policy + "' has no timeline");
      double sum = 0;
      std::size_t used = 0;
      for (const auto& p : doc.at(points)) {
        const double t = p.at("t_s").get<double>();
        if (t < f.from_s || t >= f.to_s) continue;
        if (!p.contains(f.field)) throw std::runtime_error(fmt::format("timeline of '{}' has no {}", f.policy, f.field));
        const auto& v = p.at(f.field);
        if (v.is_array()) {
          if (!f.node || *f.node >= v.size())
            throw std::runtime_error(fmt::format("timeline {} of '{}' has no node {}", f.field, f.policy, f.node.value_or(0)));
          sum += v.at(*f.node).get<double>();
        } else {
          sum += v.get<double>();
        }
        ++used;
      }
      if (used == 0)
        throw std::runtime_error(fmt::format("timeline of '{}' has no point in [{}, {}) s", f.policy, f.from_s, f.to_s));
      return sum;
    }
    case Figure::Kind::Ratio:
    case Figure::Kind::Change: {
      const double a = evaluate_figure(f.of[0], reports);
      const double b = evaluate_figure(f.of[1], reports);
      if (b == 0) throw std::runtime_error("a figure divides by zero");
      return f.kind == Figure::Kind::Ratio ? a / b : a / b - 1;
    }
    case Figure::Kind::Max:
    case Figure::Kind::Min: {
      double best = f.kind == Figure::Kind::Max ? -std::numeric_limits<double>::infinity()
                                                : std::numeric_limits<double>::infinity();
      for (const Figure& g : f.of) {
        const double v = evaluate_figure(g, reports);
        best = f.kind == Figure::Kind::Max ? std::max(best, v) : std::min(best, v);
      }
      return best;
    }
    case Figure::Kind::Sum: {
      double sum = 0;
      for (const Figure& g : f.of) sum += evaluate_figure(g, reports);
      return sum;
    }
  }
  return 0;
}

bool within_tolerance(const Reproduces& r, double value) {
  if (!std::isfinite(value)) return false;
  const double band = r.absolute >= 0 ? r.absolute : r.relative * std::fabs(r.published);
  return std::fabs(value - r.published) <= band;
}

std::string tolerance_text(const Reproduces& r) {
  if (r.absolute >= 0) return fmt::format("± {:g}", r.absolute);
  if (r.relative >= 0) return fmt::format("± {:g} %", r.relative * 100);
  return "-";
}

}  // namespace lbsim
