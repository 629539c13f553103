// `lbsim report DIR... -o|--out report.html [--baseline NAME] [--mix-scenarios]`: one self-contained HTML page
// (inline SVG charts and CSS, no scripts or external resources) over run reports, replicate
// aggregates and sweeps found in DIR (recursively). Written atomically.
#include <iostream>

#include "sim/cli/command.hpp"
#include "sim/report/report_shape.hpp"
#include "sim/core/error.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim::cli {
namespace {

int run_report(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("inputs", po::value<std::vector<std::string>>()->required(),
                     "folders (searched recursively) or files: lbsim.report/1, lbsim.aggregate/1, lbsim.sweep/1")(
      "out,o", po::value<std::string>(), "the HTML file to write (required)")(
      "baseline", po::value<std::string>()->default_value(""), "policy the comparison ratios refer to (default: the first)")(
      "mix-scenarios", po::bool_switch(), "include reports of different scenarios or schema versions anyway (with a warning)")(
      "output", po::value<std::string>(), "deprecated spelling of --out")(
      "force", po::bool_switch(), "deprecated spelling of --mix-scenarios");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  if (!parse_options("report", "DIR... -o report.html [--baseline NAME] [--mix-scenarios]", args, opts, pos, vm)) return 0;
  const bool old_out = deprecated_option("report", vm, "output", "--out (or -o)");
  if (old_out && vm.count("out")) throw ConfigError("--out, --output", "give one of them (--output is the old spelling of --out)");
  if (!old_out && !vm.count("out")) throw ConfigError("--out", "required: the HTML file to write, e.g. -o report.html");
  HtmlReportOptions o;
  o.baseline = vm["baseline"].as<std::string>();
  o.force = vm["mix-scenarios"].as<bool>() || deprecated_option("report", vm, "force", "--mix-scenarios");
  const std::string out = vm[old_out ? "output" : "out"].as<std::string>();
  const auto inputs = vm["inputs"].as<std::vector<std::string>>();
  ReportInputs in;
  std::string html;
  try {
    in = load_report_inputs(inputs);
    html = render_html_report(in, o);
  } catch (const nlohmann::json::exception& e) {
    throw malformed_documents(inputs, e);
  }
  write_file_atomic(out, html);
  std::cout << "wrote " << out << " (" << in.reports.size() << " reports, " << in.aggregates.size() << " aggregates, "
            << in.sweeps.size() << " sweeps)\n";
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("report", "a self-contained HTML report with charts over a folder of reports and sweeps", run_report)

}  // namespace lbsim::cli
