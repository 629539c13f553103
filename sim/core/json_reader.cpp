#include "sim/core/json_reader.hpp"

#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace lbsim::jsonin {

std::string key_path(const std::string& parent, std::string_view key) {
  std::string out = parent;
  out += '/';
  // JSON Pointer escaping (RFC 6901).
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "/" + std::to_string(index);
}

const char* type_name(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    default: return "a binary value";
  }
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

void fail(const std::string& path, const std::string& message) {
  throw ConfigError(path.empty() ? "/" : path, message);
}

namespace {
// Deeper documents are refused before parsing: nothing valid comes near, and recursive code
// (dump, path walks) must not exhaust the stack on a hostile file.
constexpr int kMaxDepth = 100;

void check_depth(const std::string& text, const std::string& what) {
  int depth = 0;
  bool in_string = false;
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        throw ConfigError(what, fmt::format("arrays and objects nested deeper than {} levels (line {})", kMaxDepth, line));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}
}  // namespace

namespace {
// nlohmann keeps the last of repeated keys; the parser callback sees every key of an object as it
// is read, so a repeat is refused with the JSON pointer of the object member named twice.
template <class J>
J parse_unique(const std::string& text, const std::string& what) {
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;        // the member being read (objects)
    std::size_t index = 0;  // the element being read (arrays)
  };
  std::vector<Frame> stack;
  const auto element_done = [&] {
    if (!stack.empty() && !stack.back().object) ++stack.back().index;
  };
  typename J::parser_callback_t cb = [&](int, nlohmann::json::parse_event_t ev, J& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (ev) {
      case E::object_start: stack.push_back({true, {}, {}, 0}); break;
      case E::array_start: stack.push_back({false, {}, {}, 0}); break;
      case E::key: {
        Frame& f = stack.back();
        f.key = parsed.template get<std::string>();
        if (!f.keys.insert(f.key).second) {
          std::string pointer;
          for (const Frame& g : stack) pointer = g.object ? key_path(pointer, g.key) : index_path(pointer, g.index);
          throw ConfigError(what + ": " + pointer,
                            fmt::format("duplicate key \"{}\": an object names each key once (JSON readers disagree on "
                                        "which of the two counts); remove one",
                                        f.key));
        }
        break;
      }
      case E::object_end:
      case E::array_end:
        stack.pop_back();
        element_done();
        break;
      case E::value: element_done(); break;
    }
    return true;
  };
  return J::parse(text, cb);
}
}  // namespace

template <class J>
J parse_checked(const std::string& text, const std::string& what) {
  if (text.empty()) throw ConfigError(what, "file is empty; expected a JSON document");
  check_depth(text, what);
  try {
    return parse_unique<J>(text, what);
  } catch (const Json::parse_error& e) {
    // Turn the byte offset into a line and column.
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string msg = e.what();
    const auto p = msg.find("syntax error");
    if (p != std::string::npos) msg = msg.substr(p);
    std::string clean;  // binary files: show bytes that are not printable ASCII as \xNN
    for (const char ch : msg) {
      const auto u = static_cast<unsigned char>(ch);
      clean += std::isprint(u) ? std::string(1, ch) : fmt::format("\\x{:02x}", u);
    }
    msg = clean;
    // NaN and Infinity are not JSON tokens (nlohmann reports "invalid literal"): say so.
    std::size_t start = e.byte > 0 ? e.byte - 1 : 0;
    while (start > 0 && std::isalpha(static_cast<unsigned char>(text[start - 1]))) --start;
    for (const char* word : {"NaN", "Infinity", "nan", "inf"})
      if (text.compare(start, std::strlen(word), word) == 0) {
        msg += "; NaN and Infinity are not valid JSON numbers: give a finite number";
        break;
      }
    // A document that does not even open with an object or array is probably not JSON at all
    // (YAML, a properties file): say what lbsim reads.
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] != '{' && text[first] != '[')
      msg += "; lbsim reads JSON documents (an object in braces; scenarios: configs/README.md), not YAML or other formats";
    throw ConfigError(what, fmt::format("not valid JSON (line {}, column {}): {}", line, col, msg));
  } catch (const Json::exception& e) {
    // nlohmann throws out_of_range (not parse_error) for a number that overflows a double (1e400).
    std::string msg = e.what();
    const auto p = msg.find("] ");
    if (p != std::string::npos) msg = msg.substr(p + 2);
    throw ConfigError(what, "not valid JSON: " + msg + " (numbers must fit a double, up to about 1.8e308)");
  }
}

Json parse_text(const std::string& text, const std::string& what) { return parse_checked<Json>(text, what); }
nlohmann::ordered_json parse_text_ordered(const std::string& text, const std::string& what) {
  return parse_checked<nlohmann::ordered_json>(text, what);
}
Json parse_value(const std::string& text, const std::string& what) { return parse_unique<Json>(text, what); }

