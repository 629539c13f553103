// nodetool's text tables (proxyhistograms, tablehistograms/cfhistograms, tpstats, info's cache
// lines) and jmxterm-style dumps of a histogram MBean's raw bucket array.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/error.hpp"
#include "sim/fit/layouts.hpp"
#include "sim/fit/parsers.hpp"

namespace lbsim::fit {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string s;
  while (std::getline(in, s)) {
    if (!s.empty() && s.back() == '\r') s.pop_back();
    v.push_back(s);
  }
  return v;
}
std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> w;
  std::istringstream in(s);
  std::string t;
  while (in >> t) w.push_back(t);
  return w;
}
bool number(const std::string& s, double& v) {
  if (s == "NaN") {
    v = std::nan("");
    return true;
  }
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0';
}
// The probability of a nodetool percentile row label ("50%" -> 0.5); -1 for Min/Max/other.
double row_probability(const std::string& label) {
  if (label.size() < 2 || label.back() != '%') return -1;
  double v = 0;
  if (!number(label.substr(0, label.size() - 1), v)) return -1;
  return v / 100.0;
}
// nodetool prints a percentile as the upper offset of the EstimatedHistogram bucket holding it
// (layouts.hpp): such a value stands for the whole bucket (offset[i-1], offset[i]], so it is read as
// the bucket's midpoint (half a bucket, under 10 %, instead of up to 20 % high).
double unbias(double v) {
  static const std::vector<std::int64_t> offsets = cassandra_offsets();
  if (v < 3 || v != std::floor(v)) return v;
  auto it = std::lower_bound(offsets.begin(), offsets.end(), static_cast<std::int64_t>(v));
  if (it == offsets.end() || *it != static_cast<std::int64_t>(v) || it == offsets.begin()) return v;
  return (static_cast<double>(*(it - 1)) + v) / 2.0;
}

