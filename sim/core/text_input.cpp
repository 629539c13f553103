#include "sim/core/text_input.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace lbsim {

void fail_long_line(const std::string& file, std::size_t line, const std::string& expected) {
  throw ConfigError(fmt::format("{}:{}", file, line),
                    fmt::format("a line longer than {} bytes (1 MiB), the most lbsim reads as one line (is this a "
                                "binary file or a device?); expected {}",
                                kMaxLineBytes, expected));
}

std::string read_text_file(const std::string& file, const std::string& expected) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw ConfigError(file, "is a directory; expected " + expected);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!f) throw ConfigError(file, "cannot be read (no such file?); expected " + expected);
  std::string text;
  std::size_t line = 1, line_start = 0;  // line_start: offset in `text` of the current line
  char buf[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f.get());
    if (got == 0) {
      if (std::ferror(f.get())) throw ConfigError(file, "read error");
      break;
    }
    const std::size_t base = text.size();
    text.append(buf, got);
    for (std::size_t at = text.find('\n', base); at != std::string::npos; at = text.find('\n', at + 1)) {
      if (at - line_start > kMaxLineBytes) fail_long_line(file, line, expected);
      ++line;
      line_start = at + 1;
    }
    if (text.size() - line_start > kMaxLineBytes) fail_long_line(file, line, expected);
  }
  return text;
}

BinaryByte find_binary_byte(std::string_view text) {
  std::size_t line = 1, col = 1;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      ++line;
      col = 1;
      continue;
    }
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return {line, col, c};
    ++col;
  }
  return {};
}

void refuse_binary(std::string_view text, const std::string& file, const std::string& expected) {
  const BinaryByte b = find_binary_byte(text);
  if (b.line == 0) return;
  throw ConfigError(fmt::format("{}:{}", file, b.line),
                    fmt::format("byte 0x{:02x}{} at column {}: binary data, not text; expected {}", b.byte,
                                b.byte == 0 ? " (NUL)" : "", b.column, expected));
}

}  // namespace lbsim
