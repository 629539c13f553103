#include "sim/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/core/json_reader.hpp"
#include "sim/report/report_shape.hpp"
#include "sim/report/aggregate.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/report_text.hpp"

namespace lbsim {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {
constexpr const char* kSchema = "lbsim.report/1";
}

const std::vector<Metric>& compare_metrics() {
  static const std::vector<Metric> m{
      {"throughput", "/throughput_ops_s", "op/s", true},
      {"latency mean", "/latency_ms/mean", "ms", false},
      {"latency p50", "/latency_ms/p50", "ms", false},
      {"latency p95", "/latency_ms/p95", "ms", false},
      {"latency p99", "/latency_ms/p99", "ms", false},
      {"latency p99.9", "/latency_ms/p999", "ms", false},
      {"latency max", "/latency_ms/max", "ms", false},
      {"errors", "/errors/total", "ops", false},
      {"coordinator max/mean", "/imbalance/coordinator/max_over_mean", "", false},
      {"coordinator CoV", "/imbalance/coordinator/cov", "", false},
      {"coordinator Gini", "/imbalance/coordinator/gini", "", false},
      {"replica max/mean", "/imbalance/replica/max_over_mean", "", false},
      {"replica CoV", "/imbalance/replica/cov", "", false},
      {"replica Gini", "/imbalance/replica/gini", "", false},
  };
  return m;
}

// The read/write split, shown when reads and writes both occur (scenarios often give them
// different consistency levels).
const std::vector<Metric>& split_metrics() {
  static const std::vector<Metric> m{
      {"read throughput", "/by_op/read/throughput_ops_s", "op/s", true},
      {"read latency p99", "/by_op/read/latency_ms/p99", "ms", false},
      {"write throughput", "/by_op/write/throughput_ops_s", "op/s", true},
      {"write latency p99", "/by_op/write/latency_ms/p99", "ms", false},
  };
  return m;
}

namespace {

template <class J>
double number_at(const J& j, const std::string& pointer) {
  const typename J::json_pointer p(pointer);
  return j.contains(p) && j[p].is_number() ? j[p].template get<double>() : 0.0;
}

// What an error kind means, said next to its count (sim/metrics/run_result.hpp, ErrorKind).
constexpr std::array<std::string_view, kErrorKinds> kErrorMeaning{
    "too few live replicas for the consistency level", "the coordinator's read timeout (timeouts.read_ms)",
    "the coordinator's write timeout (timeouts.write_ms)", "no answer within timeouts.client_ms",
    "the query plan ran out of hosts", "more than client.max_in_flight operations outstanding"};

}  // namespace

namespace {

template <class J>
PolicyLoad load_of(const std::string& name, const std::vector<const J*>& reports) {
  PolicyLoad p;
  p.name = name;
  if (reports.empty()) return p;
  const double n = static_cast<double>(reports.size());
  for (const J* r : reports) {
    p.throughput += number_at(*r, "/throughput_ops_s") / n;
    p.window_s += number_at(*r, "/simulated_s/window") / n;
    for (std::size_t k = 0; k < kErrorKinds; ++k)
      p.errors[k] += number_at(*r, "/errors/" + std::string(error_name(static_cast<ErrorKind>(k)))) / n;
    if (r->contains("nodes") && (*r)["nodes"].is_array())
      for (const auto& node : (*r)["nodes"])
        for (const char* d : {"/dropped/coordinator", "/dropped/reads", "/dropped/writes"}) p.shed += number_at(node, d) / n;
  }
  const J& first = *reports.front();
  const typename J::json_pointer loop("/client/loop");
  if (first.contains(loop) && first[loop].is_string()) p.loop = first[loop].template get<std::string>();
  p.rate_ops_s = number_at(first, "/client/rate_ops_s");
  return p;
}

}  // namespace

PolicyLoad policy_load(const std::string& name, const std::vector<const Json*>& reports) { return load_of(name, reports); }
PolicyLoad policy_load(const std::string& name, const std::vector<const nlohmann::ordered_json*>& reports) {
  return load_of(name, reports);
}

std::string error_counts(const PolicyLoad& p) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < kErrorKinds; ++k)
    if (p.errors[k] > 0) parts.push_back(fmt::format("{} {}", error_name(static_cast<ErrorKind>(k)), grouped(p.errors[k])));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

