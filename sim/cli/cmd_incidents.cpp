// `lbsim incidents [NAME ...] [--dir DIR] [--out DIR] [--quick] [--jobs N] [--json]`: the incident
// gallery (docs/incidents.md). Runs each incident scenario of DIR (configs/incidents by default),
// or the named ones, computes its `reproduces.figure` from the reports and prints published against
// lbsim with pass or fail. Exit 0 when every incident claimed as reproduced passes, 1 otherwise;
// entries with status "not-reproduced" are listed with their reason and never count as passing.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <future>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/command.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/report/report_json.hpp"
#include "sim/runner/incidents.hpp"

namespace lbsim::cli {
namespace {

namespace fs = std::filesystem;
using OJson = nlohmann::ordered_json;

std::string verdict(const IncidentOutcome& o) {
  if (!o.rep.reproduced) return "not reproduced";
  if (!o.value) return "FAIL (" + o.error + ")";
  return o.pass ? "pass" : "FAIL";
}

OJson to_json(const IncidentOutcome& o) {
  OJson t = OJson::object();
  if (o.rep.absolute >= 0) t["absolute"] = o.rep.absolute;
  if (o.rep.relative >= 0) t["relative"] = o.rep.relative;
  if (!o.rep.tolerance_reason.empty()) t["reason"] = o.rep.tolerance_reason;
  OJson j = {{"name", o.name},
             {"file", o.file},
             {"source", o.rep.source},
             {"claim", o.rep.claim},
             {"status", o.rep.reproduced ? "reproduced" : "not-reproduced"},
             {"published", o.rep.published},
             {"published_text", o.rep.published_text},
             {"lbsim", o.value ? OJson(*o.value) : OJson(nullptr)},
             {"tolerance", t},
             {"pass", o.pass},
             {"quick", o.quick}};
  if (!o.error.empty()) j["error"] = o.error;
  if (!o.rep.reproduced) j["reason"] = o.rep.reason;
  return j;
}

int run_incidents(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("name", po::value<std::vector<std::string>>()->composing(),
                     "run only these incidents (file names without .json; default: all)")(
      "dir", po::value<std::string>()->default_value("configs/incidents"), "the folder of incident scenarios")(
      "out,o", po::value<std::string>(), "also write each run's report to OUT/<incident>/<policy>.json")(
      "quick", po::bool_switch(), "apply each incident's reproduces.test_set (the shortened runs the tests make)")(
      "jobs,j", po::value<std::int64_t>()->default_value(std::max(1u, std::thread::hardware_concurrency())),
      "incidents run in parallel (the results do not depend on it)")(
      "json", po::bool_switch(), "print JSON (lbsim.incidents/1) instead of a table");
  po::positional_options_description pos;
  pos.add("name", -1);
  po::variables_map vm;
  if (!parse_options("incidents", "[NAME ...] [--dir DIR] [--out DIR] [--quick] [--jobs N] [--json]", args, opts, pos, vm))
    return 0;
  const std::atomic<bool>& interrupted = install_interrupt_handler();
  set_interrupt_context("incidents", "");
  const auto jobs = static_cast<std::size_t>(int_option(vm, "jobs", 1, 4096));
  std::vector<std::string> files = incident_files(vm["dir"].as<std::string>());
  if (const auto names = strings_of(vm, "name"); !names.empty()) {
    std::vector<std::string> chosen, valid;
    for (const auto& f : files) valid.push_back(fs::path(f).stem().string());
    for (const auto& n : names) {
      const auto it = std::find(valid.begin(), valid.end(), n);
      if (it == valid.end()) throw ConfigError(n, "no such incident in " + vm["dir"].as<std::string>() + "; valid: " + jsonin::join(valid));
      chosen.push_back(files[static_cast<std::size_t>(it - valid.begin())]);
    }
    files = chosen;
  }
  const bool quick = vm["quick"].as<bool>();
  for (const auto& f : files)  // every input error before any run
    if (!load_scenario(f).reproduces)
      throw ConfigError(f + ": /reproduces", "required in an incident scenario (configs/README.md, \"Incidents\")");
  std::vector<IncidentOutcome> outcomes(files.size());
  try {
    for (std::size_t start = 0; start < files.size(); start += jobs) {
      std::vector<std::future<IncidentOutcome>> running;
      for (std::size_t i = start; i < std::min(files.size(), start + jobs); ++i)
        running.push_back(std::async(std::launch::async, [&, i] { return run_incident(files[i], quick, &interrupted); }));
      for (std::size_t i = 0; i < running.size(); ++i) outcomes[start + i] = running[i].get();
    }
  } catch (const Cancelled&) {
    fmt::print(stderr, "lbsim incidents: interrupted\n");
    return kInterruptedExit;
  }
  if (vm.count("out"))
    for (const auto& o : outcomes)
      for (const auto& [run, doc] : o.reports) {
        // A run with a seed or --set patches is named policy~seed-S~PATH=VALUE: keep it one file name.
        std::string file = run;
        for (char& c : file)
          if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '~' || c == '='))
            c = '_';
        write_file_atomic((fs::path(vm["out"].as<std::string>()) / o.name / (file + ".json")).string(), doc.dump(1) + "\n");
      }
  std::size_t claimed = 0, passed = 0, honest = 0;
  for (const auto& o : outcomes) {
    if (o.rep.reproduced) ++claimed;
    else ++honest;
    if (o.pass) ++passed;
  }
  if (vm["json"].as<bool>()) {
    OJson all = OJson::array();
    for (const auto& o : outcomes) all.push_back(to_json(o));
    const OJson doc = {{"schema", "lbsim.incidents/1"}, {"quick", quick}, {"incidents", all},
                       {"passed", passed}, {"claimed", claimed}, {"not_reproduced", honest}};
    std::cout << doc.dump(1) << "\n";
  } else {
    fmt::print("{:<28} {:<40} {:>12} {:>12} {:>10}  {}\n", "incident", "source", "published", "lbsim", "tolerance", "result");
    for (const auto& o : outcomes) {
      const std::string pub = o.rep.published_text.empty() ? fmt::format("{:g}", o.rep.published)
                                                           : fmt::format("{} ({:g})", o.rep.published_text, o.rep.published);
      fmt::print("{:<28} {:<40} {:>12} {:>12} {:>10}  {}\n", o.name, o.rep.source, pub,
                 o.value ? fmt::format("{:.3g}", *o.value) : std::string("-"), tolerance_text(o.rep), verdict(o));
    }
    for (const auto& o : outcomes)
      if (!o.rep.reproduced) fmt::print("\n{} not reproduced: {}\n", o.name, o.rep.reason);
    fmt::print("\n{} of {} reproductions pass; {} incidents lbsim does not reproduce (docs/incidents.md says why)\n",
               passed, claimed, honest);
  }
  return passed == claimed ? 0 : 1;
}

}  // namespace

LBSIM_REGISTER_COMMAND("incidents", "run the incident gallery: published figures against lbsim's, pass or fail",
                       run_incidents)

}  // namespace lbsim::cli
