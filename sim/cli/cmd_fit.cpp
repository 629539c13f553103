// `lbsim fit FILE_OR_DIR... [-o|--out physics.json] [--force] [--json]`: reads what a real cluster
// and its load generators export (sim/fit/parsers.hpp: nodetool, ScyllaDB's Prometheus text,
// HdrHistogram interval logs, JMX histogram arrays), fits each latency (lognormal, gamma, or an
// empirical table) and writes a scenario fragment with a provenance block per value
// (sim/fit/fit.hpp; docs/fit.md). Every input is read and checked before anything is written: a
// malformed file is a ConfigError "FILE:LINE: ... expected FORMAT" (exit 2) and nothing is written.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "sim/cli/command.hpp"
#include "sim/core/error.hpp"
#include "sim/core/text_input.hpp"
#include "sim/fit/fit.hpp"
#include "sim/fit/parsers.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim::cli {
namespace {

namespace fs = std::filesystem;

// One line is at most 1 MiB (sim/core/text_input.hpp): `lbsim fit /dev/zero` fails after 1 MiB.
std::string slurp(const std::string& file) {
  return read_text_file(file, "one of the formats lbsim fit reads (lbsim fit --help; docs/fit.md)");
}

int run_fit(const std::vector<std::string>& args) {
  po::options_description opts("lbsim fit options");
  opts.add_options()(
      "inputs", po::value<std::vector<std::string>>()->composing(),
      "files, or folders whose files are all read (e.g. one `lbsim run --export` folder)")(
      "out,o", po::value<std::string>(), "write the fragment (JSON) to this file; without it the fragment is printed")(
      "force", po::bool_switch(), "overwrite --out when it exists")(
      "json", po::bool_switch(), "print the fragment even with --out (no summary)");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  if (!parse_options("fit", "FILE_OR_DIR... [-o physics.json] [--force] [--json]", args, opts, pos, vm)) return 0;
  std::vector<std::string> files;
  for (const auto& a : strings_of(vm, "inputs")) {
    if (fs::is_directory(a)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(a))
        if (e.is_regular_file()) in_dir.push_back(e.path().string());
      std::sort(in_dir.begin(), in_dir.end());
      if (in_dir.empty()) throw ConfigError(a, "an empty folder; expected the files to fit");
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) throw ConfigError("FILE", "give at least one file or folder to fit (lbsim fit --help)");
  const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "";
  if (!out.empty() && fs::exists(out) && !vm["force"].as<bool>())
    throw ConfigError("--out", fmt::format("{} exists; --force overwrites it", out));

  std::vector<std::pair<std::string, fit::Parsed>> inputs;
  std::vector<std::string> formats;
  for (const auto& f : files) {
    const std::string text = slurp(f);
    formats.push_back(fit::detect_format(text));
    inputs.push_back({f, fit::parse_text(f, text)});
  }
  const auto doc = fit::fit_fragment(inputs, formats);
  const std::string text = doc.dump(1) + "\n";
  if (!out.empty()) write_file_atomic(out, text);
  if (out.empty() || vm["json"].as<bool>()) {
    std::cout << text;
    return 0;
  }
  for (const auto& [key, p] : doc["provenance"].items()) {
    std::cout << key << ": " << p.value("written_as", "");
    if (p.contains("mean_us")) std::cout << fmt::format(", mean {} us", p["mean_us"].dump());
    if (p.contains("p99_us")) std::cout << fmt::format(", p99 {} us", p["p99_us"].dump());
    if (p.contains("fit_error")) std::cout << fmt::format(", fit error {:.1f} %", 100 * p["fit_error"].get<double>());
    if (p.contains("file")) std::cout << "\n    from " << p["file"].get<std::string>() << " " << p.value("metric", "");
    std::cout << "\n";
  }
  if (doc["provenance"].empty()) std::cout << "no scenario value could be fitted from these files\n";
  for (const auto& w : doc["warnings"]) std::cout << "warning: " << w.get<std::string>() << "\n";
  fmt::print("fragment: {}\nuse it: lbsim run SCENARIO --physics {}\n", out, out);
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("fit", "fit service-time distributions from a real cluster's metrics and load-generator logs", run_fit)

}  // namespace lbsim::cli
