#include "sim/runner/runner.hpp"

#include <cerrno>
#include <cstdlib>
#include <csignal>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/core/error.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/metrics/hlog.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim {

namespace fs = std::filesystem;

std::optional<nlohmann::json> existing_report(const std::string& path, const RunJob& job, std::string* why) {
  auto no = [&](std::string reason) -> std::optional<nlohmann::json> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return no("no report yet");
  if (!job.hlog_path.empty() && !fs::is_regular_file(job.hlog_path, ec))
    return no("the report's HdrHistogram log (--hlog) is missing");
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = jsonin::parse_text(ss.str(), path);  // a repeated key: not a whole report, run again
  } catch (const std::exception&) {
    return no("the file is not a whole JSON report");
  }
  if (!j.is_object() || j.value("schema", std::string()) != kReportSchema)
    return no(fmt::format("the file is not an {} report", kReportSchema));
  const std::string hash = j.contains("scenario") && j["scenario"].is_object() ? j["scenario"].value("hash", std::string()) : "";
  if (hash != job.scenario->hash)
    return no(fmt::format("its report is of another scenario (scenario hash {} there, {} now: the scenario file or "
                          "the --set patches differ)",
                          hash.empty() ? "none" : hash, job.scenario->hash));
  const std::string policy = j.contains("policy") && j["policy"].is_object() ? j["policy"].value("name", std::string()) : "";
  if (policy != job.policy->name) return no(fmt::format("its report is of policy '{}'", policy));
  const auto seed = j.value("seed", std::uint64_t{0});
  if (seed != job.seed) return no(fmt::format("its report is of seed {}", seed));
  if (why) why->clear();
  return j;
}

std::string describe_resume(const std::string& command, const std::string& dir, const std::vector<RunJob>& jobs,
                            const std::vector<std::string>& why,
                            const std::function<std::string(std::size_t job)>& label) {
  std::vector<std::string> kept;
  std::vector<std::pair<std::string, std::vector<std::size_t>>> reasons;  // in order of first appearance
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (why[i].empty()) {
      kept.push_back(fmt::format("{} seed {}", label(i), jobs[i].seed));
      continue;
    }
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == why[i]; });
    if (it == reasons.end()) reasons.push_back({why[i], {i}});
    else it->second.push_back(i);
  }
  auto names = [&](const std::vector<std::string>& all) {
    std::string s;
    for (std::size_t k = 0; k < all.size() && k < 5; ++k) s += (k ? ", " : "") + all[k];
    if (all.size() > 5) s += fmt::format(" and {} more", all.size() - 5);
    return s;
  };
  std::string s = fmt::format("lbsim {}: --resume in {}: {} of {} reports kept{}{}; {} to run again{}\n", command,
                              dir, kept.size(), jobs.size(), kept.empty() ? "" : " (",
                              kept.empty() ? "" : names(kept) + ")", jobs.size() - kept.size(),
                              reasons.empty() ? "" : ":");
  for (const auto& [reason, idx] : reasons) {
    std::vector<std::string> runs;
    for (auto i : idx) runs.push_back(fmt::format("{} seed {}", label(i), jobs[i].seed));
    s += fmt::format("  {}: {}\n", reason, names(runs));
  }
  return s;
}