std::vector<std::string> comparability_warnings(const std::vector<PolicyLoad>& policies, double tolerance) {
  if (policies.size() < 2) return {};
  const auto [lo, hi] = std::minmax_element(policies.begin(), policies.end(), [](const PolicyLoad& a, const PolicyLoad& b) {
    return a.throughput < b.throughput;
  });
  if (lo->throughput <= 0 || hi->throughput / lo->throughput - 1 <= tolerance) return {};
  std::string w = fmt::format("throughput differs by {:.0f}% between policies ({} {} op/s, {} {} op/s)",
                              100 * (hi->throughput / lo->throughput - 1), lo->name, grouped(lo->throughput), hi->name,
                              grouped(hi->throughput));
  const bool open = std::all_of(policies.begin(), policies.end(), [](const PolicyLoad& p) { return p.loop == "open"; });
  if (open)
    w += policies.front().rate_ops_s > 0
             ? fmt::format(" although every policy was offered the same open loop of {} op/s", grouped(policies.front().rate_ops_s))
             : std::string(" although every policy replayed the same trace arrivals");
  // Failed operations, by policy and kind; shed work; and each policy's completions (successes
  // and failures per second), which in an open loop are the arrivals unless the policy lags them.
  std::vector<std::string> failed, shed;
  std::array<bool, kErrorKinds> kinds{};
  bool any_failed = false;
  std::vector<double> completions;
  for (const PolicyLoad& p : policies) {
    double total = 0;
    for (std::size_t k = 0; k < kErrorKinds; ++k) {
      total += p.errors[k];
      kinds[k] = kinds[k] || p.errors[k] > 0;
    }
    any_failed = any_failed || total > 0;
    failed.push_back(fmt::format("{}: {}", p.name, error_counts(p)));
    if (p.shed > 0) shed.push_back(fmt::format("{} {}", p.name, grouped(p.shed)));
    completions.push_back(p.throughput + (p.window_s > 0 ? total / p.window_s : 0));
  }
  const double most = *std::max_element(completions.begin(), completions.end());
  std::vector<std::string> lagging;
  if (open)
    for (std::size_t i = 0; i < policies.size(); ++i)
      if (completions[i] < (1 - tolerance) * most)
        lagging.push_back(fmt::format("{} {} op/s", policies[i].name, grouped(completions[i])));

  std::vector<std::string> causes, advice;
  if (any_failed) {
    std::string c = fmt::format("operations failed in the measurement window ({})", fmt::join(failed, "; "));
    if (!shed.empty()) c += fmt::format(" and the nodes shed expired work items ({})", fmt::join(shed, ", "));
    causes.push_back(c);
    advice.push_back("throughput and latencies count only the operations that succeeded: compare the errors before "
                     "the latencies");
  }
  if (!lagging.empty()) {
    causes.push_back(fmt::format("some policies complete fewer operations (successes and failures) than arrive ({}): "
                                 "they fall behind their arrivals (saturation: queues grow for the whole run), so "
                                 "their latencies depend on the run's length",
                                 fmt::join(lagging, ", ")));
    advice.push_back("compare them at a lower client.rate_ops_s");
  }
  if (!open) {
    causes.push_back("in a closed loop each policy runs at its own load, so their latencies are not comparable and a "
                     "verdict on them can reverse");
    advice.push_back("compare latencies at one load with an open loop (client.rate_ops_s)");
  }
  w += fmt::format(": {}; {}", fmt::join(causes, "; and "), fmt::join(advice, "; "));
  std::vector<std::string> meanings;
  for (std::size_t k = 0; k < kErrorKinds; ++k)
    if (kinds[k]) meanings.push_back(fmt::format("{}: {}", error_name(static_cast<ErrorKind>(k)), kErrorMeaning[k]));
  if (!meanings.empty()) w += fmt::format(" ({})", fmt::join(meanings, "; "));
  return {w};
}

