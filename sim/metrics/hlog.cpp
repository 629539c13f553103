#include "sim/metrics/hlog.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <zlib.h>

namespace lbsim::hlog {
namespace {

// HdrHistogram V2 cookies: the base with 0x10 set ("word size" nibble: LEB128 + ZigZag counts).
constexpr std::uint32_t kCookie = 0x1c849303u | 0x10u;
constexpr std::uint32_t kCompressedCookie = 0x1c849304u | 0x10u;
constexpr int kSignificantDigits = 2;  // 2 digits -> 256 sub-buckets: lbsim's layout (see the header)
constexpr std::int64_t kLowest = 1;

void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}
void put64(std::vector<std::uint8_t>& b, std::uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}
void set32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

// ZigZag, then little-endian base-128 with a continuation bit; HdrHistogram caps a word at 9
// bytes, the ninth carrying 8 bits. Counts and zero runs never come near 2^56, but the cap is
// honoured anyway.
void put_zigzag(std::vector<std::uint8_t>& b, std::int64_t v) {
  std::uint64_t u = (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
  for (int i = 0; i < 8; ++i) {
    if (u < 0x80) {
      b.push_back(static_cast<std::uint8_t>(u));
      return;
    }
    b.push_back(static_cast<std::uint8_t>((u & 0x7f) | 0x80));
    u >>= 7;
  }
  b.push_back(static_cast<std::uint8_t>(u));
}

}  // namespace

std::vector<std::uint8_t> encode(const LatencyHistogram& h) {
  std::vector<std::uint8_t> b;
  put32(b, kCookie);
  put32(b, 0);  // payload length, set below
  put32(b, 0);  // normalizing index offset
  put32(b, kSignificantDigits);
  put64(b, static_cast<std::uint64_t>(kLowest));
  put64(b, static_cast<std::uint64_t>(LatencyHistogram::kMaxValue));
  put64(b, std::bit_cast<std::uint64_t>(1.0));  // integer-to-double conversion ratio
  const std::size_t start = b.size();
  const auto& c = h.buckets();
  // Counts up to the last non-zero one; a run of two or more zeros is written as minus its length.
  std::size_t limit = c.size();
  while (limit > 0 && c[limit - 1] == 0) --limit;
  for (std::size_t i = 0; i < limit;) {
    if (c[i] != 0) {
      put_zigzag(b, static_cast<std::int64_t>(c[i++]));
      continue;
    }
    std::size_t j = i;
    while (j < limit && c[j] == 0) ++j;
    put_zigzag(b, j - i > 1 ? -static_cast<std::int64_t>(j - i) : 0);
    i = j;
  }
  set32(b, 4, static_cast<std::uint32_t>(b.size() - start));
  return b;
}

std::vector<std::uint8_t> encode_compressed(const LatencyHistogram& h) {
  const auto raw = encode(h);
  uLongf n = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> out(8 + n);
  if (compress2(out.data() + 8, &n, raw.data(), static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
    throw std::runtime_error("hlog: zlib compression failed");
  out.resize(8 + n);
  set32(out, 0, kCompressedCookie);
  set32(out, 4, static_cast<std::uint32_t>(n));
  return out;
}

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(bytes[i]) << 16) | (i + 1 < bytes.size() ? std::uint32_t(bytes[i + 1]) << 8 : 0) |
                            (i + 2 < bytes.size() ? std::uint32_t(bytes[i + 2]) : 0);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

std::string interval_log(const Timeline& t, SimTime window, const std::string& comment) {
  std::string out = "#[Histogram log format version 1.3]\n";
  if (!comment.empty()) out += "#" + comment + "\n";
  // Simulated time has no wall clock: the log starts at the epoch, timestamps are seconds into
  // the measurement window.
  out += "#[StartTime: 0.000 (seconds since epoch), Thu Jan 01 00:00:00 UTC 1970]\n";
  out += "#[BaseTime: 0.000 (seconds since epoch)]\n";
  out += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
  const auto points = t.points();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SimTime begin = static_cast<SimTime>(i) * t.interval();
    SimTime length = t.interval();
    if (window > begin && begin + length > window) length = window - begin;  // the last, partial interval
    const auto& h = points[i].latency;
    out += fmt::format("{:.3f},{:.3f},{:.3f},{}\n", to_sec(begin), to_sec(length), static_cast<double>(h.max()) / 1e6,
                       base64(encode_compressed(h)));
  }
  return out;
}

}  // namespace lbsim::hlog
