// The output folder's lock (issue 44 points 8 and 18): one lbsim at a time writes into a folder.
//
// OutLock takes an exclusive, non-blocking flock(2) on DIR/.lbsim.lock (or, for a `sweep --shard
// I/N` slice, DIR/.lbsim-shard-I-of-N.lock: slices of one sweep share their folder, their files
// never overlap) and writes its pid into it; the kernel drops the lock when the process dies, so a
// lock file left by a killed run holds nothing. A folder another process holds is an IoError
// (exit 1) naming the folder and that process. Once the lock is held, no other lbsim writes into
// the folder, so the temporaries of atomic writes found in it (".NAME.XXXXXX", the template of
// write_file_atomic) are a dead run's and are removed; a slice, which shares the folder with live
// slices, leaves them alone.
#pragma once
#include <atomic>
#include <optional>
#include <string>

namespace lbsim {

class OutLock {
 public:
  // Creates `dir` when missing. `tag` is "" or "shard-I-of-N".
  OutLock(const std::string& dir, const std::string& tag);
  ~OutLock();
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;
  // Unlinks the lock file (and the folders this lock created, when they are left empty), then
  // closes it. Idempotent; also called from the prompt-exit path (sim/core/exit_cleanup.hpp).
  void release() noexcept;
  std::size_t stale_removed() const { return stale_removed_; }

 private:
  std::string dir_, path_;
  int fd_ = -1;
  std::string created_;  // the outermost folder this lock created ("" for none)
  std::atomic<bool> released_{false};
  std::size_t stale_removed_ = 0;
};

// The pid of the live process that holds `dir`'s lock (`tag` as above), or nullopt.
std::optional<long> out_lock_holder(const std::string& dir, const std::string& tag = "");

// The refusal of a folder that process `pid` holds.
std::string folder_in_use(const std::string& dir, long pid);

// True for lbsim's own scratch files in an output folder: its lock files and the temporaries of
// atomic writes (".NAME.XXXXXX" with NAME a file lbsim writes). A folder holding only these is
// free for a new run.
bool is_lbsim_scratch(const std::string& filename);

// Removes the temporaries of atomic writes under `dir` (recursively); returns how many.
std::size_t remove_stale_temporaries(const std::string& dir);

}  // namespace lbsim
