#include "sim/runner/runner.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/metrics/hlog.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim {

namespace fs = std::filesystem;

std::optional<nlohmann::json> existing_report(const std::string& path, const RunJob& job) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  if (!job.hlog_path.empty() && !fs::is_regular_file(job.hlog_path, ec)) return std::nullopt;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    auto j = jsonin::parse_text(ss.str(), path);  // a repeated key: not a finished report, run again
    if (j.value("schema", std::string()) == kReportSchema && j["scenario"].value("hash", std::string()) == job.scenario->hash &&
        j["policy"].value("name", std::string()) == job.policy->name && j.value("seed", std::uint64_t{0}) == job.seed)
      return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

BatchResult run_batch(const std::vector<RunJob>& jobs, const BatchOptions& opts) {
  BatchResult res;
  res.reports.resize(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  auto cancelled = [&] { return opts.cancel && opts.cancel->load(); };

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
        if (opts.resume) {
          if (auto old = existing_report(job.out_path, job)) {
            std::lock_guard<std::mutex> lock(mu);
            res.reports[i] = std::move(*old);
            ++res.reused;
            if (opts.on_done) opts.on_done(i, true);
            continue;
          }
        }
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

OutDir choose_out_dir(const std::string& dir, bool numbered, bool force, bool resume, const std::string& command) {
  std::error_code ec;
  auto busy = [&](const std::string& d) { return fs::exists(d, ec) && !(fs::is_directory(d, ec) && fs::is_empty(d, ec)); };
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
    out.note = fmt::format("{} exists: resuming, finished runs are kept", out.dir);
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

void mark_latest(const OutDir& out) {
  if (out.latest.empty()) return;
  std::error_code ec;
  const fs::path link = out.latest;
  if (!fs::is_symlink(link, ec) && fs::exists(link, ec)) return;  // never replace a user's file
  fs::remove(link, ec);
  fs::create_directory_symlink(fs::path(out.dir).lexically_normal().filename(), link, ec);
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