// Finds the known column names of a header line in the order they appear.
std::vector<std::string> columns(const std::string& header, const std::vector<std::string>& known) {
  std::vector<std::pair<std::size_t, std::string>> found;
  for (const auto& k : known) {
    // Longest names first would be needed if one contained another at the same place; the known
    // names here are matched as whole phrases bounded by spaces.
    std::size_t at = 0;
    while ((at = header.find(k, at)) != std::string::npos) {
      const bool left = at == 0 || header[at - 1] == ' ';
      const bool right = at + k.size() == header.size() || header[at + k.size()] == ' ';
      if (left && right) {
        found.push_back({at, k});
        break;
      }
      at += k.size();
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

Parsed parse_percentile_table(const std::string& file, const std::vector<std::string>& ls, const std::string& format) {
  const bool proxy = format == "proxyhistograms";
  const std::vector<std::string> known =
      proxy ? std::vector<std::string>{"Read Latency", "Write Latency", "Range Latency", "CAS Read Latency",
                                       "CAS Write Latency", "View Write Latency"}
            : std::vector<std::string>{"SSTables", "Write Latency", "Read Latency", "Partition Size", "Cell Count"};
  std::size_t h = 0;
  while (h < ls.size() && ls[h].rfind("Percentile", 0) != 0) ++h;
  const std::string expected =
      proxy ? "expected `nodetool proxyhistograms` output: \"proxy histograms\", a \"Percentile  Read Latency  Write Latency "
              "...\" header, a units line, then rows \"50%  V V ...\" up to \"Max\""
            : "expected `nodetool tablehistograms KS TABLE` output: a \"Percentile  SSTables  Write Latency  Read Latency  "
              "Partition Size  Cell Count\" header (any order), a units line, then rows \"50%  V V ...\" up to \"Max\"";
  if (h == ls.size()) throw ConfigError(file + ":1", expected);
  const auto cols = columns(ls[h], known);
  if (cols.empty()) throw ConfigError(fmt::format("{}:{}", file, h + 1), expected);
  std::vector<Sample> per_col(cols.size());
  Parsed out;
  for (std::size_t i = h + 1; i < ls.size(); ++i) {
    const auto w = words(ls[i]);
    if (w.empty()) continue;
    if (w[0].front() == '(') continue;  // the units line
    const double p = row_probability(w[0]);
    const bool minmax = w[0] == "Min" || w[0] == "Max";
    if (p < 0 && !minmax) {
      if (w[0].find("histograms") != std::string::npos) break;  // the next table (several in one file)
      throw ConfigError(fmt::format("{}:{}", file, i + 1), fmt::format("row label '{}'; {}", w[0], expected));
    }
    if (w.size() != cols.size() + 1)
      throw ConfigError(fmt::format("{}:{}", file, i + 1),
                        fmt::format("{} values for {} columns; {}", w.size() - 1, cols.size(), expected));
    for (std::size_t c = 0; c < cols.size(); ++c) {
      double v = 0;
      if (!number(w[c + 1], v))
        throw ConfigError(fmt::format("{}:{}", file, i + 1), fmt::format("'{}' is not a number; {}", w[c + 1], expected));
      // Latencies are fitted (read as bucket midpoints; a 0 is "no data"); the other columns are
      // reported as printed.
      const bool latency = cols[c].find("Latency") != std::string::npos;
      if (p > 0 && p < 1 && std::isfinite(v) && (v > 0 || !latency)) per_col[c].quantiles.push_back({p, latency ? unbias(v) : v});
      if (minmax && std::isfinite(v))
        out.observations.push_back({file, fmt::format("{} {}", cols[c], w[0]), "", "", v});
    }
  }
  for (std::size_t c = 0; c < cols.size(); ++c) {
    Sample& s = per_col[c];
    s.file = file;
    s.metric = std::string(proxy ? "proxyhistograms " : "tablehistograms ") + cols[c];
    s.decayed = true;
    if (cols[c] == "Read Latency" || cols[c] == "Write Latency") {
      s.op = cols[c] == "Read Latency" ? Op::Read : Op::Write;
      s.role = proxy ? Role::Coordinator : Role::Replica;
      s.note = "nodetool's percentiles: bucket offsets of Cassandra's EstimatedHistogram (read as bucket midpoints), "
               "forward-decayed with a 60 s half-life";
      if (!s.quantiles.empty()) out.samples.push_back(s);
    } else {
      for (const auto& [p, v] : s.quantiles)
        out.observations.push_back({file, fmt::format("{} p{:g}", s.metric, p * 100), "", "", v});
    }
  }
  return out;
}

Parsed parse_tpstats(const std::string& file, const std::vector<std::string>& ls) {
  Parsed out;
  enum { None, Pools, Messages } part = None;
  bool wait_columns = false;
  std::vector<std::string> wait_labels = {"50%", "95%", "99%", "Max"};  // trunk's TpStatsPrinter
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string where = fmt::format("{}:{}", file, i + 1);
    const auto w = words(ls[i]);
    if (w.empty()) continue;
    if (ls[i].rfind("Pool Name", 0) == 0) {
      part = Pools;
      continue;
    }
    if (ls[i].rfind("Message type", 0) == 0) {
      part = Messages;
      wait_columns = ls[i].find("Latency waiting in queue") != std::string::npos;
      continue;
    }
    if (part == Messages && w[0] == "50%") {  // the percentile sub-header of the new format
      wait_labels = w;
      continue;
    }
    if (part == None)
      throw ConfigError(where, "expected `nodetool tpstats` output: a \"Pool Name  Active  Pending  Completed  Blocked  "
                               "All time blocked\" table, then \"Message type  Dropped ...\"");
    std::vector<double> v;
    for (std::size_t k = 1; k < w.size(); ++k) {
      double x = 0;
      if (w[k] == "N/A") x = std::nan("");
      else if (!number(w[k], x))
        throw ConfigError(where, fmt::format("'{}' is not a number; expected `nodetool tpstats` rows \"NAME  N N N ...\"", w[k]));
      else if (x < 0)  // counts and queue waits
        throw ConfigError(where, fmt::format("'{}' is negative: counts and times are >= 0; expected `nodetool tpstats` rows \"NAME  N N N "
                                             "...\" of non-negative numbers",
                                             w[k]));
      v.push_back(x);
    }
    if (part == Pools) {
      if (v.size() < 5)
        throw ConfigError(where, "expected a pool row \"NAME  Active  Pending  Completed  Blocked  All time blocked [...]\"");
      out.observations.push_back({file, "tpstats " + w[0] + " active", "", "", v[0]});
      out.observations.push_back({file, "tpstats " + w[0] + " pending", "", "", v[1]});
      out.observations.push_back({file, "tpstats " + w[0] + " completed", "", "", v[2]});
    } else {
      if (v.empty()) throw ConfigError(where, "expected a message row \"TYPE  Dropped [50% 95% 99% Max]\"");
      out.observations.push_back({file, "tpstats dropped " + w[0], "", "", v[0]});
      if (wait_columns && v.size() == wait_labels.size() + 1) {
        for (std::size_t k = 0; k < wait_labels.size(); ++k)
          if (wait_labels[k] == "50%" || wait_labels[k] == "99%" || wait_labels[k] == "Max")
            out.observations.push_back({file, "tpstats queue wait " + wait_labels[k] + " " + w[0], "", "", v[k + 1]});
      } else if (wait_columns && v.size() > 1) {
        throw ConfigError(where, fmt::format("{} values after the drop count, {} percentile columns in the header; expected "
                                             "\"TYPE  Dropped  {}\"",
                                             v.size() - 1, wait_labels.size(), fmt::join(wait_labels, " ")));
      }
    }
  }
  if (!wait_columns)
    out.notes.push_back(file + ": tpstats without \"Latency waiting in queue\" (releases before 4.0): no queue-wait figures");
  return out;
}

// "Key Cache : entries 12, size 1.2 MiB, capacity 24 MiB, 57 hits, 80 requests, 0.713 recent hit rate, ..."
Parsed parse_info(const std::string& file, const std::vector<std::string>& ls) {
  Parsed out;
  auto bytes = [](double v, const std::string& unit) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    for (int k = 0; k < 5; ++k)
      if (unit == units[k]) return v * std::pow(1024.0, k);
    return std::nan("");
  };
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const auto colon = ls[i].find(':');
    if (colon == std::string::npos) continue;
    std::string name = ls[i].substr(0, colon);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (name.size() < 6 || name.compare(name.size() - 5, 5, "Cache") != 0) continue;
    std::istringstream items(ls[i].substr(colon + 1));
    std::string item;
    while (std::getline(items, item, ',')) {
      const auto w = words(item);
      double v = 0;
      if (w.size() >= 2 && (w[0] == "entries") && number(w[1], v)) out.observations.push_back({file, name + " entries", "", "", v});
      else if (w.size() >= 3 && (w[0] == "size" || w[0] == "capacity") && number(w[1], v)) {
        std::string unit = w[2];  // "KiB", or "(bytes)" in releases before 3.x's human-readable sizes
        if (unit.size() > 2 && unit.front() == '(' && unit.back() == ')') unit = unit.substr(1, unit.size() - 2);
        out.observations.push_back({file, name + " " + w[0] + " bytes", "", "", bytes(v, unit)});
      }
      else if (w.size() >= 2 && (w[1] == "hits" || w[1] == "requests" || w[1] == "misses") && number(w[0], v))
        out.observations.push_back({file, name + " " + w[1], "", "", v});
      else if (w.size() >= 4 && w[1] == "recent" && number(w[0], v))
        out.observations.push_back({file, name + " recent hit rate", "", "", v});
    }
  }
  if (out.observations.empty())
    throw ConfigError(file + ":1", "expected `nodetool info` cache lines \"Key Cache : entries N, size X KiB, capacity X "
                                   "MiB, N hits, N requests, R recent hit rate, ...\"");
  return out;
}

}  // namespace

