#include "sim/report/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include <fmt/format.h>

namespace lbsim::svg {

namespace {

// Approximate width of a label in the report's sans-serif font; used only for layout decisions
// (legend wrapping, rotating crowded category labels), so a rough estimate is enough.
double text_width(std::string_view s, double font_px) { return static_cast<double>(s.size()) * font_px * 0.58; }

// Fixed-decimal coordinates: deterministic and compact.
std::string px(double v) {
  if (std::fabs(v) < 0.05) v = 0;  // no "-0.0"
  return fmt::format("{:.1f}", v);
}

struct Frame {
  double left = 72, right = 24, top = 0, bottom = 56;
  double width = 0, height = 0;
  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return top; }
  double y1() const { return height - bottom; }
};

struct Legend {
  std::string svg;
  double height = 0;
};

struct LegendItem {
  std::string name;
  std::string_view color, dash;
};

// Legend items left to right under the title, wrapped to the chart width.
Legend legend(const std::vector<LegendItem>& items, double x, double y, double max_x) {
  Legend out;
  const double row_h = 18;
  double cx = x, cy = y;
  for (const auto& item : items) {
    const double w = 26 + text_width(item.name, 12) + 16;
    if (cx > x && cx + w > max_x) {
      cx = x;
      cy += row_h;
    }
    out.svg += fmt::format(R"(<g class="legend-item"><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="3"{}/>)",
                           px(cx), px(cy + 5), px(cx + 20), px(cy + 5), item.color,
                           item.dash.empty() ? "" : fmt::format(R"( stroke-dasharray="{}")", item.dash));
    out.svg += fmt::format(R"(<text x="{}" y="{}" font-size="12">{}</text></g>)", px(cx + 26), px(cy + 9),
                           escape(item.name));
    cx += w;
  }
  out.height = items.empty() ? 0 : cy - y + row_h + 6;
  return out;
}

// The smallest text in a chart is an 11 px tick label. The chart scales down with its container,
// but never below 9/11 of its width, so labels stay at 9 px or more (a narrow window scrolls the
// figure sideways instead).
constexpr int kSmallestFont = 11, kReadableFont = 9;

std::string open_svg(const std::string& id, const std::string& title, int w, int h) {
  return fmt::format(
      R"(<svg class="chart" id="{}" viewBox="0 0 {} {}" width="{}" height="{}" style="min-width:{}px" role="img" )"
      R"(aria-label="{}">)"
      R"(<title>{}</title><rect width="{}" height="{}" fill="#ffffff"/>)"
      R"(<text class="chart-title" x="{}" y="20" font-size="14" font-weight="bold">{}</text>)",
      escape(id), w, h, w, h, (w * kReadableFont + kSmallestFont - 1) / kSmallestFont, escape(title), escape(title), w, h,
      12, escape(title));
}

struct Tick {
  double at;  // in scale units
  std::string label;
};

std::string trim_zeros(std::string s) {
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

// The decimals short_number shows for a value of magnitude a >= 0.01 (2 significant digits below).
int short_decimals(double a) {
  if (a >= 100) return 0;
  if (a >= 1) return 2;
  if (a >= 0.01) return 3;
  return a > 0 ? 1 - static_cast<int>(std::floor(std::log10(a))) : 0;
}

// The decimals that show a tick step (the smallest gap between ticks) whole: 0.25 needs 2, 2000 none.
int step_decimals(double step) {
  if (!(step > 0) || !std::isfinite(step)) return 0;
  int d = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  while (d < 12 && std::fabs(step * std::pow(10.0, d) - std::round(step * std::pow(10.0, d))) > 1e-6 * step * std::pow(10.0, d)) ++d;
  return d;
}

// Labels of one axis's ticks in one unit: the largest tick picks k, M or G for all of them, so an
// axis never shows "5000" next to "10k". The precision follows the step between ticks, so that
// close ticks keep distinct labels (20.016k, 20.018k, not 20.02k twice).
std::vector<std::string> axis_labels(const std::vector<double>& ticks) {
  double top = 0;
  for (double t : ticks) top = std::max(top, std::fabs(t));
  const double scale = top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e4 ? 1e3 : 1;
  const char* unit = scale == 1e9 ? "G" : scale == 1e6 ? "M" : scale == 1e3 ? "k" : "";
  std::vector<double> sorted(ticks);
  std::sort(sorted.begin(), sorted.end());
  double step = 0;
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (const double g = sorted[i] - sorted[i - 1]; g > 1e-12 * std::max(1.0, top) && (step == 0 || g < step)) step = g;
  int d = step_decimals(step / scale);
  std::vector<std::string> out;
  for (int extra = 0; extra < 12; ++extra, ++d) {
    out.clear();
    for (double t : ticks) {
      if (std::fabs(t) < 1e-12 * std::max(1.0, top)) {
        out.push_back("0");
      } else if (scale == 1) {
        out.push_back(d > short_decimals(std::fabs(t)) ? trim_zeros(fmt::format("{:.{}f}", t, d)) : short_number(t));
      } else {
        out.push_back(trim_zeros(fmt::format("{:.{}f}", t / scale, std::max(2, d))) + unit);
      }
    }
    std::set<std::string> distinct(out.begin(), out.end());
    std::set<double> values(ticks.begin(), ticks.end());
    if (distinct.size() == values.size()) break;
  }
  return out;
}

// Linear ticks with their labels in one unit.
std::vector<Tick> linear_ticks(const std::vector<double>& at) {
  const auto labels = axis_labels(at);
  std::vector<Tick> out;
  for (std::size_t i = 0; i < at.size(); ++i) out.push_back({at[i], labels[i]});
  return out;
}

// Horizontal grid, y ticks (in axis units: log10 of the value on a log axis) and both axis titles.
std::string y_axis(const Frame& f, const std::vector<Tick>& ticks, double lo, double hi, const std::string& label,
                   const std::string& x_label) {
  std::string s;
  auto ty = [&](double v) { return f.y1() - (v - lo) / (hi - lo) * (f.y1() - f.y0()); };
  for (const auto& t : ticks) {
    s += fmt::format(R"(<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#e3e3e3"/>)", px(f.x0()), px(ty(t.at)),
                     px(f.x1()), px(ty(t.at)));
    s += fmt::format(R"(<text class="tick" x="{}" y="{}" font-size="11" text-anchor="end">{}</text>)", px(f.x0() - 6),
                     px(ty(t.at) + 4), escape(t.label));
  }
  s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>)", px(f.x0()), px(f.y0()), px(f.x0()),
                   px(f.y1()));
  s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>)", px(f.x0()), px(f.y1()), px(f.x1()),
                   px(f.y1()));
  const double mid_y = (f.y0() + f.y1()) / 2;
  s += fmt::format(R"(<text class="axis-label" x="16" y="{}" font-size="12" text-anchor="middle" )"
                   R"svg(transform="rotate(-90 16 {})">{}</text>)svg",
                   px(mid_y), px(mid_y), escape(label));
  s += fmt::format(R"(<text class="axis-label" x="{}" y="{}" font-size="12" text-anchor="middle">{}</text>)",
                   px((f.x0() + f.x1()) / 2), px(f.height - 10), escape(x_label));
  return s;
}

