// `lbsim merge SLICE_OR_DIR... -o|--out FILE`: joins the `--shard I/N` slices of a sweep into the
// aggregate that one machine would have written. Folders are searched for sweep.shard-*.json.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/report/aggregate.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/report/report_json.hpp"
#include "sim/report/report_shape.hpp"
#include "sim/runner/sweep.hpp"

namespace lbsim::cli {
namespace {

int run_merge(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("inputs", po::value<std::vector<std::string>>()->required(), "slice files or folders")(
      "out,o", po::value<std::string>()->required(), "the merged sweep document to write (e.g. DIR/sweep.json)");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  if (!parse_options("merge", "SLICE_OR_DIR... -o|--out FILE", args, opts, pos, vm)) return 0;
  std::vector<std::string> files;
  for (const auto& in : vm["inputs"].as<std::vector<std::string>>()) {
    if (std::filesystem::is_directory(in)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(in)) {
        const std::string name = e.path().filename().string();
        if (name.starts_with("sweep.shard-") && name.ends_with(".json")) found.push_back(e.path().string());
      }
      if (found.empty())
        throw ConfigError(in, "a folder without sweep.shard-*.json files; expected the slices `lbsim sweep --shard I/N` "
                              "writes, or give the slice files");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(in);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<nlohmann::ordered_json> slices;  // ordered: the merged document keeps the slices' key order
  for (const auto& f : files) {
    slices.push_back(jsonin::load_file_ordered(f));  // a missing, empty or malformed file is a ConfigError naming it
    const auto& sl = slices.back();
    if (!sl.is_object() || !sl.contains("schema") || sl["schema"] != kSweepSchema)
      throw ConfigError(f, fmt::format("not a sweep slice (schema {}); expected the {} document `lbsim sweep` writes",
                                       sl.is_object() && sl.contains("schema") ? sl["schema"].dump()
                                           : std::string("missing"),
                                       kSweepSchema));
    check_sweep_shape(slices.back(), f);
    if (!sl.contains("grid_points")) throw ConfigError(f + ": /grid_points", "required field is missing; expected an integer >= 0");
  }
  nlohmann::ordered_json merged;
  try {
    merged = merge_sweeps(slices);
  } catch (const ConfigError& e) {
    // merge_sweeps numbers the slices from 1, in the order of `files`.
    std::size_t n = 0;
    if (std::sscanf(e.path().c_str(), "slice %zu", &n) == 1 && n >= 1 && n <= files.size())
      throw ConfigError(files[n - 1], e.message());
    throw;
  } catch (const nlohmann::json::exception& e) {
    throw malformed_documents(files, e);
  }
  write_file_atomic(vm["out"].as<std::string>(), merged.dump(1) + "\n");
  std::cout << "merged " << slices.size() << " slice(s) into " << vm["out"].as<std::string>() << "\n"
            << sweep_table(nlohmann::json::parse(merged.dump()));
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("merge", "join the --shard slices of a sweep into one aggregate", run_merge)

}  // namespace lbsim::cli
