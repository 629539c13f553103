#include "sim/serve/cql_wire.hpp"

#include <array>
#include <charconv>

#include <fmt/format.h>

namespace lbsim::cql {

std::string_view opcode_name(std::uint8_t op) {
  static constexpr std::array<std::string_view, 17> kNames{
      "ERROR",   "STARTUP", "READY",    "AUTHENTICATE", "0x04",  "OPTIONS",        "SUPPORTED",     "QUERY",       "RESULT",
      "PREPARE", "EXECUTE", "REGISTER", "EVENT",        "BATCH", "AUTH_CHALLENGE", "AUTH_RESPONSE", "AUTH_SUCCESS"};
  static const std::array<std::string, 256> kHex = [] {
    std::array<std::string, 256> h;
    for (int i = 0; i < 256; ++i) h[static_cast<std::size_t>(i)] = fmt::format("0x{:02X}", i);
    return h;
  }();
  if (op < kNames.size() && op != 0x04) return kNames[op];
  return kHex[op];
}

std::string type_name(const Type& t) {
  switch (t.id) {
    case kAscii: return "ascii";
    case kBigint: return "bigint";
    case kBlob: return "blob";
    case kBoolean: return "boolean";
    case kCounter: return "counter";
    case kDecimal: return "decimal";
    case kDouble: return "double";
    case kFloat: return "float";
    case kInt: return "int";
    case kTimestamp: return "timestamp";
    case kUuid: return "uuid";
    case kVarchar: return "text";
    case kVarint: return "varint";
    case kTimeuuid: return "timeuuid";
    case kInet: return "inet";
    case kDate: return "date";
    case kTime: return "time";
    case kSmallint: return "smallint";
    case kTinyint: return "tinyint";
    case kList: return "list<" + type_name(t.elements.at(0)) + ">";
    case kSet: return "set<" + type_name(t.elements.at(0)) + ">";
    case kMap: return "map<" + type_name(t.elements.at(0)) + ", " + type_name(t.elements.at(1)) + ">";
    default: return "custom";
  }
}

std::optional<Type> parse_type(std::string_view s) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t' || v.front() == '\n')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\n')) v.remove_suffix(1);
    return v;
  };
  s = trim(s);
  std::string low(s);
  for (char& c : low) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  static const std::array<std::pair<std::string_view, TypeId>, 20> kSimple{{
      {"ascii", kAscii},       {"bigint", kBigint}, {"blob", kBlob},         {"boolean", kBoolean},
      {"counter", kCounter},   {"decimal", kDecimal}, {"double", kDouble},   {"float", kFloat},
      {"int", kInt},           {"timestamp", kTimestamp}, {"uuid", kUuid},   {"text", kVarchar},
      {"varchar", kVarchar},   {"varint", kVarint}, {"timeuuid", kTimeuuid}, {"inet", kInet},
      {"date", kDate},         {"time", kTime},     {"smallint", kSmallint}, {"tinyint", kTinyint},
  }};
  for (const auto& [name, id] : kSimple)
    if (low == name) return Type::of(id);
  const std::string_view l = low;
  const auto open = l.find('<');
  if (open == std::string_view::npos || l.back() != '>') return std::nullopt;
  const std::string_view outer = trim(l.substr(0, open));
  const std::string_view inner = l.substr(open + 1, l.size() - open - 2);
  if (outer == "frozen") return parse_type(inner);
  if (outer == "list" || outer == "set") {
    auto e = parse_type(inner);
    if (!e) return std::nullopt;
    return Type{outer == "list" ? kList : kSet, {*e}};
  }
  if (outer == "map") {
    // The comma at depth 0 splits key and value types.
    int depth = 0;
    for (std::size_t i = 0; i < inner.size(); ++i) {
      if (inner[i] == '<') ++depth;
      else if (inner[i] == '>') --depth;
      else if (inner[i] == ',' && depth == 0) {
        auto k = parse_type(inner.substr(0, i));
        auto v = parse_type(inner.substr(i + 1));
        if (!k || !v) return std::nullopt;
        return Type{kMap, {*k, *v}};
      }
    }
  }
  return std::nullopt;
}

Header parse_header(const std::uint8_t* p) {
  Header h;
  h.version = p[0];
  h.flags = p[1];
  h.stream = static_cast<std::int16_t>(static_cast<std::uint16_t>(p[2] << 8 | p[3]));
  h.opcode = p[4];
  h.length = static_cast<std::uint32_t>(p[5]) << 24 | static_cast<std::uint32_t>(p[6]) << 16 |
             static_cast<std::uint32_t>(p[7]) << 8 | p[8];
  return h;
}

