// The shape of the lbsim documents that `compare`, `report` and `merge` read back: a report,
// aggregate or sweep edited by hand or truncated by another tool fails here, as bad input naming
// the file and the JSON path of the first field of the wrong type, instead of deep inside a
// renderer as an nlohmann type_error ("internal error", exit 1).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

namespace lbsim {

// ConfigError "FILE: /PATH: must be T, got U" for a report (lbsim.report/N) whose known fields have
// the wrong type; required: schema, policy.name, scenario.name and scenario.hash.
void check_report_shape(const nlohmann::json& doc, const std::string& file);
// The same for a sweep document (lbsim.sweep/N) or one of its slices.
void check_sweep_shape(const nlohmann::json& doc, const std::string& file);
void check_sweep_shape(const nlohmann::ordered_json& doc, const std::string& file);

// What a reader says when a document passed the checks above and a renderer still met a field of
// the wrong type (an nlohmann exception): bad input, naming the inputs and nlohmann's complaint.
ConfigError malformed_documents(const std::vector<std::string>& inputs, const nlohmann::json::exception& e);

}  // namespace lbsim
