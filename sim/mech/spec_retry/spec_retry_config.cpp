// cluster.speculative_retry (the table option): its parser, key, checks and warm-up warning,
// compiled into lbsim_config (sim/mech/specs.inc). The option's forms, case-insensitive as both
// servers read them: NONE (Cassandra 4+ also NEVER), ALWAYS, '<x>ms', '<p>percentile' (ScyllaDB
// '99.0PERCENTILE') and '<p>p' (Cassandra '99p'). Cassandra's MIN()/MAX() hybrids are not modelled.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "sim/config/mech_spec_input.hpp"
#include "sim/config/scenario.hpp"
#include "sim/mech/spec_retry/spec_retry_spec.hpp"

namespace lbsim {

using jsonin::Json;

namespace {
SpecRetrySpec parse_option(const Json& j, const std::string& path) {
  const std::string raw = jsonin::as_string(j, path);
  std::string v;
  for (const char ch : raw) v += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  SpecRetrySpec s;
  s.option = raw;
  auto bad = [&] {
    jsonin::fail(path, "unknown value '" + raw + "'; valid: NONE, NEVER, ALWAYS, '<x>ms' (0 < x <= 3600000), "
                       "'<p>PERCENTILE' or '<p>p' (0 < p < 100)");
  };
  auto number = [&](std::size_t len) {
    // Decimal digits with at most one point, as the servers' patterns take them (apache/cassandra
    // FixedSpeculativeRetryPolicy and PercentileSpeculativeRetryPolicy: "[0-9.]+"): no sign, hex,
    // exponent, space, inf or nan, which std::stod would read ("0x10ms" as 16 ms).
    const std::string num = v.substr(0, v.size() - len);
    if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos ||
        num.find_first_of("0123456789") == std::string::npos || std::count(num.begin(), num.end(), '.') > 1)
      bad();
    double x = 0;
    const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), x);
    if (ec != std::errc() || p != num.data() + num.size() || !std::isfinite(x)) bad();
    return x;
  };
  auto ends = [&](std::string_view suffix) { return v.size() >= suffix.size() && v.ends_with(suffix); };
  if (v == "NONE" || v == "NEVER") return s;
  if (v == "ALWAYS") {
    s.mode = SpecRetryMode::Always;
  } else if (ends("MS")) {
    const double ms = number(2);
    if (!(ms > 0 && ms <= 3.6e6)) bad();
    s.mode = SpecRetryMode::Fixed;
    s.fixed = from_ms(ms);
  } else if (ends("PERCENTILE") || ends("P")) {
    const double p = number(ends("PERCENTILE") ? 10 : 1);
    if (!(p > 0 && p < 100)) bad();
    s.mode = SpecRetryMode::Percentile;
    s.percentile = p;
  } else {
    bad();
  }
  return s;
}

const SpecRetrySpec* spec_of(const Scenario& sc) { return sc.mech.get<SpecRetrySpec>(MechSpecs::k_spec_retry); }
}  // namespace

void parse_spec_retry_spec(const MechSpecInput& in, MechSpecs& out) {
  out.clear(MechSpecs::k_spec_retry);
  const Json* j = in.cluster.find("speculative_retry");
  if (!j) return;
  SpecRetrySpec s = parse_option(*j, in.cluster.path_of("speculative_retry"));
  if (s.mode == SpecRetryMode::None) return;  // no extra read, no event, no draw
  const bool cassandra = in.nodes.server != ServerRelease::Unspecified && !server_rules(in.nodes.server).scylla;
  s.threshold = cassandra ? SpecThreshold::CassandraPeriodic : SpecThreshold::ScyllaLazy;
  out.set(MechSpecs::k_spec_retry, std::move(s));
}

const std::vector<MechKey>& spec_retry_spec_keys() {
  static const std::vector<MechKey> keys{{MechSection::Cluster, "speculative_retry"}};
  return keys;
}

// The engine speculates for every read level but EACH_QUORUM (sim/engine/sim_server.cpp), where the
// option would be silently ignored (configs/README.md, cluster.speculative_retry).
void spec_retry_spec_check(const Scenario& sc) {
  const SpecRetrySpec* sr = spec_of(sc);
  if (!sr) return;
  const WorkloadSpec& w = sc.workload;
  const bool each_quorum_reads =
      w.trace ? w.trace->first_cl[0][static_cast<std::size_t>(ConsistencyLevel::EachQuorum)] != 0
              : w.read_fraction > 0 && w.read_cl == ConsistencyLevel::EachQuorum;
  if (each_quorum_reads)
    jsonin::fail("/cluster/speculative_retry",
                 fmt::format("'{}' is not modelled with EACH_QUORUM reads ({}); valid with them: NONE, NEVER",
                             sr->option, w.trace ? w.trace_file : "workload.consistency.read"));
}

void spec_retry_warmup(const Scenario& sc, SimTime end, std::vector<std::string>& out) {
  const SpecRetrySpec* sr = spec_of(sc);
  if (!sr || sr->mode != SpecRetryMode::Percentile) return;
  const ServerRules rules = server_rules(sc.nodes.server);
  auto s = [](SimTime t) { return fmt::format("{:.6g} s", to_sec(t)); };
  if (sr->threshold == SpecThreshold::CassandraPeriodic) {
    // The threshold starts at read_request_timeout / 2 and is first recomputed after one period.
    const SimTime warm = sc.timeouts.read;
    if (end < warm)
      out.push_back(fmt::format(
          "cluster.speculative_retry '{}' warms up at {}: under cluster.server '{}' the threshold is "
          "read_request_timeout / 2 ({}) until its first refresh one read_request_timeout (timeouts.read_ms) after "
          "the start; the run ends at {}, so it compares against almost no speculation",
          sr->option, s(warm), rules.name, s(warm / 2), s(end)));
  } else {
    // Computed at a coordinator's first read from an empty histogram (the 1 ms floor), then again
    // on use once more than 1 s has passed.
    const SimTime warm = kSec;
    if (end < warm)
      out.push_back(fmt::format(
          "cluster.speculative_retry '{}' warms up at {}: under cluster.server '{}' a coordinator's threshold, "
          "computed at its first read from an empty histogram, is the 1 ms floor until it is recomputed more than "
          "1 s later; the run ends at {}, so nearly every read speculates",
          sr->option, s(warm), rules.name, s(end)));
  }
}

}  // namespace lbsim
