#include "sim/runner/runner.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sim/engine/simulation.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim {

namespace fs = std::filesystem;

std::optional<nlohmann::json> existing_report(const std::string& path, const RunJob& job) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    auto j = nlohmann::json::parse(ss.str());
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
  std::string s = fmt::format("lbsim {}: interrupted: {} of {} runs missing (finished reports are kept in {}):\n",
                              command, res.missing, jobs.size(), dir);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!res.reports[i]) s += fmt::format("  {} seed {}\n", label(i), jobs[i].seed);
  return s;
}

std::vector<std::uint64_t> replicate_seeds(std::uint64_t first, std::size_t k) {
  std::vector<std::uint64_t> s;
  for (std::size_t i = 0; i < k; ++i) s.push_back(first + i);
  return s;
}

std::string choose_out_dir(const std::string& dir, bool force, bool resume, std::string& note, bool resumable) {
  std::error_code ec;
  const bool busy = fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec));
  if (!busy) return dir;
  if (force) {
    note = fmt::format("{} exists: overwriting reports in it (--force)", dir);
    return dir;
  }
  if (resume) {
    note = fmt::format("{} exists: resuming, finished runs are kept", dir);
    return dir;
  }
  for (int i = 2;; ++i) {
    const std::string alt = fmt::format("{}.{}", dir, i);
    if (!fs::exists(alt, ec)) {
      note = fmt::format("{} exists: writing to {} instead (--force overwrites{})", dir, alt,
                         resumable ? ", --resume continues" : "");
      return alt;
    }
  }
}

}  // namespace lbsim
