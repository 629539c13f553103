// Strict reading of JSON input: every error names the JSON path and what is allowed.
//
// An Object is constructed with the complete list of keys it accepts, so an unknown key (a typo)
// is an error at once instead of a silent fallback to a default. Numbers are range-checked and
// must be finite; integers must be integral. Everything throws ConfigError.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

namespace lbsim::jsonin {

using Json = nlohmann::json;

std::string key_path(const std::string& parent, std::string_view key);  // "/a" + "b" -> "/a/b"
std::string index_path(const std::string& parent, std::size_t index);   // "/a" + 3 -> "/a/3"
const char* type_name(const Json& j);
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

[[noreturn]] void fail(const std::string& path, const std::string& message);

// Reads and parses a JSON file. A missing file, a directory, an empty file, a syntax error or a
// key repeated within one object is a ConfigError that names the file (and the line for syntax
// errors, the JSON pointer of the repeated key: "f.json: /seed: duplicate key ...").
Json load_file(const std::string& file);
// The same for text already in memory; `what` names the source in messages.
Json parse_text(const std::string& text, const std::string& what);
// The same, keeping each object's keys in document order.
nlohmann::ordered_json load_file_ordered(const std::string& file);
nlohmann::ordered_json parse_text_ordered(const std::string& text, const std::string& what);
// Only the duplicate-key check (ConfigError naming `what` and the pointer): a syntax error stays
// nlohmann's exception, for callers that read text which may not be JSON (`--set PATH=VALUE`).
Json parse_value(const std::string& text, const std::string& what);

std::int64_t as_int(const Json& j, const std::string& path, std::int64_t lo, std::int64_t hi);
double as_number(const Json& j, const std::string& path, double lo, double hi);
std::string as_string(const Json& j, const std::string& path, bool allow_empty = false);
bool as_bool(const Json& j, const std::string& path);
const Json& as_array(const Json& j, const std::string& path, bool allow_empty = false);
// A token: an integer or a decimal string in [-2^63, 2^63-1].
std::int64_t as_token(const Json& j, const std::string& path);

class Object {
 public:
  Object(const Json& j, std::string path, std::initializer_list<std::string_view> allowed);
  Object(const Json& j, std::string path, const std::vector<std::string>& allowed);

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const { return key_path(path_, key); }
  bool has(std::string_view key) const { return j_->contains(key); }
  const Json* find(std::string_view key) const;
  const Json& at(std::string_view key) const;  // required key

  std::string str(std::string_view key) const;
  std::string str(std::string_view key, std::string dflt) const;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi, std::int64_t dflt) const;
  double number(std::string_view key, double lo, double hi) const;
  double number(std::string_view key, double lo, double hi, double dflt) const;
  bool boolean(std::string_view key, bool dflt) const;

  // A string that must be one of `choices`; the error lists them.
  template <class E>
  E choice(std::string_view key, std::initializer_list<std::pair<std::string_view, E>> choices,
           std::optional<E> dflt = std::nullopt) const {
    const Json* v = find(key);
    if (v == nullptr) {
      if (dflt) return *dflt;
      fail(path_of(key), "required field is missing");
    }
    const std::string s = as_string(*v, path_of(key));
    std::vector<std::string> names;
    for (const auto& [name, value] : choices) {
      if (name == s) return value;
      names.emplace_back(name);
    }
    fail(path_of(key), "unknown value '" + s + "'; valid: " + join(names));
  }

 private:
  void check_keys(const std::vector<std::string>& allowed) const;
  const Json* j_;
  std::string path_;
};

}  // namespace lbsim::jsonin