// X tick marks and labels; labels rotate when they would collide.
std::string x_ticks(const Frame& f, const std::vector<Tick>& ticks, double lo, double hi, bool rotate) {
  std::string s;
  for (const auto& t : ticks) {
    const double x = f.x0() + (t.at - lo) / (hi - lo) * (f.x1() - f.x0());
    s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333333"/>)", px(x), px(f.y1()), px(x),
                     px(f.y1() + 5));
    if (rotate)
      s += fmt::format(R"(<text class="tick" x="{}" y="{}" font-size="11" text-anchor="end" )"
                       R"svg(transform="rotate(-35 {} {})">{}</text>)svg",
                       px(x), px(f.y1() + 16), px(x), px(f.y1() + 16), escape(t.label));
    else
      s += fmt::format(R"(<text class="tick" x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>)", px(x),
                       px(f.y1() + 18), escape(t.label));
  }
  return s;
}

double x_transform(XScale scale, double x) {
  switch (scale) {
    case XScale::Log: return std::log10(std::max(x, 1e-300));
    case XScale::Percentile: return std::log10(100.0 / std::max(100.0 - std::min(x, 99.99999), 1e-9));
    default: return x;
  }
}

std::string percent_label(double p) {
  std::string s = fmt::format("{:.4f}", p);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "%";
}

// Bottom margin that fits labels rotated by 35 degrees.
double rotated_bottom(const std::vector<Tick>& ticks) {
  double w = 0;
  for (const auto& t : ticks) w = std::max(w, text_width(t.label, 11));
  return 40 + w * 0.58;
}

bool crowded(const std::vector<Tick>& ticks, double plot_w) {
  if (ticks.size() < 2) return false;
  double w = 0;
  for (const auto& t : ticks) w = std::max(w, text_width(t.label, 11));
  return w + 6 > plot_w / static_cast<double>(ticks.size());
}

}  // namespace

