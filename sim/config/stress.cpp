#include "sim/config/stress.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/cluster/consistency.hpp"
#include "sim/core/error.hpp"

namespace lbsim {

namespace {

[[noreturn]] void bad(const std::string& option, const std::string& what) {
  throw ConfigError("cassandra-stress " + option, what);
}

std::int64_t integer(const std::string& s, const std::string& option) {
  std::int64_t v = 0;
  std::string t = s;
  // cassandra-stress accepts suffixes: 1M, 10k, 5B (powers of 1000).
  std::int64_t mult = 1;
  if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) mult = 1000, t.pop_back();
  else if (!t.empty() && (t.back() == 'm' || t.back() == 'M')) mult = 1000000, t.pop_back();
  else if (!t.empty() && (t.back() == 'b' || t.back() == 'B')) mult = 1000000000, t.pop_back();
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || v < 0) bad(option, "'" + s + "' is not a count");
  return v * mult;
}

double seconds(const std::string& s, const std::string& option) {
  // duration=30s | 5m | 2h
  if (s.empty()) bad(option, "empty duration");
  const char unit = s.back();
  const double mult = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 0;
  if (mult == 0) bad(option, "'" + s + "': a duration needs a unit s, m or h");
  return static_cast<double>(integer(s.substr(0, s.size() - 1), option)) * mult;
}

// "A..B" -> count B - A + 1.
std::int64_t range_count(const std::string& s, const std::string& option) {
  const auto dots = s.find("..");
  if (dots == std::string::npos) bad(option, "'" + s + "': expected A..B");
  const auto a = integer(s.substr(0, dots), option), b = integer(s.substr(dots + 2), option);
  if (b < a) bad(option, "'" + s + "': empty range");
  return b - a + 1;
}

}  // namespace

