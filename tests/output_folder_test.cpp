// Issue 44 points 15, 8 and 18: an interrupt at any point of `run` / `sweep` ends the command
// within a second with exit 130 and only complete reports; one lbsim at a time writes into an
// output folder; `.latest` is replaced atomically and a killed run's temporaries are removed by
// the next run in its folder. The phases "set-up" and "report writing" are reached through the
// test-only pause points (LBSIM_PAUSE_AT, sim/core/exit_cleanup.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/runner/runner.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using ::lbsim::testing_files::slurp;
using Clock = std::chrono::steady_clock;

// Starts lbsim with `args` (stdout to /dev/null, stderr to `err`), LBSIM_PAUSE_AT=`pause` when set.
pid_t start(const std::vector<std::string>& args, const fs::path& err, const std::string& pause = "") {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!pause.empty()) setenv("LBSIM_PAUSE_AT", pause.c_str(), 1);
    lbsim::testing_files::exec_lbsim(args, err);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

int run_to_end(const std::vector<std::string>& args, const fs::path& err) { return wait_exit(start(args, err)); }

// Waits (up to 30 s) until `err` holds `text`.
bool wait_for_text(const fs::path& err, const std::string& text) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    if (slurp(err).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// Regular files under `dir` whose names start with a dot other than the lock (temporaries).
std::vector<std::string> hidden_files(const fs::path& dir) {
  std::vector<std::string> v;
  if (!fs::exists(dir)) return v;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().starts_with(".")) v.push_back(e.path().string());
  return v;
}

std::vector<std::string> run_args(const fs::path& out, const std::string& ops) {
  return {"run", std::string(LBSIM_SOURCE_DIR) + "/configs/default.json", "--policy", "random", "--policy", "neutral",
          "--set", "workload.ops=" + ops, "--quiet", "--out", out.string()};
}

