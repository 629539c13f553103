#include "sim/workload/trace_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/text_input.hpp"

namespace lbsim {

namespace {

// A field as echoed in a message: printable ASCII only, at most 40 characters (binary files).
std::string trace_shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return s.size() > 40 ? out + "..." : out;
}

// `s` equals the lower-case `word` ignoring ASCII case.
bool equals_lower(std::string_view s, std::string_view word) {
  if (s.size() != word.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i] >= 'A' && s[i] <= 'Z' ? static_cast<char>(s[i] - 'A' + 'a') : s[i];
    if (c != word[i]) return false;
  }
  return true;
}

// Hex digit values; 0xff for any other byte.
constexpr std::array<std::uint8_t, 256> kHexValue = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(0xff);
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c - 'A' + 10);
  return t;
}();

// Hex to bytes into out[0, hex.size() / 2); false when malformed (odd length, non-hex digit).
// Branch-free per digit (random keys mix digits and letters unpredictably).
bool decode_hex(std::string_view hex, std::uint8_t* out) {
  if (hex.size() % 2 != 0) return false;
  unsigned bad = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(hex.data());
  for (std::size_t i = 0; i < hex.size() / 2; ++i) {
    const unsigned hi = kHexValue[p[2 * i]], lo = kHexValue[p[2 * i + 1]];
    bad |= hi | lo;
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return (bad & 0xf0) == 0;
}

}  // namespace

TraceReader::TraceReader(std::string file, std::size_t chunk)
    : file_(std::move(file)), buf_(new char[std::max<std::size_t>(chunk, 16)]), cap_(std::max<std::size_t>(chunk, 16)) {}

TraceReader::TraceReader(std::string file, const std::string& where, std::size_t chunk)
    : TraceReader(std::move(file), chunk) {
  std::error_code ec;
  if (std::filesystem::is_directory(file_, ec)) throw ConfigError(where, "'" + file_ + "' is a directory, not a trace file");
  f_ = std::fopen(file_.c_str(), "rb");
  if (!f_) throw ConfigError(where, "cannot open trace file '" + file_ + "'");
  std::setvbuf(f_, nullptr, _IONBF, 0);  // reads go straight into buf_
}

TraceReader TraceReader::from_text(std::string_view text, std::string file, std::size_t chunk) {
  TraceReader r(std::move(file), chunk);
  r.text_ = text;
  return r;
}

TraceReader::TraceReader(TraceReader&& o) noexcept
    : file_(std::move(o.file_)),
      f_(std::exchange(o.f_, nullptr)),
      text_(o.text_),
      text_pos_(o.text_pos_),
      buf_(std::move(o.buf_)),
      cap_(std::exchange(o.cap_, 0)),
      begin_(o.begin_),
      end_(o.end_),
      eof_(o.eof_),
      bytes_read_(o.bytes_read_),
      line_no_(o.line_no_),
      records_(o.records_),
      last_at_(o.last_at_),
      long_key_(std::move(o.long_key_)) {}

TraceReader::~TraceReader() {
  if (f_) std::fclose(f_);
}

void TraceReader::refill() {
  // Keep the unfinished line, at the front; a line longer than the buffer doubles it.
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == cap_) {
    std::unique_ptr<char[]> bigger(new char[2 * cap_]);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ *= 2;
  }
  std::size_t got = 0;
  if (f_) {
    got = std::fread(buf_.get() + end_, 1, cap_ - end_, f_);
    if (got == 0 && std::ferror(f_)) throw ConfigError(file_, "read error");
  } else {
    got = std::min(cap_ - end_, text_.size() - text_pos_);
    std::memcpy(buf_.get() + end_, text_.data() + text_pos_, got);
    text_pos_ += got;
  }
  end_ += got;
  bytes_read_ += got;
  if (got == 0) {
    eof_ = true;
    if (bytes_read_ == 0) throw ConfigError(file_, "trace file is empty; expected lines time_us,op,key_hex[,cl]");
  }
}

