#include "sim/config/import.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <arpa/inet.h>

#include "sim/core/error.hpp"
#include "sim/core/text_input.hpp"

namespace lbsim {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool parse_token(const std::string& s, Token& t) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  t = v;
  return true;
}

[[noreturn]] void bad_line(const std::string& source, std::size_t line, const std::string& what) {
  throw ConfigError(fmt::format("{}:{}", source, line), what);
}

constexpr const char* kTokenRange = "[-9223372036854775808, 9223372036854775807]";

// `s` as a token, or the line's error: a number out of Murmur3's range, or not an integer.
Token token_or_fail(const std::string& s, const std::string& source, std::size_t line, const char* expected) {
  Token t = 0;
  if (parse_token(s, t)) return t;
  std::int64_t v = 0;
  const char* b = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
  const auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range && p == s.data() + s.size())
    bad_line(source, line, fmt::format("token {} is out of range {} (Murmur3 tokens)", s, kTokenRange));
  bad_line(source, line, fmt::format("'{}' is not a token (an integer in {}); expected {}", s, kTokenRange, expected));
}

// A word that reads as a number (digits, signs, a point, an exponent): where nodetool prints a token.
bool numeric(const std::string& w) {
  bool digit = false;
  for (const char c : w) {
    if (c >= '0' && c <= '9') digit = true;
    else if (c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') return false;
  }
  return digit;
}

bool is_ip_address(std::string w) {
  if (w.size() > 2 && w.front() == '[' && w.back() == ']') w = w.substr(1, w.size() - 2);
  if (const auto slash = w.find('/'); slash != std::string::npos) w = w.substr(0, slash);  // "/10.0.0.1" forms
  unsigned char buf[16];
  return inet_pton(AF_INET, w.c_str(), buf) == 1 || inet_pton(AF_INET6, w.c_str(), buf) == 1;
}

constexpr const char* kRingRow = "a `nodetool ring` row ADDRESS RACK STATUS STATE LOAD OWNS TOKEN";

// Nodes in order of first appearance, by address.
struct Builder {
  std::vector<NodeSpec> nodes;
  std::map<std::string, std::size_t> index;
  std::vector<std::size_t> first_line;  // per node, the line that placed it
  std::set<Token> owned;
  // One address is one node: a second DC or rack for it is an error (a node has one place).
  NodeSpec& node(const std::string& address, const std::string& dc, const std::string& rack, const std::string& source,
                 std::size_t line) {
    auto [it, fresh] = index.emplace(address, nodes.size());
    if (fresh) {
      nodes.push_back({address, dc, rack, {}});
      first_line.push_back(line);
    }
    NodeSpec& n = nodes[it->second];
    const std::size_t first = first_line[it->second];
    if (!dc.empty() && !n.dc.empty() && dc != n.dc)
      bad_line(source, line, fmt::format("address {} is in datacenter '{}' here and in '{}' at line {}; a node has one "
                                         "datacenter",
                                         address, dc, n.dc, first));
    if (!rack.empty() && !n.rack.empty() && rack != n.rack)
      bad_line(source, line, fmt::format("address {} is on rack '{}' here and on '{}' at line {}; a node has one rack",
                                         address, rack, n.rack, first));
    if (n.dc.empty()) n.dc = dc;
    if (n.rack.empty()) n.rack = rack;
    return n;
  }
  void add_token(NodeSpec& n, Token t, const std::string& source, std::size_t line) {
    if (!owned.insert(t).second) bad_line(source, line, fmt::format("token {} is owned twice", t));
    n.tokens.push_back(t);
  }
};

// The value of "key:" inside a describering detail, up to ',' or ')'.
std::string field(const std::string& s, const std::string& key, std::size_t from = 0) {
  const auto at = s.find(key + ":", from);
  if (at == std::string::npos) return "";
  const auto start = at + key.size() + 1;
  const auto end = s.find_first_of(",)]", start);
  return trim(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
}

}  // namespace

ImportedRing parse_ring_text(const std::string& text, ImportFormat format, const std::string& source) {
  const char* expected = format == ImportFormat::NodetoolRing   ? "`nodetool ring` output"
                         : format == ImportFormat::Describering ? "`nodetool describering` output"
                                                                : "a ring CSV (address,dc,rack,tokens)";
  refuse_binary(text, source, expected);
  Builder b;
  std::istringstream in(text);
  std::string dc;
  std::size_t lineno = 0;
  bool header_skipped = false;
  std::size_t first_unread = 0;  // nodetool ring: the first line skipped as neither data nor decoration
  std::string unread;
  for (std::string raw; std::getline(in, raw);) {
    ++lineno;
    if (raw.size() > kMaxLineBytes) fail_long_line(source, lineno, expected);
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (format == ImportFormat::NodetoolRing) {
      if (line.rfind("Datacenter:", 0) == 0) {
        dc = trim(line.substr(11));
        continue;
      }
      // Decoration: the "=====" rule under "Datacenter:", the "Address Rack Status ..." header,
      // notes ("Note: Non-system keyspaces ...", "Warning: ..."). The ring's last token stands
      // alone on the line after the header. A data row starts with an IP address, or ends with a
      // number, or has its status (Up, Down, ?) third: such a line must read completely.
      if (line.find_first_not_of("=-") == std::string::npos) continue;
      const auto w = words(line);
      if (w[0] == "Address" || (w[0].size() > 1 && w[0].back() == ':' && !is_ip_address(w[0]))) continue;
      if (w.size() == 1 && numeric(w[0]) && !is_ip_address(w[0])) {
        (void)token_or_fail(w[0], source, lineno, "the ring's last token alone on the line after the header");
        continue;
      }
      const bool row = is_ip_address(w[0]) || (w.size() > 1 && numeric(w.back())) ||
                       (w.size() >= 3 && (w[2] == "Up" || w[2] == "Down" || w[2] == "?"));
      if (!row) {
        if (first_unread == 0) {
          first_unread = lineno;
          unread = line.substr(0, 60);
        }
        continue;
      }
      if (w.size() < 3)
        bad_line(source, lineno, fmt::format("{} column(s); expected {}", w.size(), kRingRow));
      const Token t = token_or_fail(w.back(), source, lineno, kRingRow);
      NodeSpec& n = b.node(w[0], dc.empty() ? "datacenter1" : dc, w[1], source, lineno);
      b.add_token(n, t, source, lineno);
    } else if (format == ImportFormat::Describering) {
      if (line.find("TokenRange(") == std::string::npos) continue;
      const std::string end_text = field(line, "end_token");
      if (end_text.empty()) bad_line(source, lineno, "no end_token in a TokenRange");
      const Token end = token_or_fail(end_text, source, lineno, "TokenRange(start_token:S, end_token:E, ...)");
      const auto details = line.find("endpoint_details:");
      if (details == std::string::npos) bad_line(source, lineno, "no endpoint_details in a TokenRange");
      // The primary owner: the first EndpointDetails; the others only register their DC/rack.
      bool first = true;
      for (auto at = line.find("EndpointDetails(", details); at != std::string::npos;
           at = line.find("EndpointDetails(", at + 1)) {
        const std::string host = field(line, "host", at);
        const std::string d = field(line, "datacenter", at);
        const std::string r = field(line, "rack", at);
        if (host.empty()) bad_line(source, lineno, "EndpointDetails without host");
        NodeSpec& n = b.node(host, d, r, source, lineno);
        if (first) b.add_token(n, end, source, lineno);
        first = false;
      }
      if (first) bad_line(source, lineno, "a TokenRange without endpoints");
    } else {
      std::vector<std::string> cols;
      std::stringstream ss(line);
      for (std::string c; std::getline(ss, c, ',');) cols.push_back(trim(c));
      if (!header_skipped && !cols.empty() && (cols[0] == "address" || cols[0] == "Address")) {
        header_skipped = true;
        continue;
      }
      header_skipped = true;
      if (cols.size() != 4) bad_line(source, lineno, fmt::format("expected 4 columns address,dc,rack,tokens, got {}", cols.size()));
      if (cols[0].empty() || cols[1].empty() || cols[2].empty())
        bad_line(source, lineno, "an empty address, dc or rack; expected address,dc,rack,tokens");
      NodeSpec& n = b.node(cols[0], cols[1], cols[2], source, lineno);
      std::string toks = cols[3];
      std::replace(toks.begin(), toks.end(), ';', ' ');
      for (const auto& w : words(toks)) b.add_token(n, token_or_fail(w, source, lineno, "address,dc,rack,tokens"), source, lineno);
    }
  }
  if (b.nodes.empty()) {
    if (first_unread > 0)
      bad_line(source, first_unread, fmt::format("no node found: '{}' is not {} (is this the output of the format given?)",
                                                 unread, kRingRow));
    throw ConfigError(source, fmt::format("no node found (is this {}?)", expected));
  }
  ImportedRing out;
  for (auto& n : b.nodes) {
    if (n.dc.empty()) n.dc = "datacenter1";
    if (n.rack.empty()) n.rack = "rack1";
    std::sort(n.tokens.begin(), n.tokens.end());
    if (n.tokens.empty()) out.warnings.push_back(fmt::format("{}: node {} owns no token in the input", source, n.id));
  }
  out.nodes = std::move(b.nodes);
  return out;
}

void apply_rackdc(NodeSpec& node, const std::string& properties, const std::string& source) {
  constexpr const char* kExpected = "a cassandra-rackdc.properties file (dc=NAME, rack=NAME lines)";
  refuse_binary(properties, source, kExpected);
  std::istringstream in(properties);
  std::size_t lineno = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++lineno;
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    if (raw.size() > kMaxLineBytes) fail_long_line(source, lineno, kExpected);
    if (eq == std::string::npos) bad_line(source, lineno, std::string("expected key=value; expected ") + kExpected);
    const std::string k = trim(line.substr(0, eq)), v = trim(line.substr(eq + 1));
    if ((k == "dc" || k == "rack") && v.empty()) bad_line(source, lineno, k + "= is empty; expected " + kExpected);
    if (k == "dc") node.dc = v;
    else if (k == "rack") node.rack = v;
  }
}