Parsed parse_nodetool(const std::string& file, const std::string& text, const std::string& format) {
  const auto ls = lines_of(text);
  if (format == "tpstats") return parse_tpstats(file, ls);
  if (format == "info") return parse_info(file, ls);
  return parse_percentile_table(file, ls, format);
}

// A jmxterm-style dump (`get -b BEAN Values` or `RecentValues`):
//   #mbean = org.apache.cassandra.metrics:type=ClientRequest,scope=Read,name=Latency
//   #unit = us                (us or ns: the unit the reservoir recorded; required)
//   Values = [ 0, 0, 3, 17, ... ];
// The array holds Cassandra's EstimatedHistogram bucket counts (layouts.hpp): values() since the
// start, getRecentValues() since the previous call (apache/cassandra CassandraMetricsRegistry
// JmxHistogram/JmxTimer); both are raw counts, not decayed. Several beans may follow each other.
Parsed parse_jmx(const std::string& file, const std::string& text) {
  const auto ls = lines_of(text);
  Parsed out;
  std::string bean, unit;
  std::size_t bean_line = 0;
  static const auto offsets = cassandra_offsets(237);  // MAX_BUCKET_COUNT (layouts.hpp)
  constexpr const char* kExpected =
      "expected a JMX histogram dump: \"#mbean = org.apache.cassandra.metrics:type=...\", \"#unit = us|ns\", then "
      "\"Values = [ n, n, ... ];\" or \"RecentValues = [ ... ];\"";
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string where = fmt::format("{}:{}", file, i + 1);
    const std::string& s = ls[i];
    if (s.empty()) continue;
    if (s.rfind("#mbean", 0) == 0) {
      const auto eq = s.find('=');
      if (eq == std::string::npos) throw ConfigError(where, kExpected);
      bean = s.substr(eq + 1);
      bean.erase(0, bean.find_first_not_of(' '));
      if (!bean.empty() && bean.back() == ':') bean.pop_back();
      bean_line = i + 1;
      unit.clear();
      continue;
    }
    if (s.rfind("#unit", 0) == 0) {
      const auto w = words(s.substr(s.find('=') == std::string::npos ? s.size() : s.find('=') + 1));
      if (w.size() != 1 || (w[0] != "us" && w[0] != "ns")) throw ConfigError(where, std::string("unit must be us or ns; ") + kExpected);
      unit = w[0];
      continue;
    }
    if (s[0] == '#') continue;
    const auto open = s.find('['), close = s.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) throw ConfigError(where, kExpected);
    if (bean.empty()) throw ConfigError(where, std::string("an array before any #mbean line; ") + kExpected);
    if (unit.empty()) throw ConfigError(fmt::format("{}:{}", file, bean_line), std::string("no #unit line for this bean; ") + kExpected);
    std::vector<double> counts;
    std::istringstream items(s.substr(open + 1, close - open - 1));
    std::string item;
    while (std::getline(items, item, ',')) {
      const auto w = words(item);
      if (w.empty()) continue;
      double v = 0;
      if (w.size() != 1 || !number(w[0], v) || v < 0 || v != std::floor(v))
        throw ConfigError(where, fmt::format("'{}' is not a count; {}", item, kExpected));
      counts.push_back(v);
    }
    if (counts.size() < 2 || counts.size() > offsets.size() + 1)
      throw ConfigError(where, fmt::format("{} buckets; Cassandra's arrays have 2..{}", counts.size(), offsets.size() + 1));
    Sample smp;
    smp.file = file;
    smp.metric = bean + " " + s.substr(0, s.find('=') == std::string::npos ? 0 : s.find('='));
    while (!smp.metric.empty() && smp.metric.back() == ' ') smp.metric.pop_back();
    const double scale = unit == "ns" ? 1e-3 : 1.0;
    for (std::size_t b = 0; b < counts.size(); ++b) {
      const bool overflow = b + 1 == counts.size() && counts.size() == offsets.size() + 1;
      smp.lo.push_back(b == 0 ? 0.0 : static_cast<double>(offsets[b - 1]) * scale);
      smp.hi.push_back(overflow ? INFINITY : static_cast<double>(offsets[b]) * scale);
      smp.count.push_back(counts[b]);
    }
    const bool table = bean.find("type=Table") != std::string::npos || bean.find("type=ColumnFamily") != std::string::npos;
    const bool read = bean.find("scope=Read,") != std::string::npos || bean.find("name=ReadLatency") != std::string::npos;
    const bool write = bean.find("scope=Write,") != std::string::npos || bean.find("name=WriteLatency") != std::string::npos;
    smp.op = read ? Op::Read : (write ? Op::Write : Op::Other);
    smp.role = table ? Role::Replica : Role::Coordinator;
    smp.note = "raw EstimatedHistogram counts (not decayed)";
    out.samples.push_back(std::move(smp));
  }
  if (out.samples.empty()) throw ConfigError(file + ":1", kExpected);
  return out;
}

}  // namespace lbsim::fit
