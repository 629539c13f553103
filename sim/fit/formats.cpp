// Format recognition and the interval-log tags' meanings.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/text_input.hpp"
#include "sim/fit/hlog_reader.hpp"
#include "sim/fit/parsers.hpp"

namespace lbsim::fit {

const char* role_name(Role r) {
  switch (r) {
    case Role::ClientService: return "client service time";
    case Role::ClientResponse: return "client response time";
    case Role::ClientWait: return "client wait time";
    case Role::Coordinator: return "coordinator latency";
    case Role::Replica: return "replica-local latency";
  }
  return "";
}
const char* op_name(Op o) { return o == Op::Read ? "read" : (o == Op::Write ? "write" : "other"); }

namespace {
bool has_line_starting(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) == 0) return true;
  return text.find("\n" + prefix) != std::string::npos;
}
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
Op op_of(const std::string& name) {
  const std::string l = lower(name);
  if (l.find("read") != std::string::npos || l.find("select") != std::string::npos) return Op::Read;
  if (l.find("write") != std::string::npos || l.find("insert") != std::string::npos) return Op::Write;
  return Op::Other;
}
}  // namespace

std::string detect_format(const std::string& text) {
  if (text.find("Interval_Compressed_Histogram") != std::string::npos || has_line_starting(text, "#[Histogram log format") ||
      has_line_starting(text, "Tag="))
    return "hlog";
  if (has_line_starting(text, "#mbean")) return "jmx";
  if (has_line_starting(text, "proxy histograms")) return "proxyhistograms";
  if (has_line_starting(text, "Percentile") && text.find("SSTables") != std::string::npos) return "tablehistograms";
  if (has_line_starting(text, "Pool Name")) return "tpstats";
  if (has_line_starting(text, "Key Cache") || has_line_starting(text, "Row Cache") || has_line_starting(text, "Chunk Cache"))
    return "info";
  if (has_line_starting(text, "# TYPE scylla_") || has_line_starting(text, "scylla_")) return "prometheus";
  return "";
}

Parsed parse_hlog(const std::string& file, const std::string& text) {
  Parsed out;
  for (const auto& entry : read_interval_log(file, text)) {
    const std::string& tag = entry.first;  // a plain reference: lambdas below capture it (clang 15)
    const auto& h = entry.second;
    Sample s;
    s.file = file;
    s.metric = tag.empty() ? "(untagged)" : "Tag=" + tag;
    // Values in nanoseconds: cassandra-stress, cql-stress and latte always; scylla-bench by default
    // (-hdr-latency-units ns); lbsim's own logs.
    auto ends = [&](const char* suf) {
      const std::string x = suf;
      return tag.size() > x.size() && tag.compare(tag.size() - x.size(), x.size(), x) == 0;
    };
    if (ends("-st")) {
      s.role = Role::ClientService;
      s.op = op_of(tag.substr(0, tag.size() - 3));
    } else if (ends("-rt")) {
      s.role = Role::ClientResponse;
      s.op = op_of(tag.substr(0, tag.size() - 3));
    } else if (ends("-wt")) {
      s.role = Role::ClientWait;
      s.op = op_of(tag.substr(0, tag.size() - 3));
    } else if (tag == "raw" || tag.rfind("raw-", 0) == 0) {
      s.role = Role::ClientService;  // scylla-bench's uncorrected latencies
      s.op = op_of(tag);
      s.note = "scylla-bench raw (assumed -hdr-latency-units ns, its default)";
    } else if (tag.rfind("co-fixed", 0) == 0) {
      s.role = Role::ClientResponse;  // scylla-bench's coordinated-omission-fixed latencies
      s.op = op_of(tag);
      s.note = "scylla-bench co-fixed (assumed -hdr-latency-units ns, its default)";
    } else if (tag.rfind("fn--", 0) == 0 || ends(".requests")) {
      s.role = Role::ClientService;  // latte: per function; its README says it has no coordinated omission
      s.op = op_of(tag);
    } else if (tag.empty()) {
      s.role = Role::ClientService;
      s.op = Op::Other;
      s.note = "untagged: every operation together";
    } else {
      s.role = Role::ClientService;
      s.op = op_of(tag);
      out.notes.push_back(fmt::format("{}: tag '{}' is none of cassandra-stress's <OP>-st/-rt/-wt, scylla-bench's raw/co-fixed "
                                      "or latte's fn--NAME; read as a service time",
                                      file, tag));
    }
    for (std::size_t i = 0; i < h.lo.size(); ++i) {
      s.lo.push_back(static_cast<double>(h.lo[i]) / 1e3);
      s.hi.push_back(static_cast<double>(h.hi[i]) / 1e3);
      s.count.push_back(static_cast<double>(h.count[i]));
    }
    if (s.total() > 0) out.samples.push_back(std::move(s));
  }
  if (out.samples.empty()) out.notes.push_back(file + ": an interval log without any recorded value");
  return out;
}

Parsed parse_text(const std::string& file, const std::string& text) {
  const std::string f = detect_format(text);
  // Every format is text: a NUL or other control byte is a binary file, or a corrupted one.
  refuse_binary(text, file, f.empty() ? std::string("a text file lbsim fit reads") : f + " text");
  if (f == "hlog") return parse_hlog(file, text);
  if (f == "prometheus") return parse_prometheus(file, text);
  if (f == "jmx") return parse_jmx(file, text);
  if (f.empty())
    throw ConfigError(file + ":1",
                      "unrecognised format; expected one of: an HdrHistogram interval log (cassandra-stress -log hdrfile=, "
                      "scylla-bench, latte), a ScyllaDB Prometheus scrape (scylla_* metrics), nodetool proxyhistograms, "
                      "tablehistograms, tpstats or info output, or a JMX histogram dump (#mbean = ...)");
  return parse_nodetool(file, text, f);
}

}  // namespace lbsim::fit
