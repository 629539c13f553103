// Batches of independent runs (policies x seeds x grid points) on a pool of threads.
//
// Every job is run_simulation(scenario, policy, seed), a pure function, so the reports (outside
// "engine") do not depend on the thread count or the completion order. Each finished report is
// written atomically to its own file at once, so an interrupted batch keeps every finished run and
// never leaves a partial file. With `resume`, a job whose file already holds a valid report of the
// same scenario (content hash), policy and seed is not run again.
//
// Cancellation: when *cancel becomes true, no new job starts and running simulations stop at
// their next progress poll (well under a second); their reports are not written.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/scenario.hpp"
#include "sim/runner/out_lock.hpp"

namespace lbsim {

struct RunJob {
  const Scenario* scenario = nullptr;
  const PolicyEntry* policy = nullptr;
  std::uint64_t seed = 0;
  std::string out_path;  // where the report goes
  std::string hlog_path;  // when set, the HdrHistogram interval log goes here (before the report)
};

struct BatchOptions {
  unsigned threads = 1;
  bool resume = false;
  const std::atomic<bool>* cancel = nullptr;
  // Called (under a lock) after each job: `reused` when resume found its report.
  std::function<void(std::size_t job, bool reused)> on_done;
  // With `resume`: called once, before any run starts, with why each job runs again ("" for a
  // job whose report is kept; see existing_report), e.g. to print describe_resume().
  std::function<void(const std::vector<std::string>& why)> on_resume;
};

struct BatchResult {
  std::vector<std::optional<nlohmann::json>> reports;  // per job; nullopt when not finished
  std::size_t ran = 0, reused = 0, missing = 0;
  bool cancelled = false;
};

BatchResult run_batch(const std::vector<RunJob>& jobs, const BatchOptions& opts);

// Tells the user which runs an interrupted batch left missing ("<label(i)> seed <s>" each) and
// where the finished reports are (only when there are some: a folder is named only if it exists).
std::string describe_missing(const std::string& command, const std::vector<RunJob>& jobs, const BatchResult& res,
                             const std::string& dir, const std::function<std::string(std::size_t job)>& label);

// A valid report of this scenario/policy/seed at `path`, or nullopt; also nullopt when the job
// wants an HdrHistogram log (hlog_path) that is not beside it, so that the run is done again.
// `why` (when given) receives the reason of a nullopt: "no report yet", "its report is of another
// scenario (...)", ...
std::optional<nlohmann::json> existing_report(const std::string& path, const RunJob& job, std::string* why = nullptr);

// What `--resume` keeps and why the rest runs again (issue 44 point 19), for stderr: one line with
// the counts, then one line per reason with the runs it concerns ("<label(i)> seed <s>", at most
// five named). `why[i]` is "" for a kept report.
std::string describe_resume(const std::string& command, const std::string& dir, const std::vector<RunJob>& jobs,
                            const std::vector<std::string>& why,
                            const std::function<std::string(std::size_t job)>& label);

// The seeds of `--seeds K` starting at `first`: first, first + 1, ..., first + K - 1.
std::vector<std::uint64_t> replicate_seeds(std::uint64_t first, std::size_t k);

// lbsim's own JSON documents (reports, aggregates, sweeps: "schema": "lbsim.*") under `dir`,
// removed: `run --force` replaces a folder's results, so no stale report of an earlier run stays
// beside the new ones. Other files are kept. Returns how many were removed.
std::size_t remove_lbsim_documents(const std::string& dir);

// The comment that marks an HdrHistogram interval log as lbsim's (so --force may remove it).
inline constexpr const char* kHlogMark = "lbsim.hlog:";
struct RunResult;
// A run's latency timeline as an HdrHistogram interval log (sim/metrics/hlog.hpp).
std::string hlog_document(const RunResult& r);

// Output folders (docs/commands.md, "Output folders"). lbsim writes only inside the folder the user
// names, and `.latest` only ever points at a folder that holds a report:
// - Numbered (run: OUT/<scenario>; sweep without --out: results/<scenario>/sweep): a folder that
//   holds files gets a new sibling "dir.N" (N = 2, 3, ...), unless `force` (write into dir) or
//   `resume` (continue the newest of dir, dir.2, ...). "dir.latest" is pointed at the chosen folder
//   by mark_latest(), which the command calls once a report is in it.
// - Exact (sweep --out DIR): DIR itself; one that holds files is a ConfigError unless `force` or
//   `resume`. No link and no sibling is made.
// Every chosen folder is locked for the command's life (sim/runner/out_lock.hpp): a folder another
// lbsim holds is an IoError (exit 1) naming it and that process; lbsim's scratch files (its lock
// file, a dead run's temporaries) do not make a folder "hold files", and a dead run's temporaries
// are removed once the lock is held.
struct OutDir {
  std::string dir;     // where the reports go
  std::string latest;  // the link to point at `dir` once a report is in it ("" for none)
  std::string note;    // what was chosen, for stderr ("" when dir was free)
  std::shared_ptr<OutLock> lock;  // held until the last copy goes
};
// `lock_tag`: "" or "shard-I-of-N" (OutLock).
OutDir choose_out_dir(const std::string& dir, bool numbered, bool force, bool resume, const std::string& command,
                      const std::string& lock_tag = "");
// Points out.latest (when set) at out.dir: a new link under a temporary name renamed over the old
// one, so that `.latest` always names a folder. Best effort: a file system without links has none.
void mark_latest(const OutDir& out);
}  // namespace lbsim