std::vector<Json> load_reports(const std::vector<std::string>& inputs, std::vector<std::string>* files) {
  std::vector<Json> out;
  // Run reports only (any lbsim.report/N version, so a version mismatch can be reported);
  // aggregates, sweeps and models have other schemas.
  auto is_report = [](const Json& j) {
    return j.is_object() && j.contains("policy") && j.contains("schema") && j["schema"].is_string() &&
           j["schema"].get<std::string>().starts_with("lbsim.report/");
  };
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      for_each_json_document(in, [&](const std::string& file, Json j) {
        if (!is_report(j)) return;
        check_report_shape(j, file);
        out.push_back(std::move(j));
        if (files) files->push_back(file);
      });
    } else {
      Json j = jsonin::load_file(in);
      if (!is_report(j)) throw ConfigError(in, "not an lbsim report (no \"schema\"/\"policy\" fields)");
      check_report_shape(j, in);
      out.push_back(std::move(j));
      if (files) files->push_back(in);
    }
  }
  if (out.empty()) throw ConfigError(inputs.empty() ? "" : inputs.front(), "no lbsim reports found");
  return out;
}

namespace {

// The imbalance rows read "imbalance", the headline over the DCs that coordinate. With several DCs
// the rows name them: in the label when every policy's reports agree, else in a note.
void label_imbalance_rows(Comparison& c, std::map<std::string, std::vector<const Json*>>& by_policy) {
  std::vector<std::string> scopes;  // per policy
  for (const auto& p : c.policies) scopes.push_back(imbalance_scope(by_policy[p]));
  if (std::all_of(scopes.begin(), scopes.end(), [](const std::string& s) { return s.empty(); })) return;
  const bool same = std::all_of(scopes.begin(), scopes.end(), [&](const std::string& s) { return s == scopes.front(); });
  const std::string suffix = same ? " (" + scopes.front() + ")" : " (coordinating DCs*)";
  for (auto& m : c.metrics)
    if (m.pointer.rfind("/imbalance/", 0) == 0) m.name += suffix;
  if (!same) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < c.policies.size(); ++i) parts.push_back(c.policies[i] + " " + scopes[i]);
    c.notes.push_back(fmt::format("* coordinating DCs: {}", fmt::join(parts, "; ")));
  }
}

}  // namespace

