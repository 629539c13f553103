// `lbsim stress`: a cassandra-stress command line turned into a scenario (configs/README.md,
// "From cassandra-stress", has the mapping table). Options that change the workload's shape are
// translated; options about output, logging and transport are accepted and listed as ignored;
// anything else is an error naming the option, since silently dropping it would change the
// answer.
// Hand-written: no library parses cassandra-stress options.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "sim/core/json_reader.hpp"

namespace lbsim {

struct StressTranslation {
  jsonin::Json scenario;
  std::vector<std::string> notes;  // what was approximated, defaulted or ignored
  // Where parts of the scenario come from: a JSON pointer prefix and the cassandra-stress option
  // ("/workload/consistency", "cl=QUORUM"), so that validation errors name the option.
  std::vector<std::pair<std::string, std::string>> sources;
};

// `args` are the cassandra-stress arguments ("write", "n=1000", "cl=ONE", "-rate", "threads=16",
// ...); a leading "cassandra-stress" is skipped. `nodes` overrides the node count (0: the number
// of -node hosts, else 3). ConfigError (path "cassandra-stress <option>") on what it cannot map.
StressTranslation translate_stress(const std::vector<std::string>& args, int nodes = 0);

// Validates the translated scenario; a ConfigError names the cassandra-stress option behind the
// field at fault ("cassandra-stress cl=TWO: /workload/consistency/write: TWO needs 2 replicas ...").
void validate_translation(const StressTranslation& t);

}  // namespace lbsim