Replication parse_rf_option(const std::string& text) {
  Replication r;
  if (text.find('=') == std::string::npos) {
    int rf = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), rf);
    if (ec != std::errc() || p != text.data() + text.size() || rf < 1)
      throw ConfigError("--rf", "'" + text + "': give DC=RF,... (NetworkTopologyStrategy) or one RF (SimpleStrategy)");
    r.kind = StrategyKind::Simple;
    r.simple_rf = rf;
    return r;
  }
  r.kind = StrategyKind::NetworkTopology;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto eq = item.find('=');
    int rf = 0;
    const std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), rf);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || p != v.data() + v.size() || rf < 1)
      throw ConfigError("--rf", "'" + item + "': expected DC=RF with RF >= 1");
    const std::string dc = item.substr(0, eq);
    for (const auto& [d, n] : r.dc_rf)
      if (d == dc)
        throw ConfigError("--rf", fmt::format("'{}': datacenter {} is given twice ({}={} before); give each DC once", text, dc, d, n));
    r.dc_rf.emplace_back(dc, rf);
  }
  return r;
}

jsonin::Json topology_file_json(const ImportedRing& ring, const Replication& repl, const std::string& generator) {
  jsonin::Json j;
  j["generator"] = generator;
  j["nodes"] = jsonin::Json::array();
  for (const auto& n : ring.nodes) {
    jsonin::Json toks = jsonin::Json::array();
    for (Token t : n.tokens) toks.push_back(t);
    j["nodes"].push_back({{"id", n.id}, {"dc", n.dc}, {"rack", n.rack}, {"tokens", toks}});
  }
  if (repl.kind == StrategyKind::Simple) {
    j["keyspace"] = {{"class", "SimpleStrategy"}, {"rf", repl.simple_rf}};
  } else {
    jsonin::Json rf = jsonin::Json::object();
    for (const auto& [dc, n] : repl.dc_rf) rf[dc] = n;
    j["keyspace"] = {{"class", "NetworkTopologyStrategy"}, {"rf", rf}};
  }
  return j;
}