std::string_view color(std::size_t i) {
  static constexpr std::array<std::string_view, 8> kPalette{"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                                             "#d55e00", "#56b4e9", "#7f7f7f", "#000000"};
  return kPalette[i % kPalette.size()];
}

std::string_view dash(std::size_t i) {
  static constexpr std::array<std::string_view, 3> kDashes{"", "8 4", "2 3"};
  return kDashes[i / 8 % kDashes.size()];
}

std::string escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  return o;
}

std::string short_number(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (std::fabs(v) < 1e-12) return "0";
  const double a = std::fabs(v);
  auto trim = [](std::string s) {
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  };
  if (a >= 1e9) return trim(fmt::format("{:.2f}", v / 1e9)) + "G";
  if (a >= 1e6) return trim(fmt::format("{:.2f}", v / 1e6)) + "M";
  if (a >= 1e4) return trim(fmt::format("{:.1f}", v / 1e3)) + "k";
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 1) return trim(fmt::format("{:.2f}", v));
  if (a >= 0.01) return trim(fmt::format("{:.3f}", v));
  return trim(fmt::format("{:.2g}", v));
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> out;
  const double first = std::floor(lo / step + 1e-9) * step;
  for (double t = first; t < hi + step - 1e-9 * step; t += step) out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return out;
}

namespace {

// Ticks of a log axis over [lo, hi] (values > 0), in log10 units: the powers of ten, plus 2 and 5
// times them when the axis spans under three decades.
std::vector<Tick> log_ticks(double& lo, double& hi) {
  lo = std::floor(std::log10(lo) + 1e-9);
  hi = std::max(std::ceil(std::log10(hi) - 1e-9), lo + 1);
  const bool fine = hi - lo < 3;
  std::vector<Tick> out;
  for (double k = lo; k <= hi; k += 1)
    for (const double m : {1.0, 2.0, 5.0}) {
      if (m > 1 && (!fine || k == hi)) continue;
      const double v = m * std::pow(10.0, k);
      out.push_back({std::log10(v), short_number(v)});
    }
  return out;
}

// Vertical dashed event lines with their labels, staggered over three rows at the top.
std::string marker_lines(const Frame& f, const std::vector<Marker>& markers, const std::function<double(double)>& tx) {
  std::string out;
  for (std::size_t i = 0; i < markers.size(); ++i) {
    const Marker& m = markers[i];
    const double x = tx(m.x);
    const bool right_half = x > (f.x0() + f.x1()) / 2;
    out += fmt::format(
        R"(<g class="event"><line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#9a3412" stroke-width="1.2" )"
        R"(stroke-dasharray="5 3"/><text x="{3}" y="{4}" font-size="11" fill="#9a3412" text-anchor="{5}">{6}</text>)"
        R"(<title>{6}</title></g>)",
        px(x), px(f.y0()), px(f.y1()), px(right_half ? x - 4 : x + 4), px(f.y0() + 12 + 13 * static_cast<double>(i % 3)),
        right_half ? "end" : "start", escape(m.label));
  }
  return out;
}

}  // namespace

