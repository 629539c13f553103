#include "sim/config/stress.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/cluster/consistency.hpp"
#include "sim/config/scenario.hpp"
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
  if (v > std::numeric_limits<std::int64_t>::max() / mult)  // "99999999999999B" would wrap
    bad(option, fmt::format("'{}' is above {}", s, std::numeric_limits<std::int64_t>::max()));
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

double real(const std::string& s, const std::string& option) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) bad(option, "'" + s + "' is not a number");
  return v;
}

// "A..B" -> {A, B}.
std::pair<std::int64_t, std::int64_t> range_bounds(const std::string& s, const std::string& option) {
  const auto dots = s.find("..");
  if (dots == std::string::npos) bad(option, "'" + s + "': expected A..B");
  const auto a = integer(s.substr(0, dots), option), b = integer(s.substr(s.find_first_not_of('.', dots)), option);
  if (b < a) bad(option, "'" + s + "': empty range");
  return {a, b};
}

// "A..B" -> count B - A + 1.
std::int64_t range_count(const std::string& s, const std::string& option) {
  const auto [a, b] = range_bounds(s, option);
  return b - a + 1;
}

// -pop dist=NAME(min..max[,...]) as workload.keys, with the parameters cassandra-stress gives it
// (apache/cassandra tools/stress/src/org/apache/cassandra/stress/settings/OptionDistribution.java):
// values min..max are key ids 1..count, count = max - min + 1.
// - GAUSSIAN(min..max,stdvrng): mean (min+max)/2, stdev (max-min)/2/stdvrng (stdvrng 3 when
//   absent); GAUSSIAN(min..max,mean,stdev) explicitly; clamped to the range
//   (DistributionBoundApache). lbsim's gaussian is the first form exactly (mean (1+count)/2, sd
//   (count-1)/2/stdvrng), so the second maps to stdvrng = (max-min)/2/stdev when its mean is the
//   range's centre (within half a key: ids are integers) and is refused otherwise.
// - EXP(min..max): min + min(floor(Exp(mean)), max-min) with mean = (max-min) / (ln(max-min)/2)
//   (the inverse CDF of Exp(1) at 1 - sqrt(1/(max-min)); DistributionOffsetApache), which is
//   lbsim's exponential with mean_fraction = mean / count.
// - UNIFORM(min..max).
jsonin::Json key_distribution(const std::string& val, const std::string& where, std::vector<std::string>& notes) {
  const auto open = val.find('('), close = val.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) bad(where, "expected dist=NAME(A..B...)");
  std::string name = val.substr(0, open);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<std::string> params;
  std::istringstream body(val.substr(open + 1, close - open - 1));
  for (std::string x; std::getline(body, x, ',');) params.push_back(x);
  if (params.empty()) bad(where, "expected dist=NAME(A..B...)");
  const auto [min, max] = range_bounds(params[0], where);
  const double count = static_cast<double>(max - min + 1);
  jsonin::Json keys = {{"count", max - min + 1}};
  auto arity = [&](std::size_t lo, std::size_t hi, const char* forms) {
    if (params.size() < lo || params.size() > hi) bad(where, fmt::format("{}: expected {}", name, forms));
  };
  if (name == "uniform") {
    arity(1, 1, "uniform(min..max)");
    keys["distribution"] = "uniform";
  } else if (name == "gaussian" || name == "gauss" || name == "normal" || name == "norm") {
    arity(1, 3, "gaussian(min..max), gaussian(min..max,stdvrng) or gaussian(min..max,mean,stdev)");
    keys["distribution"] = "gaussian";
    const double half = static_cast<double>(max - min) / 2;
    double stdvrng = 3;
    if (params.size() == 2) stdvrng = real(params[1], where);
    if (params.size() == 3) {
      const double mean = real(params[1], where), stdev = real(params[2], where);
      const double centre = static_cast<double>(min) + half;
      if (std::fabs(mean - centre) > 0.5)
        bad(where, fmt::format("lbsim's gaussian keys are centred on the range: mean {} is not its centre {} "
                               "((min+max)/2); give mean {} or gaussian(min..max,stdvrng)",
                               params[1], centre, centre));
      if (!(stdev > 0)) bad(where, fmt::format("stdev {} must be > 0", params[2]));
      stdvrng = half / stdev;
      notes.push_back(fmt::format("{}: mean {} is the range's centre; stdev {} is stdvrng {:.6g} ((max-min)/2/stdev)",
                                  where, params[1], params[2], stdvrng));
    }
    if (!(stdvrng >= 0.1 && stdvrng <= 1000))
      bad(where, fmt::format("the standard deviation is (max-min)/2/{:.6g}; lbsim's gaussian takes stdvrng in "
                             "[0.1, 1000] (a standard deviation between (max-min)/2000 and 5 x (max-min))",
                             stdvrng));
    if (params.size() > 1) keys["stdvrng"] = stdvrng;
  } else if (name == "exp" || name == "exponential") {
    arity(1, 1, "exp(min..max)");
    if (max - min < 2) bad(where, "exp(min..max) needs max - min >= 2 (cassandra-stress's mean is (max-min)/(ln(max-min)/2))");
    const double delta = static_cast<double>(max - min);
    keys["distribution"] = "exponential";
    keys["mean_fraction"] = delta / (std::log(delta) / 2) / count;
  } else {
    bad(where, "distribution '" + name + "' cannot be mapped; valid: uniform, gaussian (gauss, normal, norm), exp "
               "(lbsim's keys have no extreme, qextreme or fixed distribution, nor ~ inversion)");
  }
  return keys;
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
  std::string node_dc;             // -node datacenter=
  std::vector<std::string> hosts;  // -node addresses
  bool schema = false;             // -schema replication(...) given
  const std::string command = args[0];
  if (command == "write") wl["mix"] = {{"write", 1}};
  else if (command == "read") wl["mix"] = {{"read", 1}};
  else if (command == "mixed") wl["mix"] = {{"read", 1}, {"write", 1}};  // cassandra-stress's default ratio 1:1
  else bad(command, "unsupported command; valid: write, read, mixed");
  std::string cl = "LOCAL_ONE";  // cassandra-stress's default consistency level
  bool cl_given = false;
  std::string section;           // the current -option
  // -errors retries=N: the tool's own re-executions of a failed operation (tools/stress
  // SettingsErrors.java: tries = retries + 1, default retries=9), whether or not -errors is given.
  std::int64_t stress_retries = 9;
  bool retries_given = false;
  static const std::set<std::string> ignored{"-mode", "-log", "-graph", "-col", "-insert", "-port",
                                             "-transport", "-sendto", "-tokenrange", "-credentials-file", "-jmx",
                                             "-user", "-password"};
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.starts_with("-")) {
      section = a;
      if (ignored.count(a)) out.notes.push_back(a + " ignored (output, transport or column layout)");
      else if (a != "-rate" && a != "-pop" && a != "-node" && a != "-schema" && a != "-errors")
        bad(a, "unknown option; translated: -rate, -pop, -node, -schema, -errors; ignored: " +
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
      else if (key == "cl") cl = val, cl_given = true;
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
      else if (key == "dist") keys = key_distribution(val, where, out.notes);
      else bad(where, "unknown -pop option; valid: seq=A..B, dist=NAME(A..B)");
      wl["keys"] = keys;
      out.sources.emplace_back("/workload/keys", "-pop " + a);
    } else if (section == "-node") {
      if (key == "datacenter") node_dc = val;
      else if (key == "whitelist" || key == "shuffle") out.notes.push_back(a + " ignored");
      else if (eq == std::string::npos) {
        std::istringstream list(a);
        for (std::string h; std::getline(list, h, ',');) {
          if (h.empty()) bad(where, "an empty host name");
          if (std::find(hosts.begin(), hosts.end(), h) != hosts.end()) bad(where, "host '" + h + "' is given twice");
          hosts.push_back(h);
        }
      } else {
        bad(where, "unknown -node option; valid: HOST,HOST,..., datacenter=NAME");
      }
    } else if (section == "-errors") {
      if (key == "retries") {
        stress_retries = integer(val, where);
        if (stress_retries > 100) bad(where, "at most 100 retries");
        retries_given = true;
        out.sources.emplace_back("/client/stress_retries", "-errors " + a);
      } else if (key == "ignore" && eq == std::string::npos) {
        out.notes.push_back("-errors ignore: an operation that fails all its tries counts as an error and the run "
                            "goes on (lbsim always goes on; without ignore cassandra-stress stops at the first)");
      } else {
        bad(where, "unknown -errors option; valid: retries=N, ignore");
      }
    } else if (section == "-schema") {
      // replication(factor=3) | replication(strategy=NetworkTopologyStrategy,dc1=3)
      if (!a.starts_with("replication(")) {
        out.notes.push_back("-schema " + a + " ignored");
        continue;
      }
      schema = true;
      out.sources.emplace_back("/keyspace", "-schema " + a);
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
      } else {
        keyspace = {{"class", "SimpleStrategy"}, {"rf", kv.count("factor") ? integer(kv["factor"], where) : 1}};
      }
    }
  }
  const auto level = parse_consistency(cl);
  if (!level) bad("cl=" + cl, "unknown consistency level; valid: " + std::string(kConsistencyNames));
  wl["consistency"] = {{"read", cl}, {"write", cl}};
  out.sources.emplace_back("/workload/consistency", cl_given ? "cl=" + cl : "cl=" + cl + " (its default)");
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
  // The cluster: what the command line says, and on stderr what it leaves to lbsim's defaults.
  const bool nts = keyspace["class"] == "NetworkTopologyStrategy";
  if (!schema) out.sources.emplace_back("/keyspace", "(no -schema: SimpleStrategy RF 1)");
  if (!schema)
    out.notes.push_back("no -schema: replication SimpleStrategy RF 1, cassandra-stress's default (tools/stress "
                        "OptionReplication.java: strategy SimpleStrategy, factor 1); with one replica per key every "
                        "token-aware ordering picks the same coordinator, so the policies give the same numbers: give "
                        "-schema 'replication(factor=3)' or 'replication(strategy=NetworkTopologyStrategy,DC=RF,...)'");
  const std::string dc = !node_dc.empty() ? node_dc : nts ? keyspace["rf"].begin().key() : "datacenter1";
  if (node_dc.empty())
    out.notes.push_back(nts ? fmt::format("the client's datacenter is '{}', the first of the replication's (-node "
                                          "datacenter=NAME sets it)",
                                          dc)
                            : "datacenter 'datacenter1' (Cassandra's default name; -node datacenter=NAME sets it)");
  const int n = nodes > 0 ? nodes : (!hosts.empty() ? static_cast<int>(hosts.size()) : 3);
  std::vector<std::string> dcs{dc};  // the client's first, then the replication's others
  if (nts)
    for (const auto& [name, rf] : keyspace["rf"].items())
      if (name != dc) dcs.push_back(name);
  jsonin::Json cluster;
  if (hosts.empty()) {
    jsonin::Json list = jsonin::Json::array();
    for (const auto& name : dcs) list.push_back({{"name", name}, {"nodes", n}});
    cluster = {{"datacenters", list}};
    out.notes.push_back(fmt::format("no -node hosts: {} nodes n1..n{} in '{}' (--nodes N or -node HOST,... sets them)",
                                    n, n, dc));
  } else {
    jsonin::Json list = jsonin::Json::array();
    for (const auto& name : dcs)
      for (int i = 0; i < n; ++i) {
        const std::size_t k = list.size();
        const std::string id = name == dc && k < hosts.size() ? hosts[k] : fmt::format("n{}", k + 1);
        if (std::find(hosts.begin(), hosts.end(), id) != hosts.end() && (name != dc || k >= hosts.size()))
          bad("-node " + id, "a host named like lbsim's generated node ids; rename it");
        list.push_back({{"id", id}, {"dc", name}, {"rack", "r1"}});
      }
    cluster = {{"nodes", list}};
    out.sources.emplace_back("/cluster", "-node " + fmt::format("{}", fmt::join(hosts, ",")));
    out.notes.push_back(fmt::format("nodes of '{}': {}", dc, [&] {
      std::string s;
      for (int i = 0; i < n; ++i) s += (i ? ", " : "") + list[static_cast<std::size_t>(i)]["id"].get<std::string>();
      return s;
    }()));
  }
  for (std::size_t d = 1; d < dcs.size(); ++d)
    out.notes.push_back(fmt::format("datacenter '{}' of the replication gets as many nodes as '{}' ({}; cassandra-stress "
                                    "knows only its contact points)",
                                    dcs[d], dc, n));
  out.notes.push_back("racks: one per datacenter, r1 (cassandra-stress knows none; give the scenario racks for "
                      "rack-aware placement, or import your ring: lbsim import)");
  if (!client.contains("threads") && !client.contains("rate_ops_s")) client["threads"] = 200;
  if (client.contains("threads") && client.contains("rate_ops_s")) {
    // Fixed-rate threads: an open loop at the rate, with at most `threads` operations outstanding.
    client["max_in_flight"] = client["threads"];
    client.erase("threads");
    out.notes.push_back("threads=N with fixed=R/s: an open loop at R/s with at most N operations outstanding");
  }
  client["dc"] = dc;
  client["stress_retries"] = stress_retries;
  if (!retries_given)
    out.notes.push_back("-errors retries=9, cassandra-stress's default (tools/stress SettingsErrors.java): a failed "
                        "operation runs up to 9 more times through the driver (client.stress_retries)");
  jsonin::Json policy_child = {{"type", "DCAwareRoundRobin"}, {"local_dc", dc}};
  out.scenario = {
      {"name", "stress-" + command},
      {"description", "Translated by lbsim stress from: cassandra-stress " + [&] {
         std::string s;
         for (const auto& x : in) s += (s.empty() ? "" : " ") + x;
         return s;
       }()},
      {"cluster", cluster},
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

void validate_translation(const StressTranslation& t) {
  try {
    (void)scenario_from_json(t.scenario, "", ".");
  } catch (const ConfigError& e) {
    const std::pair<std::string, std::string>* best = nullptr;
    for (const auto& src : t.sources)
      if (e.path().starts_with(src.first) && (!best || src.first.size() > best->first.size())) best = &src;
    throw ConfigError(best ? "cassandra-stress " + best->second : "the translated scenario", e.what());
  }
}

}  // namespace lbsim
