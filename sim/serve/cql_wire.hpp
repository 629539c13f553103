// The CQL native protocol v4's frames and notations (apache/cassandra doc/native_protocol_v4.spec,
// sections 2 and 3), for `lbsim serve` (issue 46). Debian 12 has no C++ CQL codec (no DataStax
// C++ driver package, and its codec is client-side), so this one is written here: a bounds-checked
// reader that throws ProtocolError, and an appending writer.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lbsim::cql {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::uint8_t kVersion = 4;         // requests; responses carry 0x84
inline constexpr std::uint8_t kResponse = 0x80;
inline constexpr std::size_t kHeaderSize = 9;
inline constexpr std::uint32_t kDefaultMaxBody = 1u << 20;  // 1 MiB (`lbsim serve --max-frame`)

enum Opcode : std::uint8_t {
  kError = 0x00, kStartup = 0x01, kReady = 0x02, kAuthenticate = 0x03, kOptions = 0x05, kSupported = 0x06,
  kQuery = 0x07, kResult = 0x08, kPrepare = 0x09, kExecute = 0x0A, kRegister = 0x0B, kEvent = 0x0C,
  kBatch = 0x0D, kAuthChallenge = 0x0E, kAuthResponse = 0x0F, kAuthSuccess = 0x10
};
std::string_view opcode_name(std::uint8_t op);  // "QUERY", ...; "0x1F" for an unknown one

// Error codes (spec section 9).
enum ErrorCode : std::int32_t {
  kServerError = 0x0000, kProtocolError = 0x000A, kBadCredentials = 0x0100, kUnavailable = 0x1000,
  kOverloaded = 0x1001, kIsBootstrapping = 0x1002, kTruncateError = 0x1003, kWriteTimeout = 0x1100,
  kReadTimeout = 0x1200, kReadFailure = 0x1300, kSyntaxError = 0x2000, kUnauthorized = 0x2100,
  kInvalid = 0x2200, kConfigError = 0x2300, kAlreadyExists = 0x2400, kUnprepared = 0x2500
};

// Result kinds (spec section 4.2.5).
enum ResultKind : std::int32_t { kVoid = 1, kRows = 2, kSetKeyspace = 3, kPrepared = 4, kSchemaChange = 5 };

// Option ids of column types (spec section 4.2.5.2).
enum TypeId : std::uint16_t {
  kCustom = 0x0000, kAscii = 0x0001, kBigint = 0x0002, kBlob = 0x0003, kBoolean = 0x0004, kCounter = 0x0005,
  kDecimal = 0x0006, kDouble = 0x0007, kFloat = 0x0008, kInt = 0x0009, kTimestamp = 0x000B, kUuid = 0x000C,
  kVarchar = 0x000D, kVarint = 0x000E, kTimeuuid = 0x000F, kInet = 0x0010, kDate = 0x0011, kTime = 0x0012,
  kSmallint = 0x0013, kTinyint = 0x0014, kList = 0x0020, kMap = 0x0021, kSet = 0x0022
};

// A column type: an id and, for collections, its element types (one for list and set, two for map).
struct Type {
  TypeId id = kBlob;
  std::vector<Type> elements;
  static Type of(TypeId i) { return {i, {}}; }
  static Type set_of(TypeId e) { return {kSet, {of(e)}}; }
  static Type list_of(TypeId e) { return {kList, {of(e)}}; }
  static Type map_of(TypeId k, TypeId v) { return {kMap, {of(k), of(v)}}; }
  bool operator==(const Type&) const = default;
};
// The CQL name ("blob", "set<text>", ...) and back (nullopt: not a type this server knows).
std::string type_name(const Type& t);
std::optional<Type> parse_type(std::string_view name);

// A malformed frame or body: the connection gets a PROTOCOL_ERROR (then is closed).
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Header {
  std::uint8_t version = 0;  // with the response bit
  std::uint8_t flags = 0;
  std::int16_t stream = 0;
  std::uint8_t opcode = 0;
  std::uint32_t length = 0;
};
Header parse_header(const std::uint8_t* p);  // kHeaderSize bytes