StressTranslation translate_stress(const std::vector<std::string>& in, int nodes) {
  std::vector<std::string> args = in;
  if (!args.empty() && (args[0] == "cassandra-stress" || args[0].ends_with("/cassandra-stress"))) args.erase(args.begin());
  if (args.empty()) bad("", "give a command: write, read or mixed");
  StressTranslation out;
  jsonin::Json wl = {{"warmup_ops", 0}};
  jsonin::Json client = jsonin::Json::object();
  jsonin::Json keyspace = {{"class", "SimpleStrategy"}, {"rf", 1}};  // cassandra-stress's default keyspace
  std::string dc = "datacenter1";
  std::size_t hosts = 0;
  const std::string command = args[0];
  if (command == "write") wl["mix"] = {{"write", 1}};
  else if (command == "read") wl["mix"] = {{"read", 1}};
  else if (command == "mixed") wl["mix"] = {{"read", 1}, {"write", 1}};  // cassandra-stress's default ratio 1:1
  else bad(command, "unsupported command; valid: write, read, mixed");
  std::string cl = "LOCAL_ONE";  // cassandra-stress's default consistency level
  std::string section;           // the current -option
  static const std::set<std::string> ignored{"-mode", "-log", "-graph", "-errors", "-col", "-insert", "-port",
                                             "-transport", "-sendto", "-tokenrange", "-credentials-file", "-jmx",
                                             "-user", "-password"};
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.starts_with("-")) {
      section = a;
      if (ignored.count(a)) out.notes.push_back(a + " ignored (output, transport or column layout)");
      else if (a != "-rate" && a != "-pop" && a != "-node" && a != "-schema")
        bad(a, "unknown option; translated: -rate, -pop, -node, -schema; ignored: " +
                   [] {
                     std::string s;
                     for (const auto& x : ignored) s += (s.empty() ? "" : ", ") + x;
                     return s;
                   }());
      continue;
    }
    const auto eq = a.find('=');
    const std::string key = a.substr(0, eq == std::string::npos ? a.size() : eq);
    const std::string val = eq == std::string::npos ? "" : a.substr(eq + 1);
    const std::string where = (section.empty() ? command : section) + " " + a;
    if (section.empty()) {  // the command's own options
      if (key == "n") wl["ops"] = integer(val, where);
      else if (key == "duration") wl["duration_s"] = seconds(val, where);
      else if (key == "cl") cl = val;
      else if (key == "no-warmup") out.notes.push_back("no-warmup: lbsim measures from the first operation (warmup_ops 0)");
      else if (command == "mixed" && key.starts_with("ratio(")) {
        // ratio(write=1,read=3)
        jsonin::Json mix = jsonin::Json::object();
        std::string body = a.substr(6, a.size() > 7 ? a.size() - 7 : 0);
        std::replace(body.begin(), body.end(), ',', ' ');
        std::istringstream ss(body);
        for (std::string kv; ss >> kv;) {
          const auto e = kv.find('=');
          const std::string k = kv.substr(0, e);
          if (e == std::string::npos || (k != "write" && k != "read")) bad(where, "'" + kv + "': expected write=W or read=R");
          mix[k] = integer(kv.substr(e + 1), where);
        }
        wl["mix"] = mix;
      } else {
        bad(where, "unknown command option; valid: n=, duration=, cl=, no-warmup" +
                       std::string(command == "mixed" ? ", ratio(write=W,read=R)" : ""));
      }
    } else if (section == "-rate") {
      if (key == "threads") client["threads"] = integer(val, where);
      else if (key == "fixed" || key == "throttle") {
        // N/s: fixed = a fixed rate (open loop, constant spacing); throttle = at most N/s.
        const std::string n = val.ends_with("/s") ? val.substr(0, val.size() - 2) : val;
        client["rate_ops_s"] = integer(n, where);
        client["arrivals"] = "constant";
        if (key == "throttle") out.notes.push_back("throttle=N/s modelled as a fixed open-loop rate of N/s");
      } else if (key.starts_with("threads>") || key.starts_with("auto")) {
        bad(where, "automatic thread counts search for the saturation point; give threads=N, or use "
                   "`lbsim sweep --set client.threads=...`");
      } else {
        bad(where, "unknown -rate option; valid: threads=N, fixed=N/s, throttle=N/s");
      }
    } else if (section == "-pop") {
      jsonin::Json keys;
      if (key == "seq") keys = {{"distribution", "sequential"}, {"count", range_count(val, where)}};
      else if (key == "dist") {
        // dist=gaussian(1..N[,stdevs]) | uniform(1..N) | exp(1..N)
        const auto open = val.find('('), close = val.rfind(')');
        if (open == std::string::npos || close == std::string::npos) bad(where, "expected dist=NAME(A..B...)");
        const std::string name = val.substr(0, open);
        std::string body = val.substr(open + 1, close - open - 1);
        const std::string range = body.substr(0, body.find(','));
        keys = {{"count", range_count(range, where)}};
        if (name == "uniform") keys["distribution"] = "uniform";
        else if (name == "gaussian" || name == "gauss" || name == "normal" || name == "norm") {
          keys["distribution"] = "gaussian";
          const auto comma = body.find(',');
          if (comma != std::string::npos) {
            // gaussian(min..max,stdvrng) or (min..max,mean,stdev): the one-argument form is lbsim's stdvrng.
            const std::string rest = body.substr(comma + 1);
            if (rest.find(',') == std::string::npos) keys["stdvrng"] = integer(rest, where);
            else out.notes.push_back("gaussian(min..max,mean,stdev): the default mean and stdvrng are used");
          }
        } else if (name == "exp" || name == "exponential") {
          keys["distribution"] = "exponential";
        } else {
          bad(where, "unknown distribution '" + name + "'; valid: uniform, gaussian, exp");
        }
      } else {
        bad(where, "unknown -pop option; valid: seq=A..B, dist=NAME(A..B)");
      }
      wl["keys"] = keys;
    } else if (section == "-node") {
      if (key == "datacenter") dc = val;
      else if (key == "whitelist" || key == "shuffle") out.notes.push_back(a + " ignored");
      else if (eq == std::string::npos) hosts = static_cast<std::size_t>(std::count(a.begin(), a.end(), ',') + 1);
      else bad(where, "unknown -node option; valid: HOST,HOST,..., datacenter=NAME");
    } else if (section == "-schema") {
      // replication(factor=3) | replication(strategy=NetworkTopologyStrategy,dc1=3)
      if (!a.starts_with("replication(")) {
        out.notes.push_back("-schema " + a + " ignored");
        continue;
      }
      std::string body = a.substr(12, a.size() > 13 ? a.size() - 13 : 0);
      std::replace(body.begin(), body.end(), ',', ' ');
      std::istringstream ss(body);
      std::map<std::string, std::string> kv;
      for (std::string item; ss >> item;) {
        const auto e = item.find('=');
        if (e == std::string::npos) bad(where, "'" + item + "': expected key=value");
        kv[item.substr(0, e)] = item.substr(e + 1);
      }
      const std::string strategy = kv.count("strategy") ? kv["strategy"] : "SimpleStrategy";
      if (strategy.ends_with("NetworkTopologyStrategy")) {
        jsonin::Json rf = jsonin::Json::object();
        for (const auto& [k, v] : kv)
          if (k != "strategy") rf[k] = integer(v, where);
        if (rf.empty()) bad(where, "NetworkTopologyStrategy needs DC=RF");
        keyspace = {{"class", "NetworkTopologyStrategy"}, {"rf", rf}};
        dc = rf.begin().key();
      } else {
        keyspace = {{"class", "SimpleStrategy"}, {"rf", kv.count("factor") ? integer(kv["factor"], where) : 1}};
      }
    }
  }
  const auto level = parse_consistency(cl);
  if (!level) bad("cl=" + cl, "unknown consistency level; valid: " + std::string(kConsistencyNames));
  wl["consistency"] = {{"read", cl}, {"write", cl}};
  if (wl.contains("duration_s")) {  // a duration run's warm-up is a time
    wl.erase("warmup_ops");
    wl["warmup_s"] = 0;
  }
  if (!wl.contains("ops") && !wl.contains("duration_s")) bad(command, "give n=N or duration=T");
  if (!wl.contains("keys")) {
    // cassandra-stress's default population: seq over 1..n for writes, uniform over 1..1M otherwise.
    wl["keys"] = {{"count", 1000000}, {"distribution", command == "write" ? "sequential" : "uniform"}};
    if (command == "write" && wl.contains("ops")) wl["keys"]["count"] = std::max<std::int64_t>(1, wl["ops"].get<std::int64_t>());
  }
  const int n = nodes > 0 ? nodes : (hosts > 0 ? static_cast<int>(hosts) : 3);
  if (nodes == 0 && hosts == 0) out.notes.push_back("no -node hosts: 3 nodes (set --nodes)");
  if (!client.contains("threads") && !client.contains("rate_ops_s")) client["threads"] = 200;
  if (client.contains("threads") && client.contains("rate_ops_s")) {
    // Fixed-rate threads: an open loop at the rate, with at most `threads` operations outstanding.
    client["max_in_flight"] = client["threads"];
    client.erase("threads");
    out.notes.push_back("threads=N with fixed=R/s: an open loop at R/s with at most N operations outstanding");
  }
  client["dc"] = dc;
  // Rack-aware placement needs racks; a one-rack DC matches a default cassandra-rackdc.
  jsonin::Json policy_child = {{"type", "DCAwareRoundRobin"}, {"local_dc", dc}};
  out.scenario = {
      {"name", "stress-" + command},
      {"description", "Translated by lbsim stress from: cassandra-stress " + [&] {
         std::string s;
         for (const auto& x : in) s += (s.empty() ? "" : " ") + x;
         return s;
       }()},
      {"cluster", {{"datacenters", jsonin::Json::array({{{"name", dc}, {"nodes", n}}})}}},
      {"keyspace", keyspace},
      {"client", client},
      {"workload", wl},
      {"policies",
       jsonin::Json::array(
           {{{"name", "cs-random"},
             {"policy", {{"type", "TokenAware"}, {"ordering", "RANDOM"}, {"child", policy_child}}}},
            {{"name", "cs-neutral"},
             {"policy", {{"type", "TokenAware"}, {"ordering", "NEUTRAL"}, {"child", policy_child}}}}})}};
  out.notes.push_back("policies: TokenAware RANDOM (scylladb cassandra-stress >= 3.17.0) and NEUTRAL (earlier; "
                      "scylladb#19107)");
  return out;
}

}  // namespace lbsim