// True once `pid` catches `sig` (SigCgt in /proc/PID/status): lbsim's handler is installed.
bool handler_installed(pid_t pid, int sig) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  const std::uint64_t bit = std::uint64_t{1} << (sig - 1);
  while (Clock::now() < deadline) {
    std::ifstream status(fmt::format("/proc/{}/status", pid));
    std::string line;
    while (std::getline(status, line))
      if (line.starts_with("SigCgt:") && (std::stoull(line.substr(7), nullptr, 16) & bit) != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

struct Stop {
  int rc;
  double seconds;  // from the signal to the exit
  std::string err;
};

// Starts `args`, waits for the pause point `pause` ("" for the event loop: the first report's
// progress is not visible, so 0.4 s after the handler's start), sends `sig`, waits for the exit.
Stop interrupt_at(const std::vector<std::string>& args, const fs::path& err, const std::string& pause, int sig) {
  const pid_t pid = start(args, err, pause);
  EXPECT_TRUE(handler_installed(pid, sig));
  if (!pause.empty()) EXPECT_TRUE(wait_for_text(err, "paused at " + pause)) << slurp(err);
  else std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto t0 = Clock::now();
  kill(pid, sig);
  const int rc = wait_exit(pid);
  return {rc, std::chrono::duration<double>(Clock::now() - t0).count(), slurp(err)};
}

// Point 15: SIGINT and SIGTERM during set-up, during the event loop and while a report is written
// each end `run` and `sweep` within 1 s with exit 130, leaving only whole reports and no temporary.
TEST(OutputFolder, InterruptInEveryPhaseExits130WithinOneSecond) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-phases-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  int i = 0;
  for (const std::string phase : {"setup", "", "report"}) {
    for (const int sig : {SIGINT, SIGTERM}) {
      for (const bool sweep : {false, true}) {
        const fs::path out = root / fmt::format("o{}", i++);
        std::vector<std::string> args = run_args(out, "20000000");
        if (sweep) {
          args = {"sweep", std::string(LBSIM_SOURCE_DIR) + "/configs/default.json", "--set", "client.threads=8,16",
                  "--set", "workload.ops=20000000", "--policy", "random", "--jobs", "2", "--quiet", "--out",
                  out.string()};
        }
        // Report writing: with ops that end quickly, the first report's write is reached.
        if (phase == "report") args[sweep ? 5 : 7] = "workload.ops=3000";
        const Stop s = interrupt_at(args, root / fmt::format("{}.err", i), phase, sig);
        const std::string what = fmt::format("{} {} signal {}", sweep ? "sweep" : "run", phase.empty() ? "loop" : phase, sig);
        EXPECT_EQ(s.rc, 130) << what << "\n" << s.err;
        EXPECT_LT(s.seconds, 1.0) << what << "\n" << s.err;
        EXPECT_TRUE(hidden_files(out).empty()) << what << ": " << fmt::format("{}", fmt::join(hidden_files(out), ", "));
        if (fs::exists(out)) {
          for (const auto& e : fs::recursive_directory_iterator(out)) {
            if (e.is_regular_file() && e.path().extension() == ".json") {
              EXPECT_TRUE(nlohmann::json::accept(slurp(e.path()))) << what << ": " << e.path();
            }
          }
        }
        if (phase == "report" && !sweep) {
          // The report being written was dropped: none is on disk, and the folder made for it is gone.
          EXPECT_FALSE(fs::exists(out / "default")) << what;
          EXPECT_NE(s.err.find("no report was written"), std::string::npos) << what << "\n" << s.err;
        }
        std::printf("%s: exit %d after %.3f s\n", what.c_str(), s.rc, s.seconds);
      }
    }
  }
  fs::remove_all(root);
}

// Point 8: a second `run` or `sweep` on a folder that a live lbsim writes into exits 1 at once,
// naming the folder and the process; once the first has ended, the folder is free again.
TEST(OutputFolder, SecondProcessOnOneFolderExits1NamingTheHolder) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-lock-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const pid_t first = start(run_args(root / "r", "3000"), root / "first.err", "setup");
  ASSERT_TRUE(wait_for_text(root / "first.err", "paused at setup")) << slurp(root / "first.err");
  const std::string holder = fmt::format("{} is in use by another lbsim (process {})", (root / "r" / "default").string(), first);
  for (const std::vector<std::string>& more : std::vector<std::vector<std::string>>{{}, {"--force"}, {"--resume"}}) {
    auto args = run_args(root / "r", "3000");
    args.insert(args.end(), more.begin(), more.end());
    const auto t0 = Clock::now();
    EXPECT_EQ(run_to_end(args, root / "second.err"), 1) << slurp(root / "second.err");
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 5.0);
    EXPECT_NE(slurp(root / "second.err").find(holder), std::string::npos) << slurp(root / "second.err");
  }
  EXPECT_FALSE(fs::exists(root / "r" / "default.2")) << "the second run went to a sibling folder";

  // A sweep into an exact folder: the same.
  const std::vector<std::string> sweep{"sweep", std::string(LBSIM_SOURCE_DIR) + "/configs/default.json", "--set",
                                       "client.threads=8", "--set", "workload.ops=3000", "--policy", "random",
                                       "--quiet", "--out", (root / "s").string()};
  const pid_t sweeper = start(sweep, root / "s1.err", "setup");
  ASSERT_TRUE(wait_for_text(root / "s1.err", "paused at setup")) << slurp(root / "s1.err");
  auto resumed = sweep;
  resumed.push_back("--resume");
  EXPECT_EQ(run_to_end(resumed, root / "s2.err"), 1) << slurp(root / "s2.err");
  EXPECT_NE(slurp(root / "s2.err").find(fmt::format("{} is in use by another lbsim (process {})", (root / "s").string(),
                                                    sweeper)),
            std::string::npos)
      << slurp(root / "s2.err");

  // Interrupted before any report: the lock and the folder it made are gone; the next run is free.
  kill(first, SIGTERM);
  kill(sweeper, SIGTERM);
  EXPECT_EQ(wait_exit(first), 130);
  EXPECT_EQ(wait_exit(sweeper), 130);
  EXPECT_FALSE(fs::exists(root / "r" / "default")) << "an interrupted run left its folder";
  EXPECT_FALSE(fs::exists(root / "s"));
  ASSERT_EQ(run_to_end(run_args(root / "r", "3000"), root / "third.err"), 0) << slurp(root / "third.err");
  EXPECT_TRUE(fs::exists(root / "r" / "default" / "neutral.json"));
  EXPECT_FALSE(fs::exists(root / "r" / "default" / ".lbsim.lock")) << "the lock file outlived its run";
  fs::remove_all(root);
}