std::string render(const LineChart& c) {
  Frame f;
  f.width = c.width;
  f.height = c.height;
  const bool ylog = c.y_scale == YScale::Log;
  auto shown = [&](double y) { return !ylog || y > 0; };  // a log axis has no place for y <= 0
  // X domain and ticks in scale units.
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo;
  std::vector<double> xs;
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!shown(s.y[i])) continue;
      const double t = x_transform(c.x_scale, s.x[i]);
      xlo = std::min(xlo, t);
      xhi = std::max(xhi, t);
      xs.push_back(s.x[i]);
    }
  for (const auto& m : c.markers) {
    xlo = std::min(xlo, x_transform(c.x_scale, m.x));
    xhi = std::max(xhi, x_transform(c.x_scale, m.x));
  }
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1;
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::vector<Tick> ticks;
  if (c.x_scale == XScale::Category) {
    for (std::size_t i = 0; i < c.categories.size(); ++i) ticks.push_back({static_cast<double>(i), c.categories[i]});
    xlo = -0.5;
    xhi = static_cast<double>(std::max<std::size_t>(c.categories.size(), 1)) - 0.5;
  } else if (c.x_scale == XScale::Percentile) {
    xlo = 0;
    xhi = std::max(4.0, std::ceil(xhi - 1e-9));
    ticks.push_back({0, "0%"});
    ticks.push_back({x_transform(XScale::Percentile, 50), "50%"});
    for (int k = 1; k <= static_cast<int>(xhi); ++k) ticks.push_back({double(k), percent_label(100.0 - 100.0 / std::pow(10.0, k))});
  } else if (c.x_ticks_at_data) {
    // Each data value's own short label, unless two of them read alike: then one unit and enough
    // decimals for all of them (axis_labels).
    std::vector<std::string> labels;
    for (double x : xs) labels.push_back(short_number(x));
    if (std::set<std::string>(labels.begin(), labels.end()).size() < labels.size()) labels = axis_labels(xs);
    for (std::size_t i = 0; i < xs.size(); ++i) ticks.push_back({x_transform(c.x_scale, xs[i]), labels[i]});
    const double pad = std::max((xhi - xlo) * 0.04, 0.05);
    xlo -= pad;
    xhi += pad;
  } else if (c.x_scale == XScale::Log) {
    for (double k = std::floor(xlo); k <= std::ceil(xhi); k += 1) ticks.push_back({k, short_number(std::pow(10.0, k))});
    xlo = std::floor(xlo);
    xhi = std::max(std::ceil(xhi), xlo + 1);
  } else {
    const auto t = nice_ticks(xlo, xhi, 8);
    ticks = linear_ticks(t);
    xlo = t.front();
    xhi = t.back();
  }
  if (!(xhi > xlo)) xhi = xlo + 1;
  // Y domain.
  double ylo = c.y_from_zero && !ylog ? 0 : std::numeric_limits<double>::infinity(), yhi = -std::numeric_limits<double>::infinity();
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      if (!shown(s.y[i])) continue;
      const double e = i < s.err.size() ? s.err[i] : 0;
      // From zero: error bars do not pull the axis below zero (they are clipped there instead);
      // a negative latency or throughput axis would only confuse.
      ylo = std::min(ylo, c.y_from_zero || ylog ? s.y[i] : s.y[i] - e);
      yhi = std::max(yhi, s.y[i] + e);
    }
  if (c.y_max > 0) yhi = std::max(yhi, c.y_max);
  std::vector<Tick> yt;
  if (ylog) {
    if (!std::isfinite(ylo)) ylo = 1, yhi = 10;
    yt = log_ticks(ylo, yhi);
  } else {
    if (!std::isfinite(ylo)) ylo = 0;
    if (!std::isfinite(yhi) || yhi <= ylo) yhi = ylo + 1;
    const auto at = nice_ticks(ylo, yhi, 5);
    yt = linear_ticks(at);
    ylo = at.front();
    yhi = at.back();
  }

  std::vector<LegendItem> items;
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    items.push_back({s.name, s.color.empty() ? color(si) : std::string_view(s.color), s.dash.empty() ? dash(si) : std::string_view(s.dash)});
  }
  const Legend lg = legend(items, f.left, 34, f.width - f.right);
  f.top = 34 + lg.height + 6;
  const bool rot = crowded(ticks, f.x1() - f.x0());
  if (rot) f.bottom = rotated_bottom(ticks);

  std::string out = open_svg(c.id, c.title, c.width, c.height) + lg.svg;
  out += y_axis(f, yt, ylo, yhi, c.y_label, c.x_label) + x_ticks(f, ticks, xlo, xhi, rot);
  auto ty = [&](double y) {
    const double v = ylog ? std::log10(y) : y;
    return f.y1() - (v - ylo) / (yhi - ylo) * (f.y1() - f.y0());
  };
  auto tx_plain = [&](double x) { return f.x0() + (x_transform(c.x_scale, x) - xlo) / (xhi - xlo) * (f.x1() - f.x0()); };
  out += marker_lines(f, c.markers, tx_plain);
  bool any_err = false;
  for (const auto& s : c.series) any_err = any_err || !s.err.empty();
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    const std::string_view col = items[si].color;
    // Series with error bars are dodged by a few pixels so that equal values stay distinguishable.
    const double dodge = any_err ? (static_cast<double>(si) - static_cast<double>(c.series.size() - 1) / 2) * 3 : 0;
    auto tx = [&](double x) { return tx_plain(x) + dodge; };
    std::string pts;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (shown(s.y[i])) pts += (pts.empty() ? "" : " ") + px(tx(s.x[i])) + "," + px(ty(s.y[i]));
    out += fmt::format(R"(<g class="series" data-series="{}">)", escape(s.name));
    out += fmt::format(R"(<polyline fill="none" stroke="{}" stroke-width="2" stroke-linejoin="round"{} points="{}"/>)", col,
                       items[si].dash.empty() ? "" : fmt::format(R"( stroke-dasharray="{}")", items[si].dash), pts);
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!shown(s.y[i])) continue;
      const double e = i < s.err.size() ? s.err[i] : 0;
      if (e > 0) {
        const double low = std::max(s.y[i] - e, ylog ? std::pow(10.0, ylo) : ylo);  // clipped at the axis
        out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="1.5"/>)", px(tx(s.x[i])),
                           px(ty(low)), px(tx(s.x[i])), px(ty(s.y[i] + e)), col);
      }
      if (s.markers)
        out += fmt::format(R"(<circle cx="{}" cy="{}" r="3.5" fill="{}"><title>{}: {}{}</title></circle>)",
                           px(tx(s.x[i])), px(ty(s.y[i])), col, escape(s.name), escape(short_number(s.y[i])),
                           e > 0 ? " ± " + escape(short_number(e)) : "");
      else  // an invisible hover target with the point's values
        out += fmt::format(R"(<circle cx="{}" cy="{}" r="5" fill="{}" fill-opacity="0"><title>{}: {} at {}</title></circle>)",
                           px(tx(s.x[i])), px(ty(s.y[i])), col, escape(s.name), escape(short_number(s.y[i])),
                           escape(short_number(s.x[i])));
    }
    out += "</g>";
  }
  return out + "</svg>";
}

