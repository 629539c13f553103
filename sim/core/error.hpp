// Typed errors raised at the boundary (configuration files, command line, I/O).
// ConfigError always names where the problem is: a file and a JSON path such as
// "/cluster/num_tokens". The CLI maps it to exit code 2 and writes no output file.
#pragma once
#include <stdexcept>
#include <string>

namespace lbsim {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string path, std::string message)
      : std::runtime_error(path.empty() ? message : path + ": " + message),
        path_(std::move(path)),
        message_(std::move(message)) {}
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }
  // The same error, prefixed by the file it came from: "configs/x.json: /cluster/num_tokens: ...".
  ConfigError in_file(const std::string& file) const {
    return ConfigError(path_.empty() ? file : file + ": " + path_, message_);
  }

 private:
  std::string path_;
  std::string message_;
};

// An output or system failure (unwritable directory, disk full): exit code 1.
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace lbsim