// Point 18: a run killed (SIGKILL) while writing a report leaves its temporary; the next run in
// that folder removes it, whether it resumes there or starts afresh in a folder holding nothing else.
TEST(OutputFolder, NextRunRemovesAKilledRunsTemporaries) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-stale-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  for (const bool resume : {true, false}) {
    const fs::path out = root / (resume ? "resume" : "fresh");
    const fs::path err = root / (resume ? "k1.err" : "k2.err");
    const pid_t pid = start(run_args(out, "3000"), err, "report");
    if (!wait_for_text(err, "paused at report")) kill(pid, SIGKILL);
    ASSERT_TRUE(wait_for_text(err, "paused at report")) << slurp(err);
    kill(pid, SIGKILL);
    EXPECT_EQ(wait_exit(pid), 1000 + SIGKILL);
    const auto left = hidden_files(out / "default");
    ASSERT_EQ(left.size(), 2u) << "expected the lock file and one temporary";  // .lbsim.lock, .random.json.XXXXXX
    auto args = run_args(out, "3000");
    if (resume) args.push_back("--resume");
    ASSERT_EQ(run_to_end(args, root / "n.err"), 0) << slurp(root / "n.err");
    EXPECT_TRUE(hidden_files(out / "default").empty()) << fmt::format("{}", fmt::join(hidden_files(out / "default"), ", "));
    EXPECT_TRUE(fs::exists(out / "default" / "random.json"));
    EXPECT_FALSE(fs::exists(out / "default.2")) << "a folder holding only a dead run's scratch files is free";
  }
  fs::remove_all(root);
}

// Point 18: `.latest` is never missing while it is repointed (a rename, not unlink + symlink), and
// the temporary links of dead runs are removed.
TEST(OutputFolder, LatestIsReplacedAtomically) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-latest-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root / "x");
  fs::create_directories(root / "x.2");
  fs::create_directory_symlink("x", root / ".x.latest.999999999");  // a dead run's (no such pid)
  OutDir a{(root / "x").string(), (root / "x.latest").string(), "", nullptr};
  OutDir b{(root / "x.2").string(), (root / "x.latest").string(), "", nullptr};
  mark_latest(a);
  EXPECT_FALSE(fs::is_symlink(root / ".x.latest.999999999"));
  std::atomic<bool> stop{false};
  std::atomic<long> missing{0}, looks{0};
  std::thread observer([&] {
    while (!stop.load()) {
      std::error_code ec;
      if (!fs::is_symlink(root / "x.latest", ec)) ++missing;
      ++looks;
    }
  });
  for (int i = 0; i < 4000; ++i) mark_latest(i % 2 ? a : b);
  stop = true;
  observer.join();
  EXPECT_EQ(missing.load(), 0) << "of " << looks.load() << " looks";
  EXPECT_EQ(fs::read_symlink(root / "x.latest"), fs::path("x"));
  for (const auto& e : fs::directory_iterator(root))
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << e.path();
  fs::remove_all(root);
}

}  // namespace
}  // namespace lbsim

