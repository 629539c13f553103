#include "sim/runner/grid.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace lbsim {

GridAxis parse_axis(const std::string& option) {
  const auto eq = option.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == option.size())
    throw ConfigError("--set " + option, "expected PATH=V1,V2,... (e.g. client.threads=1,8,32)");
  GridAxis a;
  a.path = option.substr(0, eq);
  const std::string rest = option.substr(eq + 1);
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (quoted) {
      cur += c;
      if (c == '\\' && i + 1 < rest.size()) cur += rest[++i];
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      a.values.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  a.values.push_back(cur);
  for (const auto& v : a.values)
    if (v.empty()) throw ConfigError("--set " + option, "empty value in the list");
  return a;
}

std::vector<GridPoint> expand_grid(const std::vector<GridAxis>& axes) {
  std::vector<GridPoint> pts(1);
  for (const auto& axis : axes) {
    std::vector<GridPoint> next;
    for (const auto& p : pts)
      for (const auto& v : axis.values) {
        GridPoint q = p;
        q.sets.push_back(axis.path + "=" + v);
        nlohmann::ordered_json val;
        try {
          val = nlohmann::ordered_json::parse(v);
        } catch (const nlohmann::json::parse_error&) {
          val = v;
        }
        q.values[axis.path] = val;
        next.push_back(std::move(q));
      }
    pts = std::move(next);
  }
  for (std::size_t i = 0; i < pts.size(); ++i) {
    pts[i].index = i;
    pts[i].id = fmt::format("p{:03}", i);
    if (pts[i].values.is_null()) pts[i].values = nlohmann::ordered_json::object();
  }
  return pts;
}

Shard parse_shard(const std::string& text) {
  Shard s;
  const auto slash = text.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    std::size_t used = 0;
    s.index = std::stoul(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("junk");
    s.count = std::stoul(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("junk");
  } catch (const std::exception&) {
    throw ConfigError("--shard " + text, "expected I/N with 1 <= I <= N, e.g. 2/8");
  }
  if (s.count == 0 || s.index == 0 || s.index > s.count)
    throw ConfigError("--shard " + text, "expected I/N with 1 <= I <= N, e.g. 2/8");
  return s;
}

bool in_shard(const GridPoint& p, const Shard& s) { return p.index % s.count == s.index - 1; }

}  // namespace lbsim
