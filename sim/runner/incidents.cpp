// The incident gallery's runs (sim/runner/incidents.hpp).
#include "sim/runner/incidents.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim {

namespace fs = std::filesystem;

std::vector<std::string> incident_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ConfigError(dir, "not a folder of incident scenarios (configs/incidents)");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

IncidentOutcome run_incident(const std::string& file, bool quick, const std::atomic<bool>* cancel) {
  Scenario sc = load_scenario(file);
  if (!sc.reproduces)
    throw ConfigError(file + ": /reproduces", "required in an incident scenario (configs/README.md, \"Incidents\")");
  if (quick && !sc.reproduces->test_set.empty()) sc = load_scenario(file, sc.reproduces->test_set);
  IncidentOutcome out;
  out.name = sc.name;
  out.file = file;
  out.rep = *sc.reproduces;
  out.quick = quick;
  // Only the runs the figure reads (a policy, at a seed, with --set patches); an entry without a
  // figure (not reproduced) runs nothing.
  const std::vector<Figure> runs = out.rep.figure ? figure_runs(*out.rep.figure) : std::vector<Figure>{};
  RunOptions ro;
  ro.cancel = cancel;
  for (const Figure& run : runs) {
    Scenario patched;
    const Scenario* s = &sc;
    if (!run.set.empty()) {
      std::vector<std::string> sets = quick ? out.rep.test_set : std::vector<std::string>{};
      sets.insert(sets.end(), run.set.begin(), run.set.end());
      patched = load_scenario(file, sets);
      s = &patched;
    }
    const RunResult r = run_simulation(*s, *s->find_policy(run.policy), run.seed.value_or(s->seed), ro);
    out.reports[run.run_key()] = nlohmann::json::parse(report_json_stable(r).dump());
  }
  if (out.rep.figure) {
    try {
      out.value = evaluate_figure(*out.rep.figure, out.reports);
    } catch (const std::runtime_error& e) {
      out.error = e.what();
    }
  }
  out.pass = out.rep.reproduced && out.value && within_tolerance(out.rep, *out.value);
  return out;
}

}  // namespace lbsim
