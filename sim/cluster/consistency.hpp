// Consistency levels and how many replica responses each needs.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace lbsim {

enum class ConsistencyLevel : std::uint8_t {
  Any, One, Two, Three, Quorum, All, LocalQuorum, EachQuorum, LocalOne, Serial, LocalSerial
};

std::string_view to_string(ConsistencyLevel cl);
std::optional<ConsistencyLevel> parse_consistency(std::string_view name);  // "LOCAL_QUORUM", ...
inline constexpr std::string_view kConsistencyNames =
    "ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE, SERIAL, LOCAL_SERIAL";

// DC-local levels (Java driver ConsistencyLevel.isDCLocal): LOCAL_ONE, LOCAL_QUORUM, LOCAL_SERIAL.
constexpr bool is_dc_local(ConsistencyLevel cl) {
  return cl == ConsistencyLevel::LocalOne || cl == ConsistencyLevel::LocalQuorum ||
         cl == ConsistencyLevel::LocalSerial;
}

}  // namespace lbsim
