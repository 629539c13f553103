#include "sim/cluster/consistency.hpp"

#include <array>
#include <utility>

namespace lbsim {
namespace {
constexpr std::array<std::pair<std::string_view, ConsistencyLevel>, 11> kNames{{
    {"ANY", ConsistencyLevel::Any},
    {"ONE", ConsistencyLevel::One},
    {"TWO", ConsistencyLevel::Two},
    {"THREE", ConsistencyLevel::Three},
    {"QUORUM", ConsistencyLevel::Quorum},
    {"ALL", ConsistencyLevel::All},
    {"LOCAL_QUORUM", ConsistencyLevel::LocalQuorum},
    {"EACH_QUORUM", ConsistencyLevel::EachQuorum},
    {"LOCAL_ONE", ConsistencyLevel::LocalOne},
    {"SERIAL", ConsistencyLevel::Serial},
    {"LOCAL_SERIAL", ConsistencyLevel::LocalSerial},
}};
}  // namespace

std::string_view to_string(ConsistencyLevel cl) {
  for (const auto& [name, v] : kNames)
    if (v == cl) return name;
  return "?";
}

// Case-insensitive: "local_one" is LOCAL_ONE, as the drivers' enum lookups accept either case.
std::optional<ConsistencyLevel> parse_consistency(std::string_view name) {
  for (const auto& [n, v] : kNames) {
    if (n.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < n.size() && same; ++i)
      same = n[i] == (name[i] >= 'a' && name[i] <= 'z' ? static_cast<char>(name[i] - 'a' + 'A') : name[i]);
    if (same) return v;
  }
  return std::nullopt;
}

}  // namespace lbsim
