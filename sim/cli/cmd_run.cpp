// `lbsim run SCENARIO [--policy NAME ...] [--seed S] [--seeds K] [--set PATH=V ...] [--out DIR]
//  [--force | --resume] [--jobs N] [--json] [--quiet] [--yes]`
// Replays the scenario's workload through each policy (common random numbers: every policy sees
// the same keys and arrivals). One seed: prints a cassandra-stress "Results:" block, the per-node
// table with the analytic model's expected shares, and the imbalance per policy, then a side-by-side
// table; each report goes atomically to DIR/<scenario>/<policy>.json (schema lbsim.report/1).
// `--seeds K`: K replicate seeds per policy run in parallel, each report in
// DIR/<scenario>/seeds/<policy>/seed-<s>.json, an lbsim.aggregate/1 per policy in
// DIR/<scenario>/<policy>.aggregate.json, and a comparison table with 95% CIs and Welch tests.
// An existing DIR/<scenario> is not overwritten silently: --force, or a new numbered folder.
// Ctrl-C stops cleanly: finished reports are kept and the missing runs are listed (exit 130);
// --resume then keeps them and runs only the missing ones. A run that completed no operation
// successfully is named after the output, and the exit code is 1. `--physics FILE` applies an
// `lbsim fit` fragment before the --set patches; `--export DIR` also writes each run in the
// formats real clusters export (sim/report/export.hpp), for `lbsim fit`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <set>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/analysis/scenario_model.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/interrupt.hpp"
#include "sim/cli/physics.hpp"
#include "sim/config/scenario.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/fit/fit.hpp"
#include "sim/report/aggregate.hpp"
#include "sim/report/compare.hpp"
#include "sim/report/export.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/report_text.hpp"
#include "sim/runner/estimate.hpp"
#include "sim/runner/runner.hpp"

