// Sweep documents (lbsim.sweep/1, see sim/report/aggregate.hpp): built from the reports of a
// grid, for the whole grid or for one `--shard I/N` slice, and merged back from slices into
// exactly the document one machine would have written.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/runner/grid.hpp"

namespace lbsim {

struct SweepHeader {
  std::string scenario_name, scenario_hash;  // the unpatched scenario
  std::vector<GridAxis> axes;
  std::vector<std::string> policies;
  std::vector<std::uint64_t> seeds;
  std::size_t grid_points = 0;
};

// reports[point index][policy name] = that point's reports over the seeds.
using PointReports = std::map<std::size_t, std::map<std::string, std::vector<nlohmann::json>>>;

nlohmann::ordered_json sweep_document(const SweepHeader& h, const std::vector<GridPoint>& points,
                                      const PointReports& reports, std::optional<Shard> shard);

// Joins slices (documents written with a shard). ConfigError when they come from different
// sweeps, overlap inconsistently, or miss grid points (which are listed).
nlohmann::ordered_json merge_sweeps(const std::vector<nlohmann::ordered_json>& slices);

// A text table per headline metric: rows are grid points, columns policies, "mean ± ci95".
std::string sweep_table(const nlohmann::json& sweep);
// A sweep document as one long table for other tools (`lbsim compare sweep.json --format csv|md`):
// one row per (point, policy, metric) with the point's swept values, n, mean, ci95, min, max. CSV
// quotes nothing (values are numbers or simple names); Markdown is a pipe table.
std::string sweep_rows(const nlohmann::json& sweep, bool markdown);

}  // namespace lbsim
