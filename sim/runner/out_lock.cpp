#include "sim/runner/out_lock.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <string>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/error.hpp"
#include "sim/core/exit_cleanup.hpp"

namespace lbsim {

namespace fs = std::filesystem;

namespace {

std::string lock_name(const std::string& tag) { return tag.empty() ? ".lbsim.lock" : ".lbsim-" + tag + ".lock"; }

long read_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::strtol(buf, nullptr, 10) : 0;
}

}  // namespace

std::string folder_in_use(const std::string& dir, long pid) {
  return fmt::format("{} is in use by another lbsim (process {}): two runs writing into one folder would mix their "
                     "reports; wait for it to end, or give another --out",
                     dir, pid);
}

bool is_lbsim_scratch(const std::string& f) {
  static const std::regex lock(R"(\.lbsim(-shard-[0-9]+-of-[0-9]+)?\.lock)");
  // write_file_atomic's template: "." + the file's name + "." + mkstemp's six characters.
  static const std::regex temp(R"(\..+\.(json|hlog|html|txt|csv|prom|md)\.[A-Za-z0-9]{6})");
  return std::regex_match(f, lock) || std::regex_match(f, temp);
}

std::optional<long> out_lock_holder(const std::string& dir, const std::string& tag) {
  const std::string path = (fs::path(dir) / lock_name(tag)).string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<long> holder;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) holder = read_pid(fd);
  ::close(fd);  // also drops the shared lock when it was granted
  return holder;
}

std::size_t remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> victims;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) && name.find(".lbsim") != 0 && is_lbsim_scratch(name)) victims.push_back(it->path());
  }
  std::size_t n = 0;
  for (const auto& p : victims) n += fs::remove(p, ec) ? 1 : 0;
  return n;
}

OutLock::OutLock(const std::string& dir, const std::string& tag) : dir_(dir) {
  std::error_code ec;
  for (fs::path p = fs::path(dir).lexically_normal(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    created_ = p.string();
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) throw IoError(fmt::format("cannot create folder '{}': {}", dir, ec.message()));
  path_ = (fs::path(dir) / lock_name(tag)).string();
  // Opened, locked, then checked to be still the file under that name: a holder that released
  // (unlinked) it between our open and our flock left us an orphan inode; then again.
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw IoError(fmt::format("cannot create the lock file '{}': {}", path_, std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const long pid = read_pid(fd_);
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK)
        throw IoError(folder_in_use(dir, pid));
      throw IoError(fmt::format("cannot lock '{}': {}", path_, std::strerror(err)));
    }
    struct stat a {}, b {};
    if (::fstat(fd_, &a) == 0 && ::stat(path_.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) break;
    ::close(fd_);
  }
  const std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock holds without the pid; a rival only names the process less well.
  }
  if (tag.empty()) stale_removed_ = remove_stale_temporaries(dir);
  set_exit_cleanup([this] { release(); });
}

OutLock::~OutLock() {
  set_exit_cleanup(nullptr);
  release();
}

void OutLock::release() noexcept {
  if (released_.exchange(true) || fd_ < 0) return;
  ::unlink(path_.c_str());  // while still locked: a rival that opened it re-checks the name
  ::close(fd_);
  std::error_code ec;
  if (created_.empty()) return;
  // From the folder up to the outermost one this lock created, while they are empty.
  const fs::path top = created_;
  for (fs::path p = fs::path(dir_).lexically_normal(); !p.empty(); p = p.parent_path()) {
    if (!fs::is_empty(p, ec) || !fs::remove(p, ec) || p == top || p == p.parent_path()) break;
  }
}

}  // namespace lbsim