std::uint8_t Reader::byte() {
  need(1);
  return *p_++;
}
std::uint16_t Reader::u16() {
  need(2);
  const auto v = static_cast<std::uint16_t>(p_[0] << 8 | p_[1]);
  p_ += 2;
  return v;
}
std::int32_t Reader::i32() {
  need(4);
  const std::uint32_t v = static_cast<std::uint32_t>(p_[0]) << 24 | static_cast<std::uint32_t>(p_[1]) << 16 |
                          static_cast<std::uint32_t>(p_[2]) << 8 | p_[3];
  p_ += 4;
  return static_cast<std::int32_t>(v);
}
std::int64_t Reader::i64() {
  need(8);
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p_[i];
  p_ += 8;
  return static_cast<std::int64_t>(v);
}
std::string Reader::string() {
  const std::uint16_t n = u16();
  need(n);
  std::string s(reinterpret_cast<const char*>(p_), n);
  p_ += n;
  return s;
}
std::string Reader::long_string() {
  const std::int32_t n = i32();
  if (n < 0) throw ProtocolError("negative [long string] length " + std::to_string(n));
  need(static_cast<std::size_t>(n));
  std::string s(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(n));
  p_ += n;
  return s;
}
std::optional<Bytes> Reader::bytes() {
  const std::int32_t n = i32();
  if (n < 0) return std::nullopt;
  need(static_cast<std::size_t>(n));
  Bytes b(p_, p_ + n);
  p_ += n;
  return b;
}
std::optional<Bytes> Reader::value(bool* unset) {
  const std::int32_t n = i32();
  if (unset) *unset = n == -2;
  if (n == -1 || n == -2) return std::nullopt;
  if (n < 0) throw ProtocolError("invalid [value] length " + std::to_string(n));
  need(static_cast<std::size_t>(n));
  Bytes b(p_, p_ + n);
  p_ += n;
  return b;
}
Bytes Reader::short_bytes() {
  const std::uint16_t n = u16();
  need(n);
  Bytes b(p_, p_ + n);
  p_ += n;
  return b;
}
std::vector<std::string> Reader::string_list() {
  const std::uint16_t n = u16();
  std::vector<std::string> out;
  for (std::uint16_t i = 0; i < n; ++i) out.push_back(string());
  return out;
}
std::vector<std::pair<std::string, std::string>> Reader::string_map() {
  const std::uint16_t n = u16();
  std::vector<std::pair<std::string, std::string>> out;
  for (std::uint16_t i = 0; i < n; ++i) {
    std::string k = string();
    out.emplace_back(std::move(k), string());
  }
  return out;
}
std::map<std::string, std::vector<std::string>> Reader::string_multimap() {
  const std::uint16_t n = u16();
  std::map<std::string, std::vector<std::string>> out;
  for (std::uint16_t i = 0; i < n; ++i) {
    std::string k = string();
    out[std::move(k)] = string_list();
  }
  return out;
}
void Reader::skip(std::size_t n) {
  need(n);
  p_ += n;
}

Bytes frame(std::int16_t stream, std::uint8_t opcode, const Bytes& body, std::uint8_t flags) {
  Writer w;
  w.byte(kResponse | kVersion);
  w.byte(flags);
  w.u16(static_cast<std::uint16_t>(stream));
  w.byte(opcode);
  w.i32(static_cast<std::int32_t>(body.size()));
  w.raw(body.data(), body.size());
  return std::move(w.out());
}

Bytes error_body(std::int32_t code, std::string_view message) {
  Writer w;
  w.i32(code);
  w.string(message);
  return std::move(w.out());
}

Bytes text_value(std::string_view s) { return Bytes(s.begin(), s.end()); }
Bytes int_value(std::int32_t v) {
  Writer w;
  w.i32(v);
  return std::move(w.out());
}
Bytes bigint_value(std::int64_t v) {
  Writer w;
  w.i64(v);
  return std::move(w.out());
}
Bytes bool_value(bool v) { return Bytes{static_cast<std::uint8_t>(v ? 1 : 0)}; }
Bytes inet_value(std::uint32_t addr) {
  return Bytes{static_cast<std::uint8_t>(addr >> 24), static_cast<std::uint8_t>(addr >> 16),
               static_cast<std::uint8_t>(addr >> 8), static_cast<std::uint8_t>(addr)};
}
Bytes uuid_value(const std::array<std::uint8_t, 16>& u) { return Bytes(u.begin(), u.end()); }
Bytes text_set_value(const std::vector<std::string>& items) {
  Writer w;
  w.i32(static_cast<std::int32_t>(items.size()));
  for (const auto& s : items) w.bytes(text_value(s));
  return std::move(w.out());
}
Bytes text_map_value(const std::vector<std::pair<std::string, std::string>>& m) {
  Writer w;
  w.i32(static_cast<std::int32_t>(m.size()));
  for (const auto& [k, v] : m) {
    w.bytes(text_value(k));
    w.bytes(text_value(v));
  }
  return std::move(w.out());
}

std::string ipv4_text(std::uint32_t a) {
  return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}
std::optional<std::uint32_t> parse_ipv4(std::string_view s) {
  std::uint32_t out = 0;
  for (int part = 0; part < 4; ++part) {
    unsigned v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || v > 255 || p == s.data()) return std::nullopt;
    out = out << 8 | v;
    s.remove_prefix(static_cast<std::size_t>(p - s.data()));
    if (part < 3) {
      if (s.empty() || s.front() != '.') return std::nullopt;
      s.remove_prefix(1);
    }
  }
  if (!s.empty()) return std::nullopt;
  return out;
}

}  // namespace lbsim::cql
