// `lbsim COMMAND ...`: each command lives in its own cmd_<name>.cpp and registers itself here.
// A command returns its exit code. It throws ConfigError for bad input (main prints it and exits
// with 2) and IoError for output failures (exit 1). Options are parsed with Boost.Program_options.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace lbsim::cli {

struct Command {
  std::string name;
  std::string summary;  // one line, for `lbsim --help`
  std::function<int(const std::vector<std::string>& args)> run;  // args exclude "lbsim COMMAND"
};

bool register_command(Command cmd);
const std::vector<Command>& commands();

namespace po = boost::program_options;

// Parses `args` against `opts` (+ positional); prints usage and returns false on --help.
// Unknown options and bad values are ConfigErrors naming the option.
bool parse_options(const std::string& command, const std::string& usage, const std::vector<std::string>& args,
                   po::options_description& opts, const po::positional_options_description& positional,
                   po::variables_map& vm);

// An integer option declared as po::value<std::int64_t> (so that "-2" is read as -2, not wrapped
// into a huge unsigned number), checked against [lo, hi]: a ConfigError naming the option otherwise.
std::int64_t int_option(const po::variables_map& vm, const char* name, std::int64_t lo, std::int64_t hi);

// An old spelling kept working: when `old_name` was given, prints "lbsim COMMAND: note: --OLD is
// deprecated; use INSTEAD" on stderr and returns true. The options' convention is in `lbsim --help`.
bool deprecated_option(const std::string& command, const po::variables_map& vm, const std::string& old_name,
                       const std::string& instead);

// The values of a repeatable string option ("set", "policy", ...): empty when not given.
inline std::vector<std::string> strings_of(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

// The help text of `--set PATH=VALUE` (run, analyze, ring, plan, replicas, import).
inline constexpr const char* kSetHelp =
    "patch the input before validation: PATH=VALUE, e.g. client.threads=64 (VALUE is JSON or a bare string; "
    "PATH=null removes the key); repeatable";

// `--threads` was the simulator's parallelism; it is `--jobs` now, because cassandra-stress's
// `-rate threads=` is the scenario's client.threads. A ConfigError saying so when it is given.
void refuse_threads_option(const std::string& command, const po::variables_map& vm);

// `--max-memory SIZE` (run, sweep): the memory limit in bytes, from the option or half the
// machine's memory (sim/runner/estimate.hpp), and where it comes from, for the refusal's message.
struct MemoryLimit {
  double bytes = 0;
  std::string text;
};
MemoryLimit memory_limit(const po::variables_map& vm);
inline constexpr const char* kMaxMemoryHelp =
    "refuse, before running, a command whose estimated memory exceeds SIZE (bytes, or with K, M, G, T: powers of "
    "1024, e.g. 16G); default: half of this machine's memory. The estimate's terms are in docs/commands.md";

}  // namespace lbsim::cli

#define LBSIM_CMD_CONCAT2(a, b) a##b
#define LBSIM_CMD_CONCAT(a, b) LBSIM_CMD_CONCAT2(a, b)
#define LBSIM_REGISTER_COMMAND(NAME, SUMMARY, FN) \
  namespace {                                     \
  const bool LBSIM_CMD_CONCAT(cmd_registered_, __COUNTER__) = ::lbsim::cli::register_command({NAME, SUMMARY, FN}); \
  }
