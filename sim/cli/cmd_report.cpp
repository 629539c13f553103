// `lbsim report DIR... -o report.html [--baseline NAME] [--force]`: one self-contained HTML page
// (inline SVG charts and CSS, no scripts or external resources) over run reports, replicate
// aggregates and sweeps found in DIR (recursively). Written atomically.
#include <iostream>

#include "sim/cli/command.hpp"
#include "sim/core/error.hpp"
#include "sim/report/html_report.hpp"
#include "sim/report/report_json.hpp"

namespace lbsim::cli {
namespace {

int run_report(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("inputs", po::value<std::vector<std::string>>()->required(),
                     "folders (searched recursively) or files: lbsim.report/1, lbsim.aggregate/1, lbsim.sweep/1")(
      "output,o", po::value<std::string>()->required(), "the HTML file to write")(
      "baseline", po::value<std::string>()->default_value(""), "policy the comparison ratios refer to (default: the first)")(
      "force", po::bool_switch(), "include reports of different scenarios or schema versions anyway (with a warning)");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  if (!parse_options("report", "DIR... -o report.html [--baseline NAME] [--force]", args, opts, pos, vm)) return 0;
  HtmlReportOptions o;
  o.baseline = vm["baseline"].as<std::string>();
  o.force = vm["force"].as<bool>();
  const std::string out = vm["output"].as<std::string>();
  const ReportInputs in = load_report_inputs(vm["inputs"].as<std::vector<std::string>>());
  write_file_atomic(out, render_html_report(in, o));
  std::cout << "wrote " << out << " (" << in.reports.size() << " reports, " << in.aggregates.size() << " aggregates, "
            << in.sweeps.size() << " sweeps)\n";
  return 0;
}

}  // namespace

LBSIM_REGISTER_COMMAND("report", "a self-contained HTML report with charts over a folder of reports and sweeps", run_report)

}  // namespace lbsim::cli
