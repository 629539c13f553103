// lbsim: entry point. Dispatches to the registered commands and maps errors to exit codes:
// 0 success, 1 output/system failure (and `run` or `sweep` when a run completed no operation successfully),
// 2 bad input (with the JSON path or option named).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/runner/estimate.hpp"

namespace lbsim::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> cmds;
  return cmds;
}

// One convention for every command (also in docs/commands.md, "Options and exit codes").
constexpr const char* kConventions =
    "options, the same in every command that has them:\n"
    "  -o, --out PATH   what the command writes: a folder for run and sweep, a file for import, stress,\n"
    "                   merge and report (lbsim writes nothing outside it)\n"
    "  --force          overwrite: run and sweep reuse an existing output folder (without it, run writes\n"
    "                   a numbered folder beside the old one and sweep refuses)\n"
    "  --resume         run, sweep: keep the finished reports found in the output folder, run the rest\n"
    "  --set PATH=V     patch the scenario or topology file before validation (V is JSON or a bare\n"
    "                   string; PATH=null removes the key); repeatable; client.threads replaces an open\n"
    "                   loop, client.rate_ops_s a closed one; each --set writes its own path\n"
    "  --json           print JSON instead of text\n"
    "  -j, --jobs N     simulations run in parallel (results do not depend on it)\n"
    "  --max-memory SIZE  run, sweep: refuse (exit 2, with the estimate) a command estimated to need more\n"
    "                   memory than SIZE (16G, 512M, ...; default half of this machine's); one lbsim at a time\n"
    "                   writes into an output folder (a second exits 1 naming the first's process)\n"
    "  old spellings (report --output, report/compare --force for --mix-scenarios) still work, with a\n"
    "  note on stderr\n\n"
    "exit codes: 0 success; 1 output or system failure, or a run that completed no operation successfully\n"
    "(its output and reports are kept); 2 bad input (the message names the file, the JSON path and the\n"
    "allowed values; nothing is written); 130 interrupted by Ctrl-C or SIGTERM (finished reports are kept\n"
    "and the missing runs listed; run and sweep --resume continue)\n";

void print_help() {
  std::cout << "lbsim: a discrete-event simulator of Cassandra/ScyllaDB driver load-balancing policies\n\n"
               "usage: lbsim COMMAND [OPTIONS]   (lbsim COMMAND --help for a command's options)\n\n"
               "commands:\n";
  for (const auto& c : commands()) std::printf("  %-10s %s\n", c.name.c_str(), c.summary.c_str());
  std::cout << "\n" << kConventions;
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

MemoryLimit memory_limit(const po::variables_map& vm) {
  if (vm.count("max-memory")) {
    const std::string given = vm["max-memory"].as<std::string>();
    return {static_cast<double>(parse_size(given, "--max-memory")), "--max-memory " + given};
  }
  const std::uint64_t machine = machine_memory_bytes();
  if (machine == 0) return {1e300, "this machine's memory is unknown"};
  return {static_cast<double>(machine) / 2, "half of this machine's " + format_bytes(static_cast<double>(machine))};
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
    // Every command's --set (a patch, or a sweep's axis) writes its own path.
    if (const auto it = vm.find("set"); it != vm.end() && it->second.value().type() == typeid(std::vector<std::string>))
      check_set_paths(it->second.as<std::vector<std::string>>());
  } catch (const po::unknown_option& e) {
    // The valid options, so a misspelling is fixed at once (`lbsim COMMAND --help` has the details).
    const std::string operand = positional.max_total_count() > 0 ? positional.name_for_position(0) : "";
    std::string valid;
    for (const auto& o : opts.options())
      if (!o->long_name().empty() && o->long_name() != operand && !o->description().starts_with("renamed") &&
          !o->description().starts_with("deprecated"))
        valid += (valid.empty() ? "--" : ", --") + o->long_name();
    throw ConfigError("", std::string(e.what()) + "; valid: " + valid + " (see lbsim " + command + " --help)");
  } catch (const po::required_option& e) {
    // A missing operand (SCENARIO, FILE, ...) is not an option the user could have spelt.
    const std::string operand = positional.max_total_count() > 0 ? positional.name_for_position(0) : "";
    if (!operand.empty() && e.get_option_name() == "--" + operand)
      throw ConfigError("", "missing " + usage.substr(0, usage.find(' ')) + "; usage: lbsim " + command + " " + usage);
    throw ConfigError("", std::string(e.what()) + " (see lbsim " + command + " --help)");
  } catch (const po::error& e) {
    // No "lbsim COMMAND" prefix: main adds it to every error.
    throw ConfigError("", std::string(e.what()) + " (see lbsim " + command + " --help)");
  }
  return true;
}

bool deprecated_option(const std::string& command, const po::variables_map& vm, const std::string& old_name,
                       const std::string& instead) {
  const auto it = vm.find(old_name);
  if (it == vm.end() || it->second.defaulted()) return false;
  if (it->second.value().type() == typeid(bool) && !it->second.as<bool>()) return false;
  fmt::print(stderr, "lbsim {}: note: --{} is deprecated; use {}\n", command, old_name, instead);
  return true;
}

// A message that already starts with "lbsim COMMAND: " is printed without it: main adds the prefix.
std::string without_prefix(const std::string& message, const std::string& command) {
  const std::string prefix = "lbsim " + command + ": ";
  return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
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
      std::cerr << "lbsim " << args[0] << ": error: " << cli::without_prefix(e.what(), args[0]) << "\n";
      return 2;
    } catch (const IoError& e) {
      std::cerr << "lbsim " << args[0] << ": error: " << cli::without_prefix(e.what(), args[0]) << "\n";
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
