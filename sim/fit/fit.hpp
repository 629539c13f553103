// The fits of `lbsim fit`: a latency sample's quantiles matched by a lognormal and by a gamma, the
// better one kept when its error is within kMaxFitError, else an empirical quantile table; then the
// scenario fragment (`lbsim.fit/1`) with a provenance block per value, the traps' checks and the
// observations that have no scenario field.
//
// Fit error: the largest relative difference between the fitted and the observed quantiles over the
// probe points the sample supports (and the mean, when the format gives an exact one). Quantiles
// inside a floor bucket (ScyllaDB's first bucket) or an overflow bucket are censored: not used.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/fit/sample.hpp"

namespace lbsim::fit {

// Above this error neither family "fits" and the empirical table is written instead. Assumed: the
// 10 % is issue 38's p99 tolerance for the round trip, not a measured threshold.
inline constexpr double kMaxFitError = 0.10;

struct QuantilePoints {
  std::vector<std::pair<double, double>> points;  // (probability, us), increasing
  std::optional<double> mean_us;                  // exact, or from uncensored buckets
  double floor_share = 0;                         // share of the values in a floor bucket
  double n = 0;                                   // values (0: printed percentiles only)
};
QuantilePoints quantile_points(const Sample& s);
// The sample's quantile at p from its buckets (linear inside a bucket); nullopt when censored.
std::optional<double> bucket_quantile(const Sample& s, double p);

struct DistFit {
  std::string family;  // "lognormal" or "gamma"; empty: no fit (fewer than 2 usable points)
  double a = 0, b = 0;  // lognormal: mu, sigma of ln(us); gamma: shape, scale (us)
  double mean_us = 0, p99_us = 0;
  double error = 1e9;
  double quantile(double p) const;
};
DistFit fit_lognormal(const QuantilePoints& q);
DistFit fit_gamma(const QuantilePoints& q);

// Standard normal quantile and the gamma distribution's, by bisection on their CDFs (std::erfc and
// the regularized incomplete gamma function, computed here by its series and continued fraction).
double normal_quantile(double p);
double gamma_p(double shape, double x);
double gamma_quantile(double shape, double p);

// Fits every input and writes the fragment. `inputs`: (file, format, what the file gave).
nlohmann::ordered_json fit_fragment(const std::vector<std::pair<std::string, Parsed>>& inputs,
                                    const std::vector<std::string>& formats);

// The `--set` assignments (`cluster.service.read=JSON`, `cluster.speed=JSON`, ...) that apply a
// fragment's `cluster` block to a scenario (`lbsim run --physics FILE`). ConfigError naming `file`
// when the document is not an lbsim.fit/1 fragment.
std::vector<std::string> physics_sets(const nlohmann::json& fragment, const std::string& file);

}  // namespace lbsim::fit