namespace {
std::string read_json_file(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto st = fs::status(file, ec);
  if (ec || !fs::exists(st)) throw ConfigError(file, "no such file");
  if (fs::is_directory(st)) throw ConfigError(file, "is a directory, expected a JSON file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file, "cannot be read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

Json load_file(const std::string& file) { return parse_text(read_json_file(file), file); }
nlohmann::ordered_json load_file_ordered(const std::string& file) { return parse_text_ordered(read_json_file(file), file); }

std::int64_t as_int(const Json& j, const std::string& path, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (j.is_number_integer() && !j.is_number_unsigned()) {
    v = j.get<std::int64_t>();
  } else if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(path, fmt::format("must be an integer in [{}, {}], got {}", lo, hi, u));
    v = static_cast<std::int64_t>(u);
  } else if (j.is_number_float()) {
    const double d = j.get<double>();
    if (!std::isfinite(d))  // 1e400 parses as infinity, which dump() would print as null
      fail(path, fmt::format("must be an integer in [{}, {}], got {}", lo, hi, d > 0 ? "a number too large" : "a number too small"));
    if (d != std::floor(d) || std::fabs(d) > 9.0e15)
      fail(path, fmt::format("must be an integer in [{}, {}], got {}", lo, hi, j.dump()));
    v = static_cast<std::int64_t>(d);
  } else {
    fail(path, fmt::format("must be an integer in [{}, {}], got {}", lo, hi, type_name(j)));
  }
  if (v < lo || v > hi) fail(path, fmt::format("must be in [{}, {}], got {}", lo, hi, v));
  return v;
}

double as_number(const Json& j, const std::string& path, double lo, double hi) {
  if (!j.is_number()) fail(path, fmt::format("must be a number in [{}, {}], got {}", lo, hi, type_name(j)));
  const double d = j.get<double>();
  if (!std::isfinite(d))
    fail(path, fmt::format("must be a finite number in [{}, {}], got {}", lo, hi, d > 0 ? "a number too large" : "a number too small"));
  if (d < lo || d > hi) fail(path, fmt::format("must be in [{}, {}], got {}", lo, hi, d));
  return d;
}

std::string as_string(const Json& j, const std::string& path, bool allow_empty) {
  if (!j.is_string()) fail(path, fmt::format("must be a string, got {}", type_name(j)));
  std::string s = j.get<std::string>();
  if (!allow_empty && s.empty()) fail(path, "must not be empty");
  return s;
}

bool as_bool(const Json& j, const std::string& path) {
  if (!j.is_boolean()) fail(path, fmt::format("must be true or false, got {}", type_name(j)));
  return j.get<bool>();
}

const Json& as_array(const Json& j, const std::string& path, bool allow_empty) {
  if (!j.is_array()) fail(path, fmt::format("must be an array, got {}", type_name(j)));
  if (!allow_empty && j.empty()) fail(path, "must not be empty");
  return j;
}

std::int64_t as_token(const Json& j, const std::string& path) {
  constexpr const char* kRange = "[-9223372036854775808, 9223372036854775807]";
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() &&
        j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(path, fmt::format("token {} is out of range {}", j.get<std::uint64_t>(), kRange));
    return j.get<std::int64_t>();
  }
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    bool digits = i < s.size();
    for (std::size_t k = i; k < s.size(); ++k) digits = digits && s[k] >= '0' && s[k] <= '9';
    if (!digits) fail(path, "token '" + s + "' is not a decimal integer");
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == ERANGE) fail(path, fmt::format("token {} is out of range {}", s, kRange));
    return v;
  }
  fail(path, fmt::format("a token must be an integer or a decimal string, got {}", type_name(j)));
}

Object::Object(const Json& j, std::string path, std::initializer_list<std::string_view> allowed)
    : j_(&j), path_(std::move(path)) {
  std::vector<std::string> v;
  for (auto a : allowed) v.emplace_back(a);
  check_keys(v);
}

Object::Object(const Json& j, std::string path, const std::vector<std::string>& allowed)
    : j_(&j), path_(std::move(path)) {
  check_keys(allowed);
}

void Object::check_keys(const std::vector<std::string>& allowed) const {
  if (!j_->is_object()) fail(path_, fmt::format("must be an object, got {}", type_name(*j_)));
  for (const auto& [key, value] : j_->items()) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == key;
    if (!ok) fail(key_path(path_, key), "unknown key '" + key + "'; allowed keys: " + join(allowed));
  }
}

const Json* Object::find(std::string_view key) const {
  auto it = j_->find(key);
  return it == j_->end() ? nullptr : &*it;
}

const Json& Object::at(std::string_view key) const {
  const Json* v = find(key);
  if (v == nullptr) fail(path_of(key), "required field is missing");
  return *v;
}

std::string Object::str(std::string_view key) const { return as_string(at(key), path_of(key)); }
std::string Object::str(std::string_view key, std::string dflt) const {
  const Json* v = find(key);
  return v ? as_string(*v, path_of(key)) : dflt;
}
std::int64_t Object::integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
  return as_int(at(key), path_of(key), lo, hi);
}
std::int64_t Object::integer(std::string_view key, std::int64_t lo, std::int64_t hi,
                             std::int64_t dflt) const {
  const Json* v = find(key);
  return v ? as_int(*v, path_of(key), lo, hi) : dflt;
}
double Object::number(std::string_view key, double lo, double hi) const {
  return as_number(at(key), path_of(key), lo, hi);
}
double Object::number(std::string_view key, double lo, double hi, double dflt) const {
  const Json* v = find(key);
  return v ? as_number(*v, path_of(key), lo, hi) : dflt;
}
bool Object::boolean(std::string_view key, bool dflt) const {
  const Json* v = find(key);
  return v ? as_bool(*v, path_of(key)) : dflt;
}

}  // namespace lbsim::jsonin
