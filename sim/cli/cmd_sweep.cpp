// `lbsim sweep SCENARIO --set PATH=V1,V2,... [--set ...] [--seeds K] [--out DIR] [--shard I/N]
//  [--resume] [--force] [--jobs N] [--quiet] [--policy NAME ...] [--seed S]`
// Runs every grid point x policy x seed, each report written at once to
// DIR/<point>/<policy>/seed-<s>.json, then the aggregate DIR/sweep.json (lbsim.sweep/1), or
// DIR/sweep.shard-I-of-N.json for a slice (join slices with `lbsim merge`).
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/cli/command.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/report/compare.hpp"
#include "sim/report/report_json.hpp"
#include "sim/runner/estimate.hpp"
#include "sim/runner/runner.hpp"
#include "sim/runner/sweep.hpp"

namespace lbsim::cli {
namespace {

int run_sweep(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("scenario", po::value<std::string>()->required(), "scenario file (JSON)")(
      "set", po::value<std::vector<std::string>>()->required(), "PATH=V1,V2,...: a grid axis (repeatable)")(
      "seeds", po::value<std::int64_t>()->default_value(1), "replicate seeds per point and policy")(
      "seed", po::value<std::int64_t>(), "first seed (default: the scenario's)")(
      "policy", po::value<std::vector<std::string>>(), "only these policies (repeatable)")(
      "out,o", po::value<std::string>(),
      "the sweep's folder; lbsim writes only inside it, and refuses one that holds files unless --resume or --force "
      "(default: results/<scenario>/sweep, numbered .2, .3, ... when it holds files, with sweep.latest beside)")(
      "shard", po::value<std::string>(), "I/N: run only the I-th of N deterministic slices of the grid")(
      "jobs,j", po::value<std::int64_t>()->default_value(std::max(1u, std::thread::hardware_concurrency())),
      "simulations run in parallel (the results do not depend on it); the load generator's threads are the "
      "scenario's client.threads")(
      "threads", po::value<std::string>(), "renamed --jobs")(
      "quiet", po::bool_switch(), "print only the output file's path (no tables, no progress)")(
      "resume", po::bool_switch(), "keep finished runs found in the output folder, run only the missing ones")(
      "force", po::bool_switch(), "overwrite: write into an output folder that holds files, replacing its reports")(
      "json", po::bool_switch(), "print the sweep document instead of tables")(
      "max-memory", po::value<std::string>(), kMaxMemoryHelp);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options("sweep", "SCENARIO --set PATH=V1,V2,... [--seeds K] [--out DIR] [--shard I/N] [--resume] [--force]", args,
                     opts, pos, vm))
    return 0;
  // From here on Ctrl-C / SIGTERM only sets a flag: nothing starts after it, nothing is half-written.
  const std::atomic<bool>& interrupted = install_interrupt_handler();
  set_interrupt_context("sweep", "");
  const std::string file = vm["scenario"].as<std::string>();
  const auto k = static_cast<std::size_t>(int_option(vm, "seeds", 1, 10000));
  std::vector<GridAxis> axes;
  for (const auto& s : vm["set"].as<std::vector<std::string>>()) axes.push_back(parse_axis(s));
  const Scenario base = load_scenario(file);
  for (const auto& w : base.warnings) fmt::print(stderr, "lbsim sweep: warning: {}\n", w);
  std::optional<Shard> shard;
  if (vm.count("shard")) shard = parse_shard(vm["shard"].as<std::string>());
  {
    // Memory before the grid is expanded: every point's scenario is validated up front and every
    // report is kept until the sweep document is written.
    double grid = 1;
    for (const auto& a : axes) grid *= static_cast<double>(a.values.size());
    const double mine = shard ? std::ceil(grid / static_cast<double>(shard->count)) : grid;
    const double policies = static_cast<double>(vm.count("policy") ? vm["policy"].as<std::vector<std::string>>().size()
                                                                    : base.policies.size());
    const double runs = mine * policies * static_cast<double>(k);
    const auto jobs_n = static_cast<std::size_t>(int_option(vm, "jobs", 1, 4096));
    const auto runs_n = static_cast<std::size_t>(std::min(runs, 1e15));
    ResourceEstimate est = estimate_runs(base, runs_n, jobs_n, runs_n);
    add_grid_points(est, base, mine);
    const MemoryLimit limit = memory_limit(vm);
    refuse_over_memory(est, base.file, limit.bytes, limit.text);
  }
  const std::vector<GridPoint> points = expand_grid(axes);

  // Validate every point up front: a bad value fails before any run.
  std::vector<std::unique_ptr<Scenario>> scenarios(points.size());
  for (const auto& p : points)
    if (!shard || in_shard(p, *shard)) scenarios[p.index] = std::make_unique<Scenario>(load_scenario(file, p.sets));

