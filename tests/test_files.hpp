// Small file helpers shared by the tests that drive the lbsim binary.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace lbsim::testing_files {

// The whole file as bytes ("" when it does not exist).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a shell command line; its exit code, or -1 when it did not exit normally.
inline int shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// In a forked child: stderr to `err`, stdout to /dev/null, then the lbsim binary with `args`.
[[noreturn]] inline void exec_lbsim(const std::vector<std::string>& args, const std::filesystem::path& err) {
  const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  const int null = ::open("/dev/null", O_WRONLY);
  dup2(null, 1);
  std::vector<char*> argv{const_cast<char*>(LBSIM_BINARY)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(LBSIM_BINARY, argv.data());
  _exit(127);
}

}  // namespace lbsim::testing_files
