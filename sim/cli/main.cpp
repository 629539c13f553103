// lbsim: entry point. Dispatches to the registered commands and maps errors to exit codes:
// 0 success, 1 output/system failure (and `run` when a run completed no operation successfully),
// 2 bad input (with the JSON path or option named).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/command.hpp"
#include "sim/core/error.hpp"

namespace lbsim::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> cmds;
  return cmds;
}

void print_help() {
  std::cout << "lbsim: a discrete-event simulator of Cassandra/ScyllaDB driver load-balancing policies\n\n"
               "usage: lbsim COMMAND [OPTIONS]   (lbsim COMMAND --help for a command's options)\n\n"
               "commands:\n";
  for (const auto& c : commands()) std::printf("  %-10s %s\n", c.name.c_str(), c.summary.c_str());
  std::cout << "\nexit codes: 0 success; 1 output or system failure, or a run that completed no operation "
               "successfully (its reports are kept); 2 bad input; 130 interrupted\n";
}
}  // namespace

bool register_command(Command cmd) {
  registry().push_back(std::move(cmd));
  return true;
}

const std::vector<Command>& commands() {
  auto& r = registry();
  std::sort(r.begin(), r.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  return r;
}

std::int64_t int_option(const po::variables_map& vm, const char* name, std::int64_t lo, std::int64_t hi) {
  const std::int64_t v = vm[name].as<std::int64_t>();
  if (v < lo || v > hi) throw ConfigError(std::string("--") + name, fmt::format("must be in [{}, {}], got {}", lo, hi, v));
  return v;
}

void refuse_threads_option(const std::string& command, const po::variables_map& vm) {
  if (vm.count("threads"))
    throw ConfigError("--threads", fmt::format("renamed --jobs (simulations run in parallel); the load generator's "
                                               "threads are the scenario's client.threads: lbsim {} ... --set "
                                               "client.threads={}",
                                               command, vm["threads"].as<std::string>()));
}

bool parse_options(const std::string& command, const std::string& usage, const std::vector<std::string>& args,
                   po::options_description& opts, const po::positional_options_description& positional,
                   po::variables_map& vm) {
  opts.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(opts).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: lbsim " << command << " " << usage << "\n\n" << opts << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError("lbsim " + command, std::string(e.what()) + " (see lbsim " + command + " --help)");
  }
  return true;
}

}  // namespace lbsim::cli

int main(int argc, char** argv) {
  using namespace lbsim;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    cli::print_help();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "lbsim 0.1.0\n";
    return 0;
  }
  for (const auto& c : cli::commands()) {
    if (c.name != args[0]) continue;
    try {
      return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
    } catch (const ConfigError& e) {
      std::cerr << "lbsim " << args[0] << ": error: " << e.what() << "\n";
      return 2;
    } catch (const IoError& e) {
      std::cerr << "lbsim " << args[0] << ": error: " << e.what() << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "lbsim " << args[0] << ": internal error: " << e.what() << "\n";
      return 1;
    }
  }
  std::string names;
  for (const auto& c : cli::commands()) names += (names.empty() ? "" : ", ") + c.name;
  std::cerr << "lbsim: unknown command '" << args[0] << "'; valid: " << names << "\n";
  return 2;
}
