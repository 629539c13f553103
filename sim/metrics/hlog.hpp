// HdrHistogram interval logs (".hlog", log format 1.3): one line per timeline interval with the
// interval's latency histogram in HdrHistogram's compressed V2 encoding, base64. Tools of the
// HdrHistogram family read them (HistogramLogProcessor, HistogramLogAnalyzer, the hdrh libraries).
//
// lbsim's LatencyHistogram has exactly HdrHistogram's bucket layout for 2 significant digits,
// lowest discernible value 1 and values in nanoseconds (256 exact values, then 128 sub-buckets
// per octave), so its counts are written index for index without re-bucketing. Values are
// nanoseconds; the Interval_Max column is in milliseconds (the Java writer's default unit ratio
// of 10^6), and timestamps are simulated seconds from the start of the measurement window.
//
// Format facts (cookies, header layout, ZigZag LEB128 with zero runs, zlib) are from
// HdrHistogram's documented V2 encoding; the implementation is lbsim's own. zlib does the
// compression; base64 is hand-written (a dozen lines; no Debian library offers a plain encoder).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/metrics/histogram.hpp"
#include "sim/metrics/timeline.hpp"

namespace lbsim::hlog {

// The HdrHistogram V2 encoding of one histogram (uncompressed; big-endian header of 40 bytes).
std::vector<std::uint8_t> encode(const LatencyHistogram& h);
// The compressed V2 encoding (cookie, length, zlib of encode()).
std::vector<std::uint8_t> encode_compressed(const LatencyHistogram& h);
std::string base64(const std::vector<std::uint8_t>& bytes);

// The whole log of a run's timeline. `comment` becomes a "#" line (scenario, policy, seed).
// `window` is the measurement window's length: the last interval is cut at its end.
std::string interval_log(const Timeline& t, SimTime window, const std::string& comment);

}  // namespace lbsim::hlog