class Reader {
 public:
  Reader(const std::uint8_t* p, std::size_t n) : p_(p), end_(p + n) {}
  explicit Reader(const Bytes& b) : Reader(b.data(), b.size()) {}
  std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }
  std::uint8_t byte();
  std::uint16_t u16();  // [short]
  std::int32_t i32();   // [int]
  std::int64_t i64();   // [long]
  std::string string();        // [string]
  std::string long_string();   // [long string]
  std::optional<Bytes> bytes();  // [bytes]; nullopt for null
  // [value]: nullopt for null (-1) and "not set" (-2), which `unset` tells apart
  std::optional<Bytes> value(bool* unset = nullptr);
  Bytes short_bytes();  // [short bytes]
  std::vector<std::string> string_list();
  std::vector<std::pair<std::string, std::string>> string_map();
  std::map<std::string, std::vector<std::string>> string_multimap();  // SUPPORTED's body
  void skip(std::size_t n);

 private:
  void need(std::size_t n) const {
    if (left() < n) throw ProtocolError("truncated body: needs " + std::to_string(n) + " more bytes, has " + std::to_string(left()));
  }
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

class Writer {
 public:
  Bytes& out() { return b_; }
  const Bytes& out() const { return b_; }
  std::size_t size() const { return b_.size(); }
  void byte(std::uint8_t v) { b_.push_back(v); }
  void u16(std::uint16_t v) {
    b_.push_back(static_cast<std::uint8_t>(v >> 8));
    b_.push_back(static_cast<std::uint8_t>(v));
  }
  void i32(std::int32_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    for (int s = 24; s >= 0; s -= 8) b_.push_back(static_cast<std::uint8_t>(u >> s));
  }
  void i64(std::int64_t v) {
    const auto u = static_cast<std::uint64_t>(v);
    for (int s = 56; s >= 0; s -= 8) b_.push_back(static_cast<std::uint8_t>(u >> s));
  }
  void raw(const void* p, std::size_t n) {
    const auto* c = static_cast<const std::uint8_t*>(p);
    b_.insert(b_.end(), c, c + n);
  }
  void string(std::string_view s) {
    u16(static_cast<std::uint16_t>(s.size()));
    raw(s.data(), s.size());
  }
  void long_string(std::string_view s) {
    i32(static_cast<std::int32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void bytes(const Bytes& v) {
    i32(static_cast<std::int32_t>(v.size()));
    raw(v.data(), v.size());
  }
  void null_bytes() { i32(-1); }
  void short_bytes(const Bytes& v) {
    u16(static_cast<std::uint16_t>(v.size()));
    raw(v.data(), v.size());
  }
  void string_list(const std::vector<std::string>& l) {
    u16(static_cast<std::uint16_t>(l.size()));
    for (const auto& s : l) string(s);
  }
  void string_multimap(const std::vector<std::pair<std::string, std::vector<std::string>>>& m) {
    u16(static_cast<std::uint16_t>(m.size()));
    for (const auto& [k, v] : m) {
      string(k);
      string_list(v);
    }
  }
  void type(const Type& t) {
    u16(t.id);
    for (const Type& e : t.elements) type(e);
  }
  // An [inet]: 4 address bytes and a port.
  void inet(std::uint32_t addr, std::int32_t port) {
    byte(4);
    for (int s = 24; s >= 0; s -= 8) byte(static_cast<std::uint8_t>(addr >> s));
    i32(port);
  }

 private:
  Bytes b_;
};

// A whole frame: the header (response version 0x84, `flags`, `stream`, `opcode`) and `body`.
Bytes frame(std::int16_t stream, std::uint8_t opcode, const Bytes& body, std::uint8_t flags = 0);
// An ERROR body with no extra fields.
Bytes error_body(std::int32_t code, std::string_view message);

// Cell values (the [bytes] of a row), by type.
Bytes text_value(std::string_view s);
Bytes int_value(std::int32_t v);
Bytes bigint_value(std::int64_t v);
Bytes bool_value(bool v);
Bytes inet_value(std::uint32_t addr);  // IPv4
Bytes uuid_value(const std::array<std::uint8_t, 16>& u);
Bytes text_set_value(const std::vector<std::string>& items);  // set<text> / list<text>
Bytes text_map_value(const std::vector<std::pair<std::string, std::string>>& m);

// Dotted IPv4 text of a host-order address ("127.0.0.5"), and back (nullopt if malformed).
std::string ipv4_text(std::uint32_t addr);
std::optional<std::uint32_t> parse_ipv4(std::string_view s);

}  // namespace lbsim::cql
