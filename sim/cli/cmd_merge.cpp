// `lbsim merge SLICE_OR_DIR... -o|--out FILE`: joins the `--shard I/N` slices of a sweep into the
// aggregate that one machine would have written. Folders are searched for sweep.shard-*.json.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>

#include "sim/cli/command.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/report/report_json.hpp"
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
      for (const auto& e : std::filesystem::directory_iterator(in)) {
        const std::string name = e.path().filename().string();
        if (name.starts_with("sweep.shard-") && name.ends_with(".json")) files.push_back(e.path().string());
      }
    } else {
      files.push_back(in);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<nlohmann::ordered_json> slices;  // ordered: the merged document keeps the slices' key order
  for (const auto& f : files) {
    (void)jsonin::load_file(f);  // a missing, empty or malformed file is a ConfigError naming it
    std::ifstream in(f);
    slices.push_back(nlohmann::ordered_json::parse(std::string(std::istreambuf_iterator<char>(in), {})));
  }
  const auto merged = merge_sweeps(slices);
  write_file_atomic(vm["out"].as<std::string>(), merged.dump(1) + "\n");
  std::cout << "merged " << slices.size() << " slice(s) into " << vm["out"].as<std::string>() << "\n"
            << sweep_table(nlohmann::json::parse(merged.dump()));
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("merge", "join the --shard slices of a sweep into one aggregate", run_merge)

}  // namespace lbsim::cli