namespace lbsim {
namespace {

// Point 19: `run --resume` says which reports it keeps and why it runs the others again: another
// scenario (a different --set) for every report, no report yet for a policy not run before.
TEST(OutputFolder, ResumeSaysWhatItKeptAndWhyTheRestRuns) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-resume-why-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string scenario = std::string(LBSIM_SOURCE_DIR) + "/configs/default.json";
  auto args = [&](const std::string& ops, std::vector<std::string> more) {
    std::vector<std::string> a{"run", scenario, "--set", "workload.ops=" + ops, "--quiet", "--out", root.string(),
                               "--policy", "random"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  ASSERT_EQ(run_to_end(args("3000", {}), root / "1.err"), 0) << slurp(root / "1.err");
  // Another --set: the one report is of another scenario, and the run says so.
  ASSERT_EQ(run_to_end(args("4000", {"--resume"}), root / "2.err"), 0) << slurp(root / "2.err");
  std::string err = slurp(root / "2.err");
  EXPECT_NE(err.find(fmt::format("lbsim run: --resume in {}: 0 of 1 reports kept; 1 to run again:\n  its report is of "
                                 "another scenario (scenario hash ",
                                 (root / "default").string())),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("the scenario file or the --set patches differ): random seed "), std::string::npos) << err;
  EXPECT_EQ(err.find("finished runs are kept"), std::string::npos) << err;
  // The same scenario with a second policy: random's report is kept, neutral has none yet.
  ASSERT_EQ(run_to_end(args("4000", {"--policy", "neutral", "--resume"}), root / "3.err"), 0) << slurp(root / "3.err");
  err = slurp(root / "3.err");
  EXPECT_NE(err.find("1 of 2 reports kept (random seed "), std::string::npos) << err;
  EXPECT_NE(err.find("; 1 to run again:\n  no report yet: neutral seed "), std::string::npos) << err;
  // A sweep: the same account.
  const std::vector<std::string> sweep{"sweep", scenario, "--set", "client.threads=8,16", "--set", "workload.ops=3000",
                                       "--policy", "random", "--quiet", "--out", (root / "s").string()};
  ASSERT_EQ(run_to_end(sweep, root / "s1.err"), 0) << slurp(root / "s1.err");
  fs::remove(root / "s" / "p001" / "random" / fmt::format("seed-{}.json", 42));
  auto resumed = sweep;
  resumed.push_back("--resume");
  ASSERT_EQ(run_to_end(resumed, root / "s2.err"), 0) << slurp(root / "s2.err");
  err = slurp(root / "s2.err");
  EXPECT_NE(err.find("1 of 2 reports kept (p000 random seed 42); 1 to run again:\n  no report yet: p001 random seed 42\n"),
            std::string::npos)
      << err;
  fs::remove_all(root);
}

}  // namespace
}  // namespace lbsim

#include "sim/runner/estimate.hpp"

namespace lbsim {
namespace {

// Point 16: every shipped scenario passes the default limit of a 24 GiB machine (half of it),
// run as `lbsim run` runs it (one simulation at a time, every policy's report kept).
TEST(Estimate, ShippedScenariosFitA24GiBMachine) {
  const double limit = 12.0 * 1024 * 1024 * 1024;
  int checked = 0;
  double worst = 0;
  std::string worst_file;
  for (const char* folder : {"configs", "configs/incidents"}) {
    for (const auto& e : fs::directory_iterator(fs::path(LBSIM_SOURCE_DIR) / folder)) {
      if (e.path().extension() != ".json") continue;
      const std::string text = slurp(e.path());
      if (text.find("\"policies\"") == std::string::npos) continue;  // topology files, fragments
      Scenario sc;
      try {
        sc = load_scenario(e.path().string());
      } catch (const ConfigError&) {
        continue;  // not a scenario by itself
      }
      const ResourceEstimate est = estimate_runs(sc, sc.policies.size(), 1, sc.policies.size());
      EXPECT_LT(est.memory, limit) << e.path() << ": " << format_bytes(est.memory);
      if (est.memory > worst) {
        worst = est.memory;
        worst_file = e.path().filename().string();
      }
      ++checked;
    }
  }
  std::printf("%d shipped scenarios; the largest estimate: %s (%s)\n", checked, format_bytes(worst).c_str(),
              worst_file.c_str());
  EXPECT_GE(checked, 20);
}

// Point 16: the cache term follows lru.hpp's 48 bytes per key, bounded by capacity and keys.
TEST(Estimate, CacheEntriesAreBoundedByCapacityAndKeys) {
  const std::string file = std::string(LBSIM_SOURCE_DIR) + "/configs/cache.json";
  auto cache_term = [](const ResourceEstimate& e) {
    for (const auto& t : e.terms)
      if (t.what.starts_with("cache:")) return t.bytes;
    return -1.0;
  };
  // 3 nodes x 4 shards of 29.3 MiB / 4 = 7,500 partitions of 1 KiB each (60,000 keys x RF 3 is more).
  const Scenario sc = load_scenario(file, {"cluster.cache.capacity_mb=29.296875", "cluster.cache.initial=warm"});
  EXPECT_DOUBLE_EQ(cache_term(estimate_runs(sc, 1, 1, 1)), 12 * 7500 * 48.0);
  // A cache larger than every key's copies: keys x RF entries.
  const Scenario big = load_scenario(file, {"cluster.cache.capacity_mb=100000", "cluster.cache.initial=warm"});
  EXPECT_DOUBLE_EQ(cache_term(estimate_runs(big, 1, 1, 1)), 60000 * 3 * 48.0);
  // 10^9 keys: capacity-bound, 3 nodes x 97.7 GiB / 1 KiB.
  const Scenario huge = load_scenario(file, {"cluster.cache.capacity_mb=100000", "cluster.cache.initial=warm", "workload.keys.count=1000000000"});
  EXPECT_DOUBLE_EQ(cache_term(estimate_runs(huge, 1, 1, 1)), 12 * std::floor(100000.0 * 1048576 / 4 / 1024) * 48);
  EXPECT_EQ(parse_size("16G", "--max-memory"), 16ull << 30);
  EXPECT_EQ(parse_size("512MiB", "--max-memory"), 512ull << 20);
  EXPECT_EQ(parse_size("1000", "--max-memory"), 1000u);
  EXPECT_THROW(parse_size("lots", "--max-memory"), ConfigError);
  EXPECT_THROW(parse_size("-1G", "--max-memory"), ConfigError);
}

// Point 16: `--max-memory` moves the limit: a run refused under 1 MiB (exit 2, the estimate in the
// message, nothing written) runs under 1 GiB.
TEST(Estimate, MaxMemoryRaisesTheLimit) {
  const fs::path root = fs::temp_directory_path() / fmt::format("lbsim-maxmem-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string file = std::string(LBSIM_SOURCE_DIR) + "/configs/cache.json";
  auto args = [&](const std::string& limit) {
    return std::vector<std::string>{"run", file, "--set", "workload.ops=2000", "--set", "workload.warmup_ops=0", "--set", "cluster.cache.initial=warm",
                                    "--policy", "random", "--quiet", "--max-memory", limit, "--out",
                                    (root / "out").string()};
  };
  EXPECT_EQ(run_to_end(args("1M"), root / "a.err"), 2);
  const std::string err = slurp(root / "a.err");
  EXPECT_NE(err.find("lbsim run: error: " + file + ": /cluster/cache/capacity_mb: needs about "), std::string::npos)
      << err;
  EXPECT_NE(err.find("over the limit of 1.0 MiB (--max-memory 1M); pass --max-memory SIZE to raise it"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("cache: 90,000 entries (capacity / mean partition size) x 48 B x 1 simulations = 4.1 MiB"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(root / "out"));
  ASSERT_EQ(run_to_end(args("1G"), root / "b.err"), 0) << slurp(root / "b.err");
  EXPECT_TRUE(fs::exists(root / "out" / "cache" / "random.json"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace lbsim
