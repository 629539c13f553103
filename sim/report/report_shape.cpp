#include "sim/report/report_shape.hpp"

#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim {
namespace {

enum class Want { Object, Array, String, Number, Unsigned };

struct Rule {
  std::string_view pointer;  // '*' stands for every member or element
  Want want;
  bool required = false;
};

// The fields the readers index into, typed as lbsim writes them (numbers may be null: NaN).
constexpr Rule kReport[] = {
    {"/schema", Want::String, true},
    {"/policy", Want::Object, true},
    {"/policy/name", Want::String, true},
    {"/scenario", Want::Object, true},
    {"/scenario/name", Want::String, true},
    {"/scenario/hash", Want::String, true},
    {"/seed", Want::Unsigned},
    {"/simulated_s", Want::Object},
    {"/simulated_s/*", Want::Number},
    {"/ops", Want::Object},
    {"/ops/*", Want::Number},
    {"/errors", Want::Object},
    {"/errors/*", Want::Number},
    {"/throughput_ops_s", Want::Number},
    {"/latency_ms", Want::Object},
    {"/latency_ms/*", Want::Number},
    {"/by_op", Want::Object},
    {"/by_op/*", Want::Object},
    {"/by_op/*/throughput_ops_s", Want::Number},
    {"/by_op/*/latency_ms", Want::Object},
    {"/by_op/*/latency_ms/*", Want::Number},
    {"/nodes", Want::Array},
    {"/nodes/*", Want::Object},
    {"/nodes/*/id", Want::String},
    {"/nodes/*/dc", Want::String},
    {"/imbalance", Want::Object},
    {"/imbalance/dcs", Want::Array},
    {"/imbalance/coordinator", Want::Object},
    {"/imbalance/replica", Want::Object},
    {"/imbalance/coordinator/*", Want::Number},
    {"/imbalance/replica/*", Want::Number},
    {"/client", Want::Object},
    {"/timeline", Want::Object},
    {"/timeline/points", Want::Array},
    {"/timeline/points/*", Want::Object},
    {"/histogram", Want::Object},
    {"/histogram/buckets", Want::Array},
    {"/warnings", Want::Array},
    {"/warnings/*", Want::String},
};

constexpr Rule kSweep[] = {
    {"/schema", Want::String, true},
    {"/grid_points", Want::Unsigned},  // required by merge only (cmd_merge.cpp)
    {"/points", Want::Array, true},
    {"/points/*", Want::Object},
    {"/points/*/index", Want::Unsigned},
};

const char* want_name(Want w) {
  switch (w) {
    case Want::Object: return "an object";
    case Want::Array: return "an array";
    case Want::String: return "a string";
    case Want::Number: return "a number";
    case Want::Unsigned: return "an integer >= 0";
  }
  return "";
}

template <class J>
const char* kind(const J& j) {
  switch (j.type()) {
    case J::value_t::null: return "null";
    case J::value_t::object: return "an object";
    case J::value_t::array: return "an array";
    case J::value_t::string: return "a string";
    case J::value_t::boolean: return "a boolean";
    case J::value_t::number_integer:
    case J::value_t::number_unsigned: return "an integer";
    case J::value_t::number_float: return "a number";
    default: return "a binary value";
  }
}

template <class J>
bool fits(const J& j, Want w) {
  switch (w) {
    case Want::Object: return j.is_object();
    case Want::Array: return j.is_array();
    case Want::String: return j.is_string();
    case Want::Number: return j.is_number() || j.is_null();
    case Want::Unsigned: return j.is_number_unsigned() || (j.is_number_integer() && j.template get<std::int64_t>() >= 0);
  }
  return false;
}

std::vector<std::string_view> segments(std::string_view p) {
  std::vector<std::string_view> out;
  while (!p.empty()) {
    p.remove_prefix(1);
    const auto slash = p.find('/');
    out.push_back(p.substr(0, slash));
    p = slash == std::string_view::npos ? std::string_view() : p.substr(slash);
  }
  return out;
}

// Walks `rule` through `j` (at `path`, segment `i`); a missing field fails only when required and
// its parent exists.
template <class J>
void walk(const J& j, const std::vector<std::string_view>& segs, std::size_t i, const std::string& path, const Rule& rule,
          const std::string& file) {
  if (i == segs.size()) {
    if (!fits(j, rule.want))
      throw ConfigError(file + ": " + path, fmt::format("must be {}, got {} (an lbsim document as lbsim writes it: "
                                                        "was it edited or truncated?)",
                                                        want_name(rule.want), kind(j)));
    return;
  }
  if (segs[i] == "*") {
    if (j.is_object())
      for (const auto& [k, v] : j.items()) walk(v, segs, i + 1, jsonin::key_path(path, k), rule, file);
    else if (j.is_array())
      for (std::size_t n = 0; n < j.size(); ++n) walk(j[n], segs, i + 1, jsonin::index_path(path, n), rule, file);
    return;
  }
  if (!j.is_object()) return;  // the parent's own rule reports it
  const auto it = j.find(std::string(segs[i]));
  const std::string here = jsonin::key_path(path, segs[i]);
  if (it == j.end()) {
    if (rule.required && i + 1 == segs.size())
      throw ConfigError(file + ": " + here, fmt::format("required field is missing; expected {}", want_name(rule.want)));
    return;
  }
  walk(*it, segs, i + 1, here, rule, file);
}

template <class J, std::size_t N>
void check(const J& doc, const Rule (&rules)[N], const std::string& file) {
  if (!doc.is_object()) throw ConfigError(file, fmt::format("expected a JSON object, got {}", kind(doc)));
  for (const Rule& r : rules) walk(doc, segments(r.pointer), 0, "", r, file);
}

}  // namespace

void check_report_shape(const nlohmann::json& doc, const std::string& file) { check(doc, kReport, file); }
void check_sweep_shape(const nlohmann::json& doc, const std::string& file) { check(doc, kSweep, file); }
void check_sweep_shape(const nlohmann::ordered_json& doc, const std::string& file) { check(doc, kSweep, file); }

ConfigError malformed_documents(const std::vector<std::string>& inputs, const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (const auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
  return ConfigError(jsonin::join(inputs), fmt::format("a field has the wrong type for an lbsim report, aggregate or sweep "
                                                       "({}); expected the documents as lbsim writes them (edited or "
                                                       "truncated?)",
                                                       what));
}

}  // namespace lbsim