bool TraceReader::next(TraceRecord& out) {
  for (;;) {
    const char* b = buf_.get() + begin_;
    const std::size_t avail = end_ - begin_;
    const char* nl = avail ? static_cast<const char*>(std::memchr(b, '\n', avail)) : nullptr;
    std::string_view line;
    if (nl) {
      line = {b, static_cast<std::size_t>(nl - b)};
      begin_ += line.size() + 1;
    } else if (avail > kMaxLineBytes) {  // an endless line (/dev/zero): refused at 1 MiB, not read on
      fail_long_line(file_, line_no_ + 1, "lines time_us,op,key_hex[,cl]");
    } else if (!eof_) {
      refill();
      continue;
    } else if (avail > 0) {  // the last line, without a newline
      line = {b, avail};
      begin_ = end_;
    } else {
      if (records_ == 0) throw ConfigError(file_, "trace has no records");
      return false;
    }
    ++line_no_;
    if (line.size() > kMaxLineBytes) fail_long_line(file_, line_no_, "lines time_us,op,key_hex[,cl]");
    if (parse_line(line, out)) return true;
  }
}

void TraceReader::fail_line(const std::string& message) const {
  throw ConfigError(fmt::format("{}:{}", file_, line_no_), message);
}

bool TraceReader::parse_line(std::string_view line, TraceRecord& out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line[0] == '#') return false;
  if (line_no_ == 1 && line.starts_with("time")) return false;  // header
  std::string_view f[4];
  std::size_t n = 0;
  for (std::size_t s = 0;;) {
    const std::size_t c = line.find(',', s);
    if (n < 4) f[n] = line.substr(s, c == std::string_view::npos ? std::string_view::npos : c - s);
    ++n;
    if (c == std::string_view::npos) break;
    s = c + 1;
  }
  if (n < 3 || n > 4) fail_line(fmt::format("expected time_us,op,key_hex[,cl], got {} fields", n));
  TraceRecord r;
  double us = 0;
  const auto [p, ec] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), us);
  if (ec != std::errc() || p != f[0].data() + f[0].size() || !(us >= 0) || us > 1e15)
    fail_line("time_us must be a number >= 0, got '" + trace_shown(f[0]) + "'");
  r.at = from_us(us);
  if (records_ > 0 && r.at < last_at_)
    fail_line(fmt::format("times must not decrease ({} us after {} us)", f[0], to_ms(last_at_) * 1e3));
  if (equals_lower(f[1], "read")) r.op = OpKind::Read;
  else if (equals_lower(f[1], "write")) r.op = OpKind::Write;
  else fail_line("unknown op '" + trace_shown(f[1]) + "'; valid: read, write");
  const std::string_view hex = f[2];
  std::uint8_t small[256];
  std::uint8_t* key = small;
  if (hex.size() / 2 > sizeof small) {
    long_key_.resize(hex.size() / 2);
    key = long_key_.data();
  }
  if (hex.empty() || !decode_hex(hex, key))
    fail_line("key_hex must be non-empty hex (even length), got '" + trace_shown(hex) + "'");
  r.token = murmur3_token(std::span<const std::uint8_t>(key, hex.size() / 2));
  if (n == 4 && !f[3].empty()) {
    const auto cl = parse_consistency(f[3]);
    if (!cl) fail_line("unknown consistency level '" + trace_shown(f[3]) + "'; valid: " + std::string(kConsistencyNames));
    r.cl = *cl;
    r.has_cl = true;
  }
  last_at_ = r.at;
  ++records_;
  out = r;
  return true;
}

TraceStamp trace_stamp(const std::string& path) {
  std::error_code ec;
  TraceStamp s;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec) s.bytes = bytes;
  const auto t = std::filesystem::last_write_time(path, ec);
  if (!ec) s.mtime = static_cast<std::int64_t>(t.time_since_epoch().count());
  return s;
}

TraceReader open_trace(const TraceSummary& summary) {
  if (trace_stamp(summary.path) != summary.stamp)
    throw ConfigError(summary.path, "the trace file changed since the scenario was loaded; runs stream it again, so "
                                    "load the scenario again");
  return TraceReader(summary.path, "/workload/trace/file");
}

std::vector<TraceRecord> read_trace_text(std::string_view text, const std::string& file, std::size_t chunk) {
  TraceReader rd = TraceReader::from_text(text, file, chunk);
  std::vector<TraceRecord> out;
  TraceRecord r;
  while (rd.next(r)) out.push_back(r);
  return out;
}

}  // namespace lbsim