Comparison compare_reports(const std::vector<Json>& reports, const CompareOptions& opts) {
  Comparison c;
  // Scenario and schema checks.
  std::set<std::string> schemas, scenarios;
  std::map<std::string, std::vector<std::string>> files_of;  // scenario -> files (when known)
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Json& r = reports[i];
    schemas.insert(r.value("schema", std::string("?")));
    const auto& s = r.contains("scenario") ? r["scenario"] : Json();
    const std::string sc = s.is_object() ? s.value("name", std::string("?")) + " (" + s.value("hash", std::string("?")) + ")"
                                         : std::string("?");
    scenarios.insert(sc);
    if (i < opts.files.size()) files_of[sc].push_back(opts.files[i]);
  }
  auto problem = [&](const std::string& what) {
    if (!opts.force) throw ConfigError("reports", what + "; or pass --mix-scenarios to use them together anyway");
    c.warnings.push_back(what);
  };
  if (schemas.size() > 1 || *schemas.begin() != kSchema)
    problem(fmt::format("reports have schema(s) {}, expected only {}", fmt::join(schemas, ", "), kSchema));
  if (scenarios.size() > 1) {
    // The scenarios, each with its report count and where they are: the folder holding them all,
    // or the file itself when there are at most two (a stale report left beside new ones).
    std::vector<std::string> parts;
    for (const auto& s : scenarios) {
      const auto& files = files_of[s];
      std::string where;
      if (files.size() > 2) {
        std::filesystem::path common = std::filesystem::path(files.front()).parent_path();
        for (const auto& f : files)
          while (!common.empty() && std::filesystem::path(f).lexically_relative(common).string().starts_with(".."))
            common = common.parent_path();
        where = fmt::format(": {} reports in {}", files.size(), common.empty() ? "." : common.string());
      } else if (!files.empty()) {
        where = fmt::format(": {}", fmt::join(files, ", "));
      }
      parts.push_back(s + where);
    }
    if (parts.size() > 10) {
      const std::size_t more = parts.size() - 10;
      parts.resize(10);
      parts.push_back(fmt::format("and {} more", more));
    }
    problem(fmt::format("these reports come from {} different scenarios ({}); give one scenario's folder",
                        scenarios.size(), fmt::join(parts, "; ")));
  }
  c.scenario = *scenarios.begin();

  // Group by policy, in the scenario's order (policy.index; reports without it after, in order of
  // first appearance); one report per (policy, seed).
  std::map<std::string, std::vector<const Json*>> by_policy;
  std::map<std::string, std::pair<std::int64_t, std::size_t>> order;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : reports) {
    const std::string name = r["policy"].value("name", std::string("?"));
    const std::string seed = r.contains("seed") ? r["seed"].dump() : "?";
    if (!seen.insert({name, seed}).second)
      problem(fmt::format("two reports for policy '{}' with seed {}", name, seed));
    if (!by_policy.count(name)) {
      c.policies.push_back(name);
      const auto& idx = r["policy"].contains("index") ? r["policy"]["index"] : Json();
      order[name] = {idx.is_number_integer() ? idx.get<std::int64_t>() : INT64_MAX, order.size()};
    }
    by_policy[name].push_back(&r);
  }
  std::stable_sort(c.policies.begin(), c.policies.end(),
                   [&](const std::string& a, const std::string& b) { return order[a] < order[b]; });
  c.baseline = opts.baseline.empty() ? c.policies.front() : opts.baseline;
  const auto base_it = std::find(c.policies.begin(), c.policies.end(), c.baseline);
  if (base_it == c.policies.end())
    throw ConfigError("--baseline", fmt::format("no policy named '{}'; valid: {}", c.baseline, fmt::join(c.policies, ", ")));
  std::rotate(c.policies.begin(), base_it, base_it + 1);  // baseline first
  for (const auto& p : c.policies) c.replicates.push_back(by_policy[p].size());

  c.metrics = compare_metrics();
  auto has_ops = [&](const char* kind) {
    for (const auto& r : reports) {
      const Json::json_pointer ptr(std::string("/by_op/") + kind + "/ops");
      if (r.contains(ptr) && r[ptr].is_number() && r[ptr].get<double>() > 0) return true;
    }
    return false;
  };
  if (has_ops("read") && has_ops("write")) {
    const auto& split = split_metrics();
    c.metrics.insert(c.metrics.begin() + 1, split.begin(), split.end());
  }
  label_imbalance_rows(c, by_policy);
  for (const auto& m : c.metrics) {
    std::vector<Cell> row;
    for (const auto& p : c.policies) {
      std::vector<double> v;
      for (const Json* r : by_policy[p]) {
        const Json::json_pointer ptr(m.pointer);
        v.push_back(r->contains(ptr) && (*r)[ptr].is_number() ? (*r)[ptr].get<double>() : 0.0);
      }
      Cell cell;
      cell.value = estimate(v);
      row.push_back(cell);
    }
    for (auto& cell : row) {
      const Estimate& b = row.front().value;
      cell.ratio = b.mean != 0 ? cell.value.mean / b.mean : std::numeric_limits<double>::quiet_NaN();
      cell.p_value = welch_p_value(cell.value, b);
      cell.significant = &cell != &row.front() && cell.p_value < 0.05;
    }
    c.cells.push_back(std::move(row));
  }
  std::vector<PolicyLoad> loads;
  for (const auto& p : c.policies) loads.push_back(policy_load(p, by_policy[p]));
  for (auto& w : comparability_warnings(loads)) c.warnings.push_back(std::move(w));
  return c;
}

