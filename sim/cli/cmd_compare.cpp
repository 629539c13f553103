// `lbsim compare REPORT_OR_DIR... [--baseline NAME] [--format text|md|csv|json | --json] [--mix-scenarios]`
#include <filesystem>
#include <iostream>

#include "sim/cli/command.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/report/aggregate.hpp"
#include "sim/report/compare.hpp"
#include "sim/report/report_shape.hpp"
#include "sim/runner/sweep.hpp"

namespace lbsim::cli {
namespace {

std::string compare_text(const std::vector<std::string>& inputs, CompareOptions& o);

int run_compare(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("inputs", po::value<std::vector<std::string>>()->required(), "report files or folders of reports, or one sweep.json")(
      "baseline", po::value<std::string>()->default_value(""), "policy the ratios refer to (default: the first)")(
      "format", po::value<std::string>()->default_value("text"), "text | md | csv | json")(
      "json", po::bool_switch(), "print JSON: the same as --format json")(
      "mix-scenarios", po::bool_switch(), "compare reports of different scenarios or schema versions anyway")(
      "force", po::bool_switch(), "deprecated spelling of --mix-scenarios");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  if (!parse_options("compare", "REPORT_OR_DIR... [--baseline NAME] [--format text|md|csv|json | --json] [--mix-scenarios]",
                     args, opts, pos, vm))
    return 0;
  CompareOptions o;
  std::string f = vm["format"].as<std::string>();
  if (vm["json"].as<bool>()) {
    if (!vm["format"].defaulted() && f != "json")
      throw ConfigError("--json, --format " + f, "give one of them (--json is --format json)");
    f = "json";
  }
  if (f == "text") o.format = CompareFormat::Text;
  else if (f == "md") o.format = CompareFormat::Markdown;
  else if (f == "csv") o.format = CompareFormat::Csv;
  else if (f == "json") o.format = CompareFormat::Json;
  else throw ConfigError("--format", "unknown format '" + f + "'; valid: text, md, csv, json");
  o.baseline = vm["baseline"].as<std::string>();
  o.force = vm["mix-scenarios"].as<bool>() || deprecated_option("compare", vm, "force", "--mix-scenarios");
  // A sweep document: its points as one long table (csv, md), or its tables (text), or itself (json).
  const auto inputs = vm["inputs"].as<std::vector<std::string>>();
  std::string text;
  try {
    text = compare_text(inputs, o);
  } catch (const nlohmann::json::exception& e) {
    throw malformed_documents(inputs, e);
  }
  std::cout << text;
  return 0;
}

// The output of `lbsim compare` on `inputs`.
std::string compare_text(const std::vector<std::string>& inputs, CompareOptions& o) {
  if (inputs.size() == 1 && std::filesystem::is_regular_file(inputs[0])) {
    const nlohmann::json doc = jsonin::load_file(inputs[0]);
    if (doc.is_object() && doc.value("schema", std::string()) == kSweepSchema) {
      check_sweep_shape(doc, inputs[0]);
      if (o.format == CompareFormat::Csv || o.format == CompareFormat::Markdown)
        return sweep_rows(doc, o.format == CompareFormat::Markdown);
      if (o.format == CompareFormat::Json) return doc.dump(1) + "\n";
      return sweep_table(doc);
    }
  }
  const auto reports = load_reports(inputs, &o.files);
  return render_comparison(compare_reports(reports, o), o.format);
}

}  // namespace

LBSIM_REGISTER_COMMAND("compare", "one table of headline metrics per policy, with ratios, 95% CIs and Welch tests", run_compare)

}  // namespace lbsim::cli
