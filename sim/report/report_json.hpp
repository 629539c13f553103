// The lbsim.report/1 JSON document of one run (results/README.md documents every field) and
// atomic report files.
//
// Contract: report_json() is a pure function of the RunResult; keys come in a fixed order and
// numbers are rounded to fixed decimals, so two runs of the same scenario and seed give
// byte-identical documents except for the "engine" object (wall time, memory), which is last.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/metrics/run_result.hpp"

namespace lbsim {

inline constexpr const char* kReportSchema = "lbsim.report/1";

nlohmann::ordered_json report_json(const RunResult& r);
// The same document without "engine" (what the golden test and determinism checks compare).
nlohmann::ordered_json report_json_stable(const RunResult& r);

// Writes `text` to `path` atomically: a temporary file in the same folder, flushed, then renamed
// over `path`. Creates missing parent folders. Throws IoError (and leaves no partial file).
void write_file_atomic(const std::string& path, const std::string& text);

// Every *.json file below `dir` (recursively, sorted by path) that parses as JSON, in order;
// files that are not JSON are skipped (a results folder may hold anything).
void for_each_json_document(const std::string& dir,
                            const std::function<void(const std::string& path, nlohmann::json doc)>& fn);

// "results/<scenario>/<policy>.json" under `out_dir`.
std::string report_path(const std::string& out_dir, const std::string& scenario, const std::string& policy);

}  // namespace lbsim