namespace lbsim::cli {
namespace {

namespace fs = std::filesystem;

std::vector<const PolicyEntry*> chosen_policies(const Scenario& sc, const po::variables_map& vm) {
  std::vector<const PolicyEntry*> chosen;
  if (!vm.count("policy")) {
    for (const auto& p : sc.policies) chosen.push_back(&p);
    return chosen;
  }
  for (const auto& name : vm["policy"].as<std::vector<std::string>>()) {
    const PolicyEntry* e = sc.find_policy(name);
    if (!e) {
      std::vector<std::string> names;
      for (const auto& p : sc.policies) names.push_back(p.name);
      throw ConfigError("--policy",
                        "unknown policy '" + name + "' in scenario '" + sc.name + "'; valid: " + jsonin::join(names));
    }
    chosen.push_back(e);
  }
  return chosen;
}

// Runs (policy, or policy and seed) that completed no operation in the measurement window: their
// figures are all zero and answer nothing. After the output, `run` names them and exits 1.
int refuse_empty_runs(const std::vector<PolicyLoad>& runs, const std::string& dir) {
  std::vector<std::string> empty;
  for (const PolicyLoad& p : runs)
    if (p.throughput <= 0) empty.push_back(fmt::format("{} (failed: {})", p.name, error_counts(p)));
  if (empty.empty()) return 0;
  fmt::print(stderr,
             "lbsim run: error: no operation completed successfully in the measurement window: {}; a table of zeros "
             "answers nothing: check the scenario's consistency levels, faults, timeouts and warm-up (the reports in "
             "{} give the errors)\n",
             fmt::join(empty, ", "), dir);
  return 1;
}

int run_replicates(const Scenario& sc, const std::vector<const PolicyEntry*>& chosen, std::uint64_t first_seed,
                   std::size_t k, const OutDir& out, unsigned threads, bool json, bool hlog, bool resume,
                   const std::atomic<bool>& interrupted) {
  const std::string& dir = out.dir;
  const auto seeds = replicate_seeds(first_seed, k);
  std::vector<RunJob> jobs;
  for (const PolicyEntry* e : chosen)
    for (auto s : seeds)
      jobs.push_back({&sc, e, s, (fs::path(dir) / "seeds" / e->name / fmt::format("seed-{}.json", s)).string(),
                      hlog ? (fs::path(dir) / "seeds" / e->name / fmt::format("seed-{}.hlog", s)).string() : ""});
  BatchOptions bo;
  bo.threads = threads;
  bo.cancel = &interrupted;
  bo.resume = resume;
  if (!out.note.empty())  // the folder held files: what is kept, and why the rest runs again
    bo.on_resume = [&](const std::vector<std::string>& why) {
      std::cerr << describe_resume("run", dir, jobs, why, [&](std::size_t i) { return jobs[i].policy->name; });
    };
  std::size_t done = 0;
  const bool tty = isatty(fileno(stderr)) != 0;
  bo.on_done = [&](std::size_t, bool) {
    if (done++ == 0) mark_latest(out);  // a report is in the folder now
    if (tty) fmt::print(stderr, "\rlbsim run: {}/{} runs", done, jobs.size());
  };
  const BatchResult res = run_batch(jobs, bo);
  if (tty) fmt::print(stderr, "\n");
  if (res.missing > 0) {
    std::cerr << describe_missing("run", jobs, res, dir, [&](std::size_t i) { return jobs[i].policy->name; });
    interrupt_reported();
    return kInterruptedExit;
  }
  if (resume && res.reused > 0) fmt::print(stderr, "lbsim run: {} runs ran, {} reused from {}\n", res.ran, res.reused, dir);
  std::vector<nlohmann::json> all;
  for (const PolicyEntry* e : chosen) {
    std::vector<nlohmann::json> mine;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (jobs[i].policy == e) mine.push_back(*res.reports[i]);
    write_file_atomic((fs::path(dir) / (e->name + ".aggregate.json")).string(), aggregate_document(mine).dump(1) + "\n");
    all.insert(all.end(), mine.begin(), mine.end());
  }
  const Comparison c = compare_reports(all, CompareOptions{});
  std::cout << render_comparison(c, json ? CompareFormat::Json : CompareFormat::Text);
  if (!json) fmt::print("\nreports: {}/seeds/<policy>/seed-<s>.json, aggregates: {}/<policy>.aggregate.json\n", dir, dir);
  std::cout.flush();
  std::vector<PolicyLoad> runs;
  for (const auto& r : all)
    runs.push_back(policy_load(fmt::format("{} seed {}", r["policy"].value("name", "?"), r.value("seed", 0)), {&r}));
  return refuse_empty_runs(runs, dir);
}

// A report file as written (key order kept), for `--json` output of a resumed run.
nlohmann::ordered_json read_report(const std::string& path) {
  return jsonin::load_file_ordered(path);
}

// Refuses, before any output, a run estimated at more than an hour of wall time (the engine does
// about 1M operations per second per core); --yes skips the check. Closed-loop duration runs have
// no operation count before running and are not checked.
void refuse_long_run(const Scenario& sc, std::size_t runs) {
  const WorkloadSpec& w = sc.workload;
  double ops = static_cast<double>(w.total_ops());
  if (w.duration > 0 && sc.client.mode == LoadMode::Open) ops = sc.client.rate * to_sec(w.warmup + w.duration);
  const double hours = ops * static_cast<double>(runs) / 1e6 / 3600;
  if (hours <= 1) return;
  const std::string path = w.duration > 0 ? "/workload/duration_s" : "/workload/ops";
  throw ConfigError(sc.file.empty() ? path : sc.file + ":" + path,
                    fmt::format("about {:.0f} operations x {} runs would take about {:.1f} hours of wall time at ~1M "
                                "operations/s; pass --yes to run anyway, or lower it",
                                ops, runs, hours));
}

int run_run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("scenario", po::value<std::string>()->required(), "scenario file (JSON), e.g. configs/default.json")(
      "policy", po::value<std::vector<std::string>>()->composing(), "run only this policy (by its name; repeatable)")(
      "seed", po::value<std::int64_t>(), "simulation seed (default: the scenario's \"seed\"; the ring keeps the scenario's)")(
      "seeds", po::value<std::int64_t>()->default_value(1), "replicate seeds per policy (seed, seed+1, ...), run in parallel")(
      "jobs,j", po::value<std::int64_t>()->default_value(std::max(1u, std::thread::hardware_concurrency())),
      "simulations run in parallel with --seeds (the results do not depend on it); the load generator's threads are "
      "the scenario's client.threads (cassandra-stress -rate threads=)")(
      "threads", po::value<std::string>(), "renamed --jobs")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "patch the scenario before validation: PATH=VALUE, e.g. client.threads=64 (repeatable)")(
      "out,o", po::value<std::string>()->default_value("results"),
      "reports go to OUT/<scenario>/ (OUT/<scenario>.2, .3, ... when it holds files; OUT/<scenario>.latest points to "
      "the newest folder with a report)")(
      "force", po::bool_switch(), "overwrite: write into OUT/<scenario>/ even when it holds files, replacing its reports")(
      "resume", po::bool_switch(),
      "keep the finished reports of an interrupted run of the same scenario and seeds (in the newest of "
      "OUT/<scenario>, .2, ...) and run only the missing ones; the reports are those of an uninterrupted run")(
      "json", po::bool_switch(), "print JSON instead of text")(
      "hlog", po::bool_switch(),
      "also write each run's latency timeline as an HdrHistogram interval log, <policy>.hlog (ns; one line per "
      "timeline interval) for HistogramLogProcessor and other HdrHistogram tools")(
      "physics", po::value<std::string>(),
      "apply an `lbsim fit` fragment (its cluster block: service times, node speeds) before the --set patches")(
      "export", po::value<std::string>(),
      "also write each run in the formats a real cluster exports (ScyllaDB Prometheus text, nodetool "
      "proxyhistograms, JMX arrays, a cassandra-stress hlog) to EXPORT/<policy>/, for `lbsim fit` (docs/fit.md)")(
      "quiet", po::bool_switch(), "print only the side-by-side table")(
      "yes", po::bool_switch(), "run even when the estimated wall time exceeds an hour")(
      "max-memory", po::value<std::string>(), kMaxMemoryHelp);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse_options("run", "SCENARIO [--policy NAME ...] [--seed S] [--seeds K] [--set PATH=V ...] [--out DIR] [--force | --resume]",
                     args, opts, pos, vm))
    return 0;
  const std::atomic<bool>& interrupted = install_interrupt_handler();
  set_interrupt_context("run", "");
  std::vector<std::string> sets;
  if (vm.count("physics")) {
    sets = physics_sets(vm["physics"].as<std::string>(), vm["scenario"].as<std::string>());
  }
  for (const auto& a : strings_of(vm, "set")) sets.push_back(a);
  const Scenario sc = load_scenario(vm["scenario"].as<std::string>(), sets);
  // Scenario warnings go to stderr whatever the output mode (--quiet and --json included).
  for (const auto& w : sc.warnings) fmt::print(stderr, "lbsim run: warning: {}\n", w);
  const std::uint64_t seed = vm.count("seed") ? static_cast<std::uint64_t>(int_option(vm, "seed", 0, INT64_MAX)) : sc.seed;
  const auto k = static_cast<std::size_t>(int_option(vm, "seeds", 1, 10000));
  refuse_threads_option("run", vm);
  const auto threads = static_cast<unsigned>(int_option(vm, "jobs", 1, 4096));
  const bool json = vm["json"].as<bool>();
  const bool quiet = vm["quiet"].as<bool>();
  const std::vector<const PolicyEntry*> chosen = chosen_policies(sc, vm);
  if (!vm["yes"].as<bool>()) refuse_long_run(sc, chosen.size() * k);
  {
    // Memory before anything runs: --seeds runs `jobs` simulations at once and keeps every report.
    const std::size_t runs = chosen.size() * k;
    const ResourceEstimate est = estimate_runs(sc, runs, k > 1 ? threads : 1, runs);
    const MemoryLimit limit = memory_limit(vm);
    refuse_over_memory(est, sc.file, limit.bytes, limit.text);
  }

  const bool force = vm["force"].as<bool>(), resume = vm["resume"].as<bool>();
  if (force && resume)
    throw ConfigError("--force, --resume", "give one of them: --force replaces the folder's reports, --resume keeps them");
  const OutDir out = choose_out_dir((fs::path(vm["out"].as<std::string>()) / sc.name).string(), /*numbered=*/true, force,
                                    resume, "run");
  const std::string& dir = out.dir;
  set_interrupt_context("run", dir);
  if (!out.note.empty()) std::cerr << "lbsim run: " << out.note << "\n";
  // --force replaces the folder's results: a stale report of an earlier (or interrupted) run
  // would otherwise sit beside the new ones and mix into `lbsim report`.
  if (force) remove_lbsim_documents(dir);
  const bool hlog = vm["hlog"].as<bool>();
  const std::string export_dir = vm.count("export") ? vm["export"].as<std::string>() : "";
  if (!export_dir.empty() && k > 1) throw ConfigError("--export", "writes one run per policy; give it without --seeds");
  if (k > 1) return run_replicates(sc, chosen, seed, k, out, threads, json, hlog, resume, interrupted);

  // The model only for the policies that run (it costs O(ranges x RF) per policy).
  std::vector<std::string> chosen_names;
  for (const PolicyEntry* e : chosen) chosen_names.push_back(e->name);
  // It runs beside the first simulation (its results are needed only when that one is printed):
  // at 3,000 nodes x 256 tokens that hides about half a second of start-up.
  std::future<ScenarioModel> model_future =
      std::async(std::launch::async, [&sc, &chosen_names] { return analyze_scenario(sc, &chosen_names); });
  std::optional<ScenarioModel> model_storage;
  auto model_of = [&]() -> const ScenarioModel& {
    if (!model_storage) model_storage = model_future.get();
    return *model_storage;
  };
  const bool tty = isatty(fileno(stderr)) != 0 && !json;
  std::vector<RunResult> results;       // the runs made now
  std::vector<nlohmann::json> reports;  // every chosen policy's report, made now or kept (--resume)
  std::size_t reused = 0;
  bool marked = false;
  auto mark = [&] {  // once a report is in the folder
    if (!marked) mark_latest(out);
    marked = true;
  };
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  // --resume: the reports kept, found before any run, and why the others run again.
  std::vector<std::optional<nlohmann::json>> kept(chosen.size());
  std::set<std::string> run_warned;
  if (resume) {
    std::vector<RunJob> jobs;
    std::vector<std::string> why(chosen.size());
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const std::string path = (fs::path(dir) / (chosen[i]->name + ".json")).string();
      jobs.push_back({&sc, chosen[i], seed, path, hlog ? (fs::path(dir) / (chosen[i]->name + ".hlog")).string() : ""});
      kept[i] = existing_report(path, jobs.back(), &why[i]);
    }
    if (!out.note.empty())
      std::cerr << describe_resume("run", dir, jobs, why, [&](std::size_t i) { return jobs[i].policy->name; });
  }
  for (std::size_t ci = 0; ci < chosen.size(); ++ci) {
    const PolicyEntry* e = chosen[ci];
    const std::string path = (fs::path(dir) / (e->name + ".json")).string();
    const std::string hlog_path = hlog ? (fs::path(dir) / (e->name + ".hlog")).string() : "";
    if (resume) {
      if (auto& old = kept[ci]) {
        ++reused;
        mark();
        if (json) all.push_back(read_report(path));
        else if (!quiet) fmt::print("== {} / {} (seed {}) ==\nkept from the earlier run: {}\n\n", sc.name, e->name, seed, path);
        reports.push_back(std::move(*old));
        continue;
      }
    }
    RunOptions ro;
    ro.cancel = &interrupted;
    if (tty) {
      ro.progress = [&](const Progress& p) {
        const double pct = p.target ? 100.0 * static_cast<double>(p.finished) / static_cast<double>(p.target)
                                    : (p.end ? 100.0 * static_cast<double>(p.now) / static_cast<double>(p.end) : 0);
        fmt::print(stderr, "\r{}: simulated {:.2f} s, {} ops ({:.0f}%), {:.1f} M events/s   ", e->name, to_sec(p.now),
                   grouped(static_cast<double>(p.finished)), pct, static_cast<double>(p.events) / p.wall_s / 1e6);
        std::fflush(stderr);
      };
    }
    RunResult r;
    try {
      r = run_simulation(sc, *e, seed, ro);
    } catch (const Cancelled&) {
      // The same account as a batch's: which runs are missing, and the folder only when it holds them.
      std::vector<RunJob> jobs;
      BatchResult res;
      for (const PolicyEntry* c : chosen) {
        jobs.push_back({&sc, c, seed, (fs::path(dir) / (c->name + ".json")).string(), ""});
        const bool finished = res.reports.size() < reports.size();  // reports follow the order of `chosen`
        res.reports.push_back(finished ? std::optional<nlohmann::json>(reports[res.reports.size()]) : std::nullopt);
        res.missing += finished ? 0 : 1;
      }
      std::cerr << "\n" << describe_missing("run", jobs, res, dir, [&](std::size_t i) { return jobs[i].policy->name; });
      interrupt_reported();
      return kInterruptedExit;
    }
    if (tty) fmt::print(stderr, "\r{:80}\r", "");
    // The run's own warnings (those the scenario did not give: a warm-up its end fell short of, a
    // merge it could not finalize) on stderr too, once per subject (the text before its first
    // ':', so that the policies' runs of a number of operations, which end at different times,
    // warn of a mechanism once; each report keeps its own).
    for (const auto& w : r.warnings)
      if (std::find(sc.warnings.begin(), sc.warnings.end(), w) == sc.warnings.end() &&
          run_warned.insert(w.substr(0, w.find(':'))).second)
        fmt::print(stderr, "lbsim run: warning: {}\n", w);
    const auto doc = report_json(r);
    if (hlog) write_file_atomic(hlog_path, hlog_document(r));
    write_file_atomic(path, doc.dump(1) + "\n");
    if (!export_dir.empty()) export_run(r, sc.nodes.shards, (fs::path(export_dir) / e->name).string());
    mark();
    if (json) {
      all.push_back(doc);
    } else if (!quiet) {
      print_run(std::cout, r);
      const auto idx = static_cast<std::size_t>(e - sc.policies.data());
      std::cout << model_gap_text(sc.topology(), model_of().policies[idx].model, r);
      // What the model leaves out (faults, fat partitions, ...), so a gap is read correctly.
      for (const auto& n : model_of().notes) std::cout << "model note: " << n << "\n";
      std::cout << "\n";
    }
    std::cout.flush();
    reports.push_back(nlohmann::json::parse(doc.dump()));
    results.push_back(std::move(r));
  }
  // Verdict warnings (stderr, every output mode): latencies of policies whose throughputs differ
  // (failed operations, a closed loop's own loads, an open loop's backlog), or near saturation,
  // are not comparable.
  std::vector<PolicyLoad> loads;
  for (std::size_t i = 0; i < chosen.size(); ++i) loads.push_back(policy_load(chosen[i]->name, {&reports[i]}));
  for (const auto& w : comparability_warnings(loads)) fmt::print(stderr, "lbsim run: warning: {}\n", w);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const auto idx = static_cast<std::size_t>(chosen[i] - sc.policies.data());
    const LoadModel& m = model_of().policies[idx].model;
    const double tput = loads[i].throughput;
    if (m.modelled && m.saturation_ops_s > 0 && std::isfinite(m.saturation_ops_s) && tput > 0.9 * m.saturation_ops_s)
      fmt::print(stderr,
                 "lbsim run: warning: {} runs at {:.0f}% of the model's saturation bound ({:.0f} op/s): its latencies "
                 "are dominated by queueing and change steeply with load; {}\n",
                 chosen[i]->name, 100 * tput / m.saturation_ops_s, m.saturation_ops_s,
                 sc.client.mode == LoadMode::Open
                     ? fmt::format("compare policies at a lower client.rate_ops_s (now {:.0f} op/s)", sc.client.rate)
                     : fmt::format("compare policies in an open loop well below the bound (client.rate_ops_s, e.g. "
                                   "{:.0f} op/s: 70%)",
                                   0.7 * m.saturation_ops_s));
  }
  if (json) {
    std::cout << all.dump(1) << "\n";
  } else if (reused == 0) {
    fmt::print("Side by side: {} ({} ops measured per policy, seed {})\n", sc.name,
               grouped(static_cast<double>(results.empty() ? 0 : results[0].measured_ops())), seed);
    print_side_by_side(std::cout, results);
    fmt::print("\nreports: {}/<policy>.json\n", dir);
  } else {
    // Reports kept from an earlier run have no in-memory result: the table `lbsim compare` makes of them all.
    fmt::print("Side by side: {} (seed {}; {} of {} reports kept from the earlier run)\n", sc.name, seed, reused,
               reports.size());
    std::cout << render_comparison(compare_reports(reports, CompareOptions{}), CompareFormat::Text);
    fmt::print("\nreports: {}/<policy>.json\n", dir);
  }
  std::cout.flush();
  return refuse_empty_runs(loads, dir);
}

}  // namespace

LBSIM_REGISTER_COMMAND("run", "simulate the scenario's workload through each policy and compare them", run_run)

}  // namespace lbsim::cli