  SweepHeader h;
  h.scenario_name = base.name;
  h.scenario_hash = base.hash;
  h.axes = axes;
  h.grid_points = points.size();
  h.seeds = replicate_seeds(vm.count("seed") ? static_cast<std::uint64_t>(int_option(vm, "seed", 0, INT64_MAX)) : base.seed, k);
  if (vm.count("policy")) {
    for (const auto& name : vm["policy"].as<std::vector<std::string>>()) {
      if (!base.find_policy(name)) {
        std::vector<std::string> names;
        for (const auto& p : base.policies) names.push_back(p.name);
        throw ConfigError("--policy", fmt::format("unknown policy '{}'; valid: {}", name, jsonin::join(names)));
      }
      h.policies.push_back(name);
    }
  } else {
    for (const auto& p : base.policies) h.policies.push_back(p.name);
  }

  refuse_threads_option("sweep", vm);
  BatchOptions bo;
  bo.threads = static_cast<unsigned>(int_option(vm, "jobs", 1, 4096));
  // Slices of one sweep share their folder (their files never overlap); a slice with --resume says
  // it resumes (a batch system's requeued or resubmitted task), not that it overwrites.
  const bool resume = vm["resume"].as<bool>();
  const bool named = vm.count("out") > 0;
  const OutDir out_dir = choose_out_dir(named ? vm["out"].as<std::string>() : "results/" + base.name + "/sweep", !named,
                                        vm["force"].as<bool>() || (shard.has_value() && !resume), resume, "sweep",
                                        shard ? fmt::format("shard-{}-of-{}", shard->index, shard->count) : "");
  const std::string& dir = out_dir.dir;
  set_interrupt_context("sweep", dir);
  if (!out_dir.note.empty()) std::cerr << "lbsim sweep: " << out_dir.note << "\n";

  std::vector<RunJob> jobs;
  std::vector<std::size_t> job_point;
  for (const auto& p : points) {
    if (!scenarios[p.index]) continue;
    for (const auto& name : h.policies)
      for (auto seed : h.seeds) {
        jobs.push_back({scenarios[p.index].get(), scenarios[p.index]->find_policy(name), seed,
                        (std::filesystem::path(dir) / p.id / name / fmt::format("seed-{}.json", seed)).string(), ""});
        job_point.push_back(p.index);
      }
  }
  const bool quiet = vm["quiet"].as<bool>();
  bo.resume = resume;
  if (!out_dir.note.empty())  // the folder held files: what is kept, and why the rest runs again
    bo.on_resume = [&](const std::vector<std::string>& why) {
      std::cerr << describe_resume("sweep", dir, jobs, why, [&](std::size_t i) {
        return points[job_point[i]].id + " " + jobs[i].policy->name;
      });
    };
  bo.cancel = &interrupted;
  std::size_t done = 0;
  const bool tty = isatty(fileno(stderr)) != 0 && !quiet;
  bo.on_done = [&](std::size_t, bool) {
    if (done++ == 0) mark_latest(out_dir);  // a report is in the folder now
    if (tty) fmt::print(stderr, "\rlbsim sweep: {}/{} runs", done, jobs.size());
  };
  const BatchResult res = run_batch(jobs, bo);
  if (tty) fmt::print(stderr, "\n");
  if (res.missing > 0) {
    std::cerr << describe_missing("sweep", jobs, res, dir, [&](std::size_t i) {
      return points[job_point[i]].id + " " + jobs[i].policy->name;
    });
    interrupt_reported();
    return kInterruptedExit;
  }
  PointReports reports;
  for (std::size_t i = 0; i < jobs.size(); ++i) reports[job_point[i]][jobs[i].policy->name].push_back(*res.reports[i]);
  const auto doc = sweep_document(h, points, reports, shard);
  const std::string out =
      shard ? (std::filesystem::path(dir) / fmt::format("sweep.shard-{}-of-{}.json", shard->index, shard->count)).string()
            : (std::filesystem::path(dir) / "sweep.json").string();
  write_file_atomic(out, doc.dump(1) + "\n");
  if (vm["json"].as<bool>()) std::cout << doc.dump(1) << "\n";
  else if (quiet) std::cout << out << "\n";
  else std::cout << fmt::format("Sweep of {} ({} points, {} seeds, {} ran, {} reused)\n", base.name, points.size(), k,
                                res.ran, res.reused)
                 << sweep_table(nlohmann::json::parse(doc.dump())) << "\nsweep: " << out << "\n";
  // A run that completed no operation answers nothing (its figures are zeros), as in `lbsim run`:
  // after the output, the sweep names such runs and exits 1.
  std::vector<std::string> empty;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const PolicyLoad load = policy_load(jobs[i].policy->name, std::vector<const nlohmann::json*>{&*res.reports[i]});
    if (load.throughput <= 0)
      empty.push_back(fmt::format("{} {} seed {} (failed: {})", points[job_point[i]].id, jobs[i].policy->name,
                                  jobs[i].seed, error_counts(load)));
  }
  if (!empty.empty()) {
    fmt::print(stderr,
               "lbsim sweep: error: no operation completed successfully in the measurement window of {} run(s): {}; "
               "their figures are zeros and answer nothing (the reports in {} give the errors)\n",
               empty.size(), fmt::join(empty, ", "), dir);
    return 1;
  }
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("sweep", "run a grid of parameter values x policies x seeds and aggregate it", run_sweep)

}  // namespace lbsim::cli
