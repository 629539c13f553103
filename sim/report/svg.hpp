// A tiny builder of static SVG charts for the HTML report: line charts (linear, log or
// "percentile" x axis, optional CI error bars) and grouped bar charts with reference lines.
//
// Contract: every chart is a pure function of its description; numbers are printed with fixed
// decimals, so the same input gives byte-identical SVG. The output has no scripts, no external
// references and no xmlns URL (it is meant to be inlined into HTML). Axes always carry tick
// labels, and the axis titles passed in should name the unit: "latency (ms)".
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace lbsim::svg {

enum class XScale {
  Linear,
  Log,         // log10 of x; all x must be > 0
  Percentile,  // x is a percentile in [0, 100), placed at log10(100 / (100 - x)): 90, 99, 99.9 equally spaced
  Category,    // x is an index into LineChart::categories
};

enum class YScale {
  Linear,
  Log,  // log10 of y; points with y <= 0 are left out
};

struct Series {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> err;  // optional: a ± half width per point, drawn as an error bar
  bool markers = false;     // draw a dot on each point
  // Line style; empty: by the series' position (color(i), dash(i)).
  std::string color, dash;
};

// A vertical dashed line across a line chart at x (an event: a fault, a node joining), labelled.
struct Marker {
  double x = 0;
  std::string label;
};

struct LineChart {
  std::string id;  // stable id of the <svg>, e.g. "chart-latency-percentiles"
  std::string title;
  std::string x_label, y_label;  // with units
  XScale x_scale = XScale::Linear;
  std::vector<std::string> categories;  // for XScale::Category
  bool x_ticks_at_data = false;         // one tick per distinct x (sweeps) instead of nice ticks
  bool y_from_zero = true;
  YScale y_scale = YScale::Linear;
  double y_max = 0;  // > 0: the y axis reaches at least this (charts that share one scale)
  std::vector<Series> series;
  std::vector<Marker> markers;  // inside the x axis's range, which grows to include them
  int width = 660, height = 340;
};

struct BarChart {
  std::string id;
  std::string title;
  std::string x_label, y_label;
  std::vector<std::string> categories;  // groups along x
  std::vector<Series> series;           // y[i] is the bar of category i; one bar per series per group
  // Optional dashed horizontal lines, e.g. a series' mean. Each spans the categories
  // [first, last] (a datacenter's nodes, say), or every category when last < first.
  struct Reference {
    std::size_t series = 0;  // whose colour it takes
    double y = 0;
    std::size_t first = 1, last = 0;
    std::string label;  // the hover title's scope, e.g. "dc1"
  };
  std::vector<Reference> reference;
  std::string reference_name = "mean";
  std::vector<std::size_t> separators;  // a thin vertical rule before these categories (group boundaries)
  int width = 660, height = 340;
};

std::string render(const LineChart& c);
std::string render(const BarChart& c);

// Colour of the i-th series (a colour-blind-safe palette of 8, cycling).
std::string_view color(std::size_t i);
// Dash pattern of the i-th line series (SVG stroke-dasharray; "" solid): solid for the first 8,
// then dashed, then dotted, so 24 series differ in colour or pattern (kDistinctSeries).
std::string_view dash(std::size_t i);
inline constexpr std::size_t kDistinctSeries = 24;
// Escapes &, <, >, " and ' for text and attribute values.
std::string escape(std::string_view s);
// A short human number for tick labels and tables: 0.25, 12.5, 950, 12.5k, 1.25M.
std::string short_number(double v);
// One axis's tick labels in a single unit chosen by the largest tick ("5k", "10k", not "5000", "10k").
std::vector<std::string> tick_labels(const std::vector<double>& ticks);
// "Nice" ticks (1, 2, 5 x 10^k steps) covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target);

}  // namespace lbsim::svg
