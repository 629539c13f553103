#include "sim/fit/hlog_reader.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <zlib.h>

#include "sim/core/error.hpp"

namespace lbsim::fit {
namespace {

constexpr std::uint32_t kV2 = 0x1c849303u | 0x10u;            // V2 encoding, LEB128 ZigZag counts
constexpr std::uint32_t kV2Compressed = 0x1c849304u | 0x10u;  // V2, zlib-compressed
constexpr std::size_t kHeader = 40;

std::vector<std::uint8_t> unbase64(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    const int v = val(c);
    if (v < 0) throw std::runtime_error(fmt::format("'{}' is not a base64 character", c));
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>(acc >> bits));
    }
  }
  return out;
}

std::uint64_t be(const std::vector<std::uint8_t>& b, std::size_t at, int bytes) {
  if (at + static_cast<std::size_t>(bytes) > b.size()) throw std::runtime_error("truncated histogram header");
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
  return v;
}

std::vector<std::uint8_t> inflate_all(const std::uint8_t* data, std::size_t n) {
  std::vector<std::uint8_t> out(std::max<std::size_t>(4096, n * 8));
  for (int attempt = 0; attempt < 12; ++attempt) {
    uLongf len = static_cast<uLongf>(out.size());
    const int rc = uncompress(out.data(), &len, data, static_cast<uLong>(n));
    if (rc == Z_OK) {
      out.resize(len);
      return out;
    }
    if (rc != Z_BUF_ERROR) throw std::runtime_error("the zlib stream does not inflate");
    out.resize(out.size() * 4);
  }
  throw std::runtime_error("the histogram inflates to more than the reader accepts");
}

}  // namespace

HdrBuckets decode_hdr_base64(const std::string& b64) {
  std::vector<std::uint8_t> b = unbase64(b64);
  std::uint32_t cookie = static_cast<std::uint32_t>(be(b, 0, 4));
  if (cookie == kV2Compressed) {
    const auto len = static_cast<std::size_t>(be(b, 4, 4));
    if (8 + len > b.size()) throw std::runtime_error("compressed length runs past the data");
    b = inflate_all(b.data() + 8, len);
    cookie = static_cast<std::uint32_t>(be(b, 0, 4));
  }
  if (cookie != kV2)
    throw std::runtime_error(fmt::format("cookie 0x{:08x} is not HdrHistogram's V2 encoding (0x{:08x} or compressed "
                                         "0x{:08x}); V0/V1 logs are not read",
                                         cookie, kV2, kV2Compressed));
  const auto payload = static_cast<std::size_t>(be(b, 4, 4));
  const auto offset = static_cast<std::int32_t>(be(b, 8, 4));
  const auto digits = static_cast<int>(be(b, 12, 4));
  const auto lowest = static_cast<std::int64_t>(be(b, 16, 8));
  if (offset != 0) throw std::runtime_error("a non-zero normalizing index offset (shifted histogram) is not read");
  if (digits < 0 || digits > 5 || lowest < 1) throw std::runtime_error("header: significant digits outside 0..5 or lowest < 1");
  if (kHeader + payload > b.size()) throw std::runtime_error("payload length runs past the data");
  // HdrHistogram's layout from the header (AbstractHistogram.init): 2 x 10^digits values at unit
  // resolution, sub-bucket count the next power of two, unit magnitude floor(log2(lowest)).
  const int sub_mag = static_cast<int>(std::ceil(std::log2(2.0 * std::pow(10.0, digits))));
  const int half_mag = std::max(sub_mag - 1, 0);
  const std::int64_t half = std::int64_t{1} << half_mag;
  const int unit_mag = static_cast<int>(std::floor(std::log2(static_cast<double>(lowest))));
  HdrBuckets out;
  std::int64_t index = 0;
  std::size_t at = kHeader;
  const std::size_t end = kHeader + payload;
  while (at < end) {
    std::uint64_t u = 0;
    int shift = 0;
    for (int i = 0; i < 9; ++i) {
      if (at >= end) throw std::runtime_error("a count runs past the payload");
      const std::uint8_t byte = b[at++];
      if (i == 8) {
        u |= static_cast<std::uint64_t>(byte) << shift;
        break;
      }
      u |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if (!(byte & 0x80)) break;
    }
    const auto v = static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));  // ZigZag
    if (v < 0) {
      index += -v;
      continue;
    }
    if (v > 0) {
      std::int64_t bucket = (index >> half_mag) - 1;
      std::int64_t sub = (index & (half - 1)) + half;
      if (bucket < 0) {
        sub -= half;
        bucket = 0;
      }
      if (bucket + unit_mag > 62) throw std::runtime_error("a bucket index beyond 2^62");
      const std::int64_t lo = sub << (bucket + unit_mag);
      out.lo.push_back(lo);
      out.hi.push_back(lo + (std::int64_t{1} << (bucket + unit_mag)));
      out.count.push_back(static_cast<std::uint64_t>(v));
    }
    ++index;
  }
  return out;
}

