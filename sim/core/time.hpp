// Simulated time: integer nanoseconds in an int64 (about 292 years of range).
// Doubles appear only at the report boundary.
#pragma once
#include <cstdint>

namespace lbsim {

using SimTime = std::int64_t;  // nanoseconds since the start of the simulation

inline constexpr SimTime kNs = 1;
inline constexpr SimTime kUs = 1000;
inline constexpr SimTime kMs = 1000 * kUs;
inline constexpr SimTime kSec = 1000 * kMs;

constexpr double to_ms(SimTime t) { return static_cast<double>(t) / static_cast<double>(kMs); }
constexpr double to_sec(SimTime t) { return static_cast<double>(t) / static_cast<double>(kSec); }
// Rounds to the nearest nanosecond; callers validate ranges before converting.
constexpr SimTime from_ms(double ms) { return static_cast<SimTime>(ms * 1e6 + (ms >= 0 ? 0.5 : -0.5)); }
constexpr SimTime from_us(double us) { return static_cast<SimTime>(us * 1e3 + (us >= 0 ? 0.5 : -0.5)); }

}  // namespace lbsim
