// --set patches: PATH=VALUE assignments applied to a scenario document before validation, each
// path given once, and the errors of a patched document blamed on the patch that wrote there.
#include <charconv>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/config/scenario.hpp"
#include "sim/config/scenario_parts.hpp"

namespace lbsim {

using jsonin::Json;

void apply_set(Json& doc, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + assignment, "expected PATH=VALUE, e.g. client.threads=64");
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  std::vector<std::string> parts;
  const char sep = path[0] == '/' ? '/' : '.';
  std::size_t s = path[0] == '/' ? 1 : 0;
  for (;;) {
    const std::size_t c = path.find(sep, s);
    parts.push_back(path.substr(s, c == std::string::npos ? std::string::npos : c - s));
    if (c == std::string::npos) break;
    s = c + 1;
  }
  Json value;
  try {
    value = jsonin::parse_value(text, "--set " + assignment);  // a repeated key is refused
  } catch (const Json::exception&) {  // parse_error, or out_of_range for a number like 1e400
    value = text;  // a bare string
  }
  // PATH=null removes the key (or array element): `--set cluster.datacenters=null` before
  // `--set cluster.topology_file=...`, since a cluster names its nodes in exactly one way.
  const bool remove = value.is_null();
  Json* cur = &doc;
  std::string where;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& k = parts[i];
    if (k.empty()) throw ConfigError("--set " + assignment, "empty path component");
    const bool last = i + 1 == parts.size();
    if (remove && last) {
      const std::string at = where.empty() ? "/" : where;
      if (cur->is_object()) {
        if (!cur->contains(k)) {
          std::vector<std::string> keys;
          for (const auto& [name, v] : cur->items()) keys.push_back(name);
          throw ConfigError("--set " + assignment, fmt::format("{} has no key '{}' to remove; keys: {}", at, k,
                                                               keys.empty() ? "(none)" : jsonin::join(keys)));
        }
        cur->erase(k);
        return;
      }
      std::size_t idx = 0;
      const auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), idx);
      if (!cur->is_array() || ec != std::errc() || p != k.data() + k.size() || idx >= cur->size())
        throw ConfigError("--set " + assignment, fmt::format("{} has no element '{}' to remove", at, k));
      cur->erase(idx);
      return;
    }
    if (cur->is_array()) {
      std::size_t idx = 0;
      const auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), idx);
      if (ec != std::errc() || p != k.data() + k.size() || idx >= cur->size())
        throw ConfigError("--set " + assignment, fmt::format("{}: '{}' is not an index below {}", where.empty() ? "/" : where,
                                                             k, cur->size()));
      cur = &(*cur)[idx];
    } else if (cur->is_object()) {
      // A missing intermediate object is created (`client.rate_ops_s=...` when the scenario has
      // no "client"); a misspelt key then fails validation, which blames this --set.
      if (!last && !cur->contains(k)) {
        if (remove) throw ConfigError("--set " + assignment, fmt::format("{} has no key '{}'", where.empty() ? "/" : where, k));
        (*cur)[k] = Json::object();
      }
      cur = &(*cur)[k];
    } else {
      throw ConfigError("--set " + assignment, fmt::format("{} is {}, not an object or array", where.empty() ? "/" : where,
                                                           jsonin::type_name(*cur)));
    }
    where += "/" + k;
  }
  *cur = value;
}

namespace {
// The JSON pointer an assignment "a.b.0=V" or "/a/b/0=V" writes ("/a/b/0").
std::string set_pointer(const std::string& assignment) {
  const std::string path = assignment.substr(0, assignment.find('='));
  if (!path.empty() && path[0] == '/') return path;
  std::string out = "/" + path;
  for (char& c : out)
    if (c == '.') c = '/';
  return out;
}
}  // namespace

void check_set_paths(const std::vector<std::string>& sets) {
  for (std::size_t i = 0; i < sets.size(); ++i)
    for (std::size_t k = 0; k < i; ++k) {
      const std::string a = set_pointer(sets[k]), b = set_pointer(sets[i]);
      if (a == b || a.rfind(b + "/", 0) == 0)
        throw ConfigError("--set " + sets[i],
                          fmt::format("writes {}, {} --set {} writes: the earlier value would be dropped; give each "
                                      "path once (a sweep's values are one --set PATH=V1,V2,...)",
                                      b, a == b ? "which" : "the object holding what", sets[k]));
    }
}

ConfigError blame_set(const ConfigError& e, const std::vector<std::string>& sets, const std::string& file) {
  if (e.path().empty() || e.path()[0] != '/') return e;  // already names a file
  // An error inside what a --set wrote is the --set's, not the file's (the last such --set).
  const std::string message = std::string(e.what()).substr(e.path().size() + 2);
  for (auto it = sets.rbegin(); it != sets.rend(); ++it) {
    const std::string ptr = set_pointer(*it);
    const bool inside = e.path() == ptr || e.path().rfind(ptr + "/", 0) == 0 || ptr.rfind(e.path() + "/", 0) == 0;
    if (!inside) continue;
    std::string hint;
    const std::string value = it->substr(it->find('=') + 1);
    if (value.find(',') != std::string::npos && !value.empty() && value[0] != '[' && value[0] != '{' && value[0] != '"')
      hint = fmt::format(" (a list of values is a sweep: lbsim sweep {} --set {})", file, *it);
    return ConfigError("--set " + *it, e.path() + ": " + message + hint);
  }
  return ConfigError(file + ":" + e.path(), message);
}

void apply_sets(Json& doc, const std::vector<std::string>& sets) {
  for (const auto& s : sets) apply_set(doc, s);
  // A --set of one loop's key replaces the other loop of the scenario (scenario.hpp).
  std::set<std::string> written;  // keys given a value (PATH=null removes one: it picks no loop)
  for (const auto& s : sets)
    if (s.substr(s.find('=') + 1) != "null") written.insert(set_pointer(s));
  const bool threads = written.count("/client/threads") > 0, rate = written.count("/client/rate_ops_s") > 0;
  if (threads == rate || !doc.contains("client") || !doc["client"].is_object()) return;
  Json& client = doc["client"];
  const std::vector<std::string> other = threads ? std::vector<std::string>{"rate_ops_s", "arrivals", "max_in_flight"}
                                                 : std::vector<std::string>{"threads", "think"};
  for (const auto& k : other)
    if (!written.count("/client/" + k)) client.erase(k);
}

}  // namespace lbsim
