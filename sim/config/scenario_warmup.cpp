// Warnings for a run that ends before a mechanism has warmed up (issue 44.12): until then it acts on
// its starting state, not on the run's latencies or hit rates, so a short run understates (or
// overstates) it. The warm-up times are the engine's mechanisms' (sim/mech/spec_retry/spec_retry.cpp,
// sim/mech/snitch/snitch.cpp, sim/mech/hwlb/hwlb.cpp), whose headers give their sources.
#include <fmt/format.h>

#include "sim/config/scenario.hpp"

namespace lbsim {

#define LBSIM_MECHANISM_SPEC(name) void name##_warmup(const Scenario& sc, SimTime end, std::vector<std::string>& out);
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC

std::optional<SimTime> scheduled_end(const WorkloadSpec& w) {
  if (w.duration > 0 && w.warmup_ops == 0) return w.warmup + w.duration;
  return std::nullopt;
}

std::vector<std::string> warmup_warnings(const Scenario& sc, SimTime end) {
  std::vector<std::string> out;
  const ServerRules rules = server_rules(sc.nodes.server);
  auto s = [](SimTime t) { return fmt::format("{:.6g} s", to_sec(t)); };
  const SpecRetrySpec& sr = sc.nodes.speculative_retry;
  if (sr.mode == SpecRetryMode::Percentile) {
    if (rules.spec_threshold == SpecThreshold::CassandraPeriodic) {
      // The threshold starts at read_request_timeout / 2 and is first recomputed after one period.
      const SimTime warm = sc.timeouts.read;
      if (end < warm)
        out.push_back(fmt::format(
            "cluster.speculative_retry '{}' warms up at {}: under cluster.server '{}' the threshold is "
            "read_request_timeout / 2 ({}) until its first refresh one read_request_timeout (timeouts.read_ms) after "
            "the start; the run ends at {}, so it compares against almost no speculation",
            sr.option, s(warm), rules.name, s(warm / 2), s(end)));
    } else {
      // Computed at a coordinator's first read from an empty histogram (the 1 ms floor), then again
      // on use once more than 1 s has passed.
      const SimTime warm = kSec;
      if (end < warm)
        out.push_back(fmt::format(
            "cluster.speculative_retry '{}' warms up at {}: under cluster.server '{}' a coordinator's threshold, "
            "computed at its first read from an empty histogram, is the 1 ms floor until it is recomputed more than "
            "1 s later; the run ends at {}, so nearly every read speculates",
            sr.option, s(warm), rules.name, s(end)));
    }
  }
  // The mechanisms whose checks live in their folders (sim/mech/specs.inc), in the list's order.
#define LBSIM_MECHANISM_SPEC(name) name##_warmup(sc, end, out);
#include "sim/mech/specs.inc"
#undef LBSIM_MECHANISM_SPEC
  return out;
}

}  // namespace lbsim
