// `lbsim stress [--nodes N] [-o|--out FILE] [--] CASSANDRA-STRESS ARGS...`: a cassandra-stress
// command line as a scenario (sim/config/stress.hpp), validated before it is printed or written.
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/config/stress.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim::cli {
namespace {

constexpr const char* kUsage =
    "usage: lbsim stress [--nodes N] [-o|--out FILE] [--] write|read|mixed n=N|duration=T [cl=CL] [-rate threads=N|fixed=R/s] "
    "[-pop seq=A..B|dist=uniform|gaussian|exp(A..B...)] [-node HOSTS] [-schema replication(...)] ...\n"
    "Translates a cassandra-stress command line into a scenario (printed, or written to FILE); the mapping table is in\n"
    "configs/README.md, \"From cassandra-stress\". What it defaults (replication, datacenter, racks, nodes) and the\n"
    "options about output and transport it ignores are listed on stderr; unmappable values (a consistency level the\n"
    "cluster can never meet, a key distribution lbsim lacks) and unknown options are errors.\n";

int run_stress(const std::vector<std::string>& args) {
  int nodes = 0;
  std::string out;
  std::vector<std::string> cs;
  bool passthrough = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!passthrough && (a == "-h" || a == "--help")) {
      std::cout << kUsage;
      return 0;
    }
    if (!passthrough && a == "--") {
      passthrough = true;
    } else if (!passthrough && (a == "--nodes" || a == "--out" || a == "-o")) {
      if (i + 1 >= args.size()) throw ConfigError(a, "needs a value");
      if (a != "--nodes") {
        out = args[++i];
      } else {
        try {
          nodes = std::stoi(args[++i]);
        } catch (const std::exception&) {
          throw ConfigError("--nodes", "'" + args[i] + "' is not a number");
        }
        if (nodes < 1 || nodes > 10000) throw ConfigError("--nodes", fmt::format("must be in [1, 10000], got {}", nodes));
      }
    } else {
      cs.push_back(a);
    }
  }
  const StressTranslation t = translate_stress(cs, nodes);
  // The translation must be a valid scenario (an error names the cassandra-stress option).
  validate_translation(t);
  for (const auto& n : t.notes) fmt::print(stderr, "lbsim stress: note: {}\n", n);
  const std::string text = t.scenario.dump(2) + "\n";
  if (out.empty()) std::cout << text;
  else write_file_atomic(out, text);
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("stress", "translate a cassandra-stress command line into a scenario", run_stress)

}  // namespace lbsim::cli