std::optional<ImportFormat> sniff_ring_text(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] == '{' || text[first] == '[') return std::nullopt;  // (bad) JSON
  const bool ring_header = text.find("Datacenter:") != std::string::npos || text.find("\nAddress ") != std::string::npos ||
                           text.compare(first, 8, "Address ") == 0;
  for (const ImportFormat f : {ImportFormat::Describering, ImportFormat::NodetoolRing, ImportFormat::Csv}) {
    if (f == ImportFormat::NodetoolRing && !ring_header) continue;
    try {
      (void)parse_ring_text(text, f, "");
      return f;
    } catch (const ConfigError&) {
    }
  }
  return std::nullopt;
}

jsonin::Json load_json_or_import_hint(const std::string& file) {
  try {
    return jsonin::load_file(file);
  } catch (const ConfigError& e) {
    if (!e.message().starts_with("not valid JSON")) throw;
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto f = sniff_ring_text(text);
    if (!f) throw;
    const char* what = *f == ImportFormat::NodetoolRing   ? "`nodetool ring` output"
                       : *f == ImportFormat::Describering ? "`nodetool describering` output"
                                                          : "a ring CSV (address,dc,rack,tokens)";
    const char* option = *f == ImportFormat::NodetoolRing ? "--ring" : *f == ImportFormat::Describering ? "--describering" : "--csv";
    throw ConfigError(e.path(), fmt::format("not JSON: it reads as {}; lbsim takes it through `lbsim import`: lbsim "
                                            "import {} {} --rf DC=RF,... --out topo.json (a topology file for ring, "
                                            "replicas, plan), or add --scenario BASE.json and --out my.json for a "
                                            "runnable scenario",
                                            what, option, file));
  }
}

}  // namespace lbsim