std::map<std::string, HdrBuckets> read_interval_log(const std::string& file, const std::string& text) {
  std::map<std::string, std::map<std::int64_t, std::pair<std::int64_t, std::uint64_t>>> merged;
  std::size_t line_no = 0, pos = 0;
  constexpr const char* kExpected =
      "expected an HdrHistogram interval log line \"[Tag=NAME,]start_s,length_s,max,BASE64\" (or a '#' comment, "
      "or the \"StartTimestamp\" legend)";
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    for (const char* head : {"#[StartTime: ", "#[BaseTime: "})  // seconds since the epoch, >= 0
      if (line.rfind(head, 0) == 0) {
        const std::size_t n = std::strlen(head);
        if (n < line.size() && line[n] == '-')
          throw ConfigError(fmt::format("{}:{}", file, line_no),
                            fmt::format("{} {} is negative; it is seconds since the epoch, >= 0", line.substr(2, n - 4),
                                        line.substr(n, line.find_first_of(" ]", n) - n)));
      }
    if (line.empty() || line[0] == '#' || line.rfind("\"StartTimestamp\"", 0) == 0) {
      if (nl == text.size()) break;
      continue;
    }
    const std::string where = fmt::format("{}:{}", file, line_no);
    std::string tag;
    if (line.rfind("Tag=", 0) == 0) {
      const auto comma = line.find(',');
      if (comma == std::string::npos) throw ConfigError(where, kExpected);
      tag = line.substr(4, comma - 4);
      line = line.substr(comma + 1);
    }
    std::vector<std::string> f;
    std::size_t s = 0;
    for (int i = 0; i < 3; ++i) {
      const auto c = line.find(',', s);
      if (c == std::string::npos) throw ConfigError(where, kExpected);
      f.push_back(line.substr(s, c - s));
      s = c + 1;
    }
    f.push_back(line.substr(s));
    static constexpr const char* kField[] = {"start_s", "length_s", "max"};
    for (int i = 0; i < 3; ++i) {
      const std::string& x = f[static_cast<std::size_t>(i)];
      char* endp = nullptr;
      const double v = std::strtod(x.c_str(), &endp);
      if (x.empty() || *endp != '\0')
        throw ConfigError(where, fmt::format("field {} '{}' is not a number; {}", i + 1, x, kExpected));
      // A start time, an interval length and a maximum latency are all >= 0 and finite.
      if (!(v >= 0) || std::isinf(v))
        throw ConfigError(where, fmt::format("{} (field {}) is {}, must be a finite number >= 0; {}", kField[i], i + 1, x, kExpected));
    }
    HdrBuckets h;
    try {
      h = decode_hdr_base64(f[3]);
    } catch (const std::runtime_error& e) {
      throw ConfigError(where, fmt::format("the histogram does not decode ({}); {}", e.what(), kExpected));
    }
    auto& m = merged[tag];
    for (std::size_t i = 0; i < h.lo.size(); ++i) {
      auto& slot = m[h.lo[i]];
      slot.first = h.hi[i];
      slot.second += h.count[i];
    }
    if (nl == text.size()) break;
  }
  std::map<std::string, HdrBuckets> out;
  for (const auto& [tag, m] : merged) {
    HdrBuckets& h = out[tag];
    for (const auto& [lo, v] : m) {
      h.lo.push_back(lo);
      h.hi.push_back(v.first);
      h.count.push_back(v.second);
    }
  }
  return out;
}

}  // namespace lbsim::fit