namespace {

std::string number(double v) {
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

std::string cell_text(const Cell& c, bool baseline, bool ratio_metric) {
  // Imbalance ratios sit near 1, where two decimals would show 1.005 and 1.000 alike.
  auto num = [&](double v) { return ratio_metric ? fmt::format("{:.3f}", v) : number(v); };
  std::string s = num(c.value.mean);
  if (c.value.n >= 2) s += " ± " + num(c.value.half_width);
  if (!baseline) s += std::isnan(c.ratio) ? " (n/a)" : fmt::format(" ({:.3f}{})", c.ratio, c.significant ? "*" : "");
  return s;
}

}  // namespace

std::string render_comparison(const Comparison& c, CompareFormat format) {
  const auto& metrics = c.metrics;
  std::string out;
  if (format == CompareFormat::Json) {
    nlohmann::ordered_json j;
    j["scenario"] = c.scenario;
    j["baseline"] = c.baseline;
    j["policies"] = c.policies;
    j["replicates"] = c.replicates;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      nlohmann::ordered_json row{{"metric", metrics[m].name}, {"unit", metrics[m].unit}};
      nlohmann::ordered_json vals = nlohmann::ordered_json::object();
      for (std::size_t p = 0; p < c.policies.size(); ++p) {
        const Cell& x = c.cells[m][p];
        vals[c.policies[p]] = {{"mean", x.value.mean},
                               {"ci95", x.value.half_width},
                               {"n", x.value.n},
                               {"ratio", std::isnan(x.ratio) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(x.ratio)},
                               {"p_value", x.p_value},
                               {"significant", x.significant}};
      }
      row["values"] = vals;
      rows.push_back(row);
    }
    j["rows"] = rows;
    j["warnings"] = c.warnings;
    if (!c.notes.empty()) j["notes"] = c.notes;
    return j.dump(1) + "\n";
  }
  if (format == CompareFormat::Csv) {
    out = "metric,unit,policy,n,mean,ci95,ratio,p_value,significant\n";
    for (std::size_t m = 0; m < metrics.size(); ++m)
      for (std::size_t p = 0; p < c.policies.size(); ++p) {
        const Cell& x = c.cells[m][p];
        out += fmt::format("{},{},{},{},{},{},{},{},{}\n", metrics[m].name, metrics[m].unit, c.policies[p], x.value.n,
                           x.value.mean, x.value.half_width, std::isnan(x.ratio) ? std::string() : fmt::format("{}", x.ratio),
                           x.p_value, x.significant ? 1 : 0);
      }
    return out;
  }
  // Text and Markdown share the layout.
  std::vector<std::vector<std::string>> grid;
  std::vector<std::string> head{"metric"};
  for (std::size_t p = 0; p < c.policies.size(); ++p)
    head.push_back(c.policies[p] + (p == 0 ? " (baseline)" : "") +
                   (c.replicates[p] > 1 ? fmt::format(" n={}", c.replicates[p]) : ""));
  grid.push_back(head);
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    std::vector<std::string> row{metrics[m].name + (metrics[m].unit.empty() ? "" : " (" + metrics[m].unit + ")")};
    for (std::size_t p = 0; p < c.policies.size(); ++p) row.push_back(cell_text(c.cells[m][p], p == 0, metrics[m].unit.empty()));
    grid.push_back(row);
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& row : grid)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  const bool md = format == CompareFormat::Markdown;
  out += fmt::format("Scenario: {}\n\n", c.scenario);
  for (std::size_t r = 0; r < grid.size(); ++r) {
    std::string line = md ? "|" : "";
    for (std::size_t i = 0; i < grid[r].size(); ++i)
      line += md ? " " + grid[r][i] + " |" : fmt::format("{:<{}}  ", grid[r][i], width[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (md && r == 0) {
      out += "|";
      for (std::size_t i = 0; i < grid[r].size(); ++i) out += " --- |";
      out += "\n";
    }
  }
  out += "\n(ratio to the baseline in parentheses; * = significant, Welch's t-test p < 0.05";
  out += "; ± = 95% confidence interval, Student t)\n";
  for (const auto& n : c.notes) out += n + "\n";
  for (const auto& w : c.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace lbsim