BatchResult run_batch(const std::vector<RunJob>& jobs, const BatchOptions& opts) {
  BatchResult res;
  res.reports.resize(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  auto cancelled = [&] { return opts.cancel && opts.cancel->load(); };
  // --resume: the kept reports are found before any run starts, so that the command can say what
  // is kept and why the rest runs again.
  std::vector<char> kept(jobs.size(), 0);
  if (opts.resume) {
    std::vector<std::string> why(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (auto old = existing_report(jobs[i].out_path, jobs[i], &why[i])) {
        res.reports[i] = std::move(*old);
        kept[i] = 1;
      }
    }
    if (opts.on_resume) opts.on_resume(why);
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (kept[i]) {
        ++res.reused;
        if (opts.on_done) opts.on_done(i, true);
      }
  }

  auto worker = [&] {
    for (;;) {
      if (cancelled()) return;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (error) return;
      }
      const std::size_t i = next.fetch_add(1);
      if (i >= jobs.size()) return;
      const RunJob& job = jobs[i];
      try {
        if (kept[i]) continue;
        RunOptions ro;
        ro.cancel = opts.cancel;
        const RunResult r = run_simulation(*job.scenario, *job.policy, job.seed, ro);
        const auto doc = report_json(r);
        // The log first: a report on disk means its run is finished (--resume), log included.
        if (!job.hlog_path.empty()) write_file_atomic(job.hlog_path, hlog_document(r));
        write_file_atomic(job.out_path, doc.dump(1) + "\n");
        std::lock_guard<std::mutex> lock(mu);
        res.reports[i] = nlohmann::json::parse(doc.dump());
        ++res.ran;
        if (opts.on_done) opts.on_done(i, false);
      } catch (const Cancelled&) {
        return;
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        return;
      }
    }
  };

  const unsigned n = std::max(1u, std::min<unsigned>(opts.threads, static_cast<unsigned>(jobs.size())));
  if (n == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  for (const auto& r : res.reports) res.missing += !r.has_value();
  res.cancelled = res.missing > 0 && cancelled();
  return res;
}

std::string describe_missing(const std::string& command, const std::vector<RunJob>& jobs, const BatchResult& res,
                             const std::string& dir, const std::function<std::string(std::size_t job)>& label) {
  const std::size_t finished = jobs.size() - res.missing;
  std::string s = finished > 0 ? fmt::format("lbsim {}: interrupted: {} of {} runs missing (the {} finished {} kept "
                                             "in {}):\n",
                                             command, res.missing, jobs.size(), finished,
                                             finished == 1 ? "report is" : "reports are", dir)
                               : fmt::format("lbsim {}: interrupted: {} of {} runs missing (none finished; no report "
                                             "was written):\n",
                                             command, res.missing, jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!res.reports[i]) s += fmt::format("  {} seed {}\n", label(i), jobs[i].seed);
  if (finished > 0) s += "rerun with --resume to run only the missing ones\n";
  return s;
}

std::vector<std::uint64_t> replicate_seeds(std::uint64_t first, std::size_t k) {
  std::vector<std::uint64_t> s;
  for (std::size_t i = 0; i < k; ++i) s.push_back(first + i);
  return s;
}

namespace {
// A folder "holds files" when it has an entry other than lbsim's scratch files (OutLock).
bool holds_files(const std::string& d) {
  std::error_code ec;
  if (!fs::exists(d, ec)) return false;
  if (!fs::is_directory(d, ec)) return true;
  for (auto it = fs::directory_iterator(d, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) || !is_lbsim_scratch(it->path().filename().string())) return true;
  return false;
}

OutDir pick_out_dir(const std::string& dir, bool numbered, bool force, bool resume, const std::string& command) {
  std::error_code ec;
  auto busy = [&](const std::string& d) { return holds_files(d); };
  OutDir out;
  out.dir = dir;
  if (numbered) out.latest = fs::path(dir).lexically_normal().string() + ".latest";
  if (!busy(dir)) return out;
  if (force) {
    out.note = fmt::format("{} exists: overwriting reports in it (--force)", dir);
    return out;
  }
  if (resume) {
    // The newest of dir, dir.2, dir.3, ...: where an interrupted numbered run left its reports.
    if (numbered)
      for (int i = 2; fs::exists(fmt::format("{}.{}", dir, i), ec); ++i) out.dir = fmt::format("{}.{}", dir, i);
    out.note = fmt::format("{} exists: resuming in it", out.dir);
    return out;
  }
  if (!numbered)
    throw ConfigError("--out " + dir, fmt::format("already holds files; --resume continues the {} in it, --force "
                                                  "overwrites its reports; or name another folder",
                                                  command));
  for (int i = 2;; ++i) {
    const std::string alt = fmt::format("{}.{}", dir, i);
    if (!fs::exists(alt, ec)) {
      out.dir = alt;
      out.note = fmt::format("{} holds files: writing to {} instead (--force overwrites {}, --resume continues the "
                             "newest folder); {} points to the newest folder with a report",
                             dir, alt, dir, out.latest);
      return out;
    }
  }
}
}  // namespace

OutDir choose_out_dir(const std::string& dir, bool numbered, bool force, bool resume, const std::string& command,
                      const std::string& lock_tag) {
  // A folder a live lbsim writes into is refused whatever it holds yet (not a sibling chosen
  // instead): the outcome does not depend on how far the other run has come.
  if (const auto pid = out_lock_holder(dir, lock_tag)) throw IoError(folder_in_use(dir, *pid));
  OutDir out = pick_out_dir(dir, numbered, force, resume, command);
  out.lock = std::make_shared<OutLock>(out.dir, lock_tag);
  return out;
}

void mark_latest(const OutDir& out) {
  if (out.latest.empty()) return;
  std::error_code ec;
  const fs::path link = out.latest;
  if (!fs::is_symlink(link, ec) && fs::exists(link, ec)) return;  // never replace a user's file
  // A new link under a name of this process, renamed over the old one (rename(2) replaces it
  // atomically); the temporary links of dead runs (".NAME.latest.PID") are removed.
  const std::string stem = "." + link.filename().string() + ".";
  const fs::path parent = link.has_parent_path() ? link.parent_path() : fs::path(".");
  for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(stem)) continue;
    const long pid = std::strtol(name.c_str() + stem.size(), nullptr, 10);
    if (pid > 0 && pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      fs::remove(it->path(), ec);
  }
  const fs::path tmp = parent / fmt::format("{}{}", stem, ::getpid());
  fs::remove(tmp, ec);
  fs::create_directory_symlink(fs::path(out.dir).lexically_normal().filename(), tmp, ec);
  if (ec) return;
  fs::rename(tmp, link, ec);
  if (ec) fs::remove(tmp, ec);
}

std::string hlog_document(const RunResult& r) {
  return hlog::interval_log(r.timeline, r.window,
                            fmt::format("{} scenario {}, policy {}, seed {}; latencies in ns", kHlogMark, r.scenario,
                                        r.policy_name, r.seed));
}

std::size_t remove_lbsim_documents(const std::string& dir) {
  std::error_code ec;
  std::size_t removed = 0;
  if (!fs::is_directory(dir, ec)) return 0;
  std::vector<fs::path> victims;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto ext = it->path().extension();
    if (!it->is_regular_file(ec) || (ext != ".json" && ext != ".hlog")) continue;
    std::ifstream in(it->path());
    std::string head(256, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (head.find("\"schema\": \"lbsim.") != std::string::npos || head.find("\"schema\":\"lbsim.") != std::string::npos ||
        head.find(kHlogMark) != std::string::npos)
      victims.push_back(it->path());
  }
  for (const auto& p : victims) removed += fs::remove(p, ec) ? 1 : 0;
  return removed;
}

}  // namespace lbsim