std::string render(const BarChart& c) {
  Frame f;
  f.width = c.width;
  f.height = c.height;
  double yhi = 0;
  for (const auto& s : c.series)
    for (double y : s.y) yhi = std::max(yhi, y);
  for (const auto& r : c.reference) yhi = std::max(yhi, r.y);
  const auto yt = nice_ticks(0, yhi > 0 ? yhi : 1, 5);
  const double ylo = 0;
  yhi = yt.back();

  std::vector<LegendItem> items;
  for (std::size_t si = 0; si < c.series.size(); ++si) items.push_back({c.series[si].name, color(si), ""});
  if (!c.reference.empty()) items.push_back({c.reference_name, "#555555", "5 3"});
  const Legend lg = legend(items, f.left, 34, f.width - f.right);
  f.top = 34 + lg.height + 6;
  std::vector<Tick> ticks;
  for (std::size_t i = 0; i < c.categories.size(); ++i) ticks.push_back({static_cast<double>(i), c.categories[i]});
  const bool rot = crowded(ticks, f.x1() - f.x0());
  if (rot) f.bottom = rotated_bottom(ticks);

  std::string out = open_svg(c.id, c.title, c.width, c.height) + lg.svg;
  const double n = static_cast<double>(std::max<std::size_t>(c.categories.size(), 1));
  out += y_axis(f, linear_ticks(yt), ylo, yhi, c.y_label, c.x_label) + x_ticks(f, ticks, -0.5, n - 0.5, rot);
  auto ty = [&](double y) { return f.y1() - (y - ylo) / (yhi - ylo) * (f.y1() - f.y0()); };
  const double group = (f.x1() - f.x0()) / n;
  const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(c.series.size(), 1));
  for (std::size_t si = 0; si < c.series.size(); ++si) {
    const Series& s = c.series[si];
    out += fmt::format(R"(<g class="series" data-series="{}" fill="{}">)", escape(s.name), color(si));
    for (std::size_t i = 0; i < s.y.size() && i < c.categories.size(); ++i) {
      const double x = f.x0() + group * (static_cast<double>(i) + 0.1) + bar * static_cast<double>(si);
      out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}"><title>{} · {}: {}</title></rect>)", px(x),
                         px(ty(s.y[i])), px(std::max(bar - 1, 1.0)), px(f.y1() - ty(s.y[i])), escape(s.name),
                         escape(c.categories[i]), escape(short_number(s.y[i])));
    }
    out += "</g>";
  }
  for (std::size_t k : c.separators)
    if (k > 0 && k < c.categories.size())
      out += fmt::format(R"(<line class="separator" x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#888" stroke-width="1"/>)",
                         px(f.x0() + group * static_cast<double>(k)), px(f.y0()), px(f.y1()));
  for (const auto& r : c.reference) {
    if (r.series >= c.series.size()) continue;
    const bool whole = r.last < r.first || r.last >= c.categories.size();
    const double x1 = whole ? f.x0() : f.x0() + group * static_cast<double>(r.first);
    const double x2 = whole ? f.x1() : f.x0() + group * static_cast<double>(r.last + 1);
    const std::string scope = r.label.empty() ? "" : " (" + r.label + ")";
    out += fmt::format(R"(<line class="reference" x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="1.5" )"
                       R"(stroke-dasharray="6 4"><title>{} {}{}: {}</title></line>)",
                       px(x1), px(ty(r.y)), px(x2), px(ty(r.y)), color(r.series), escape(c.series[r.series].name),
                       escape(c.reference_name), escape(scope), escape(short_number(r.y)));
  }
  return out + "</svg>";
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks) { return axis_labels(ticks); }

}  // namespace lbsim::svg
