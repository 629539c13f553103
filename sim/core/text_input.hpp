// Line-oriented text inputs: trace files, `lbsim fit` inputs, `lbsim import` inputs.
//
// One line is at most kMaxLineBytes long, so that an endless line (a device such as /dev/zero, a
// binary file without newlines) fails after that many bytes instead of filling the memory. The
// longest valid lines are a trace row whose key is a full 64 KiB partition key (128 KiB of hex;
// Cassandra and ScyllaDB refuse keys over 65535 bytes) and an interval log's base64 histogram
// (a few KiB); 1 MiB is several times both.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace lbsim {

inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// The refusal of line `line` of `file` for being longer than kMaxLineBytes (a ConfigError
// "FILE:LINE: a line longer than 1 MiB ...; expected EXPECTED").
[[noreturn]] void fail_long_line(const std::string& file, std::size_t line, const std::string& expected);

// The whole text of `file`, read in chunks; a line longer than kMaxLineBytes fails as
// fail_long_line as soon as it is seen. A file that cannot be opened is a ConfigError.
std::string read_text_file(const std::string& file, const std::string& expected);

// Line number (from 1) and column of the first NUL or other control byte (not tab, CR or LF) in
// `text`; line 0 when there is none.
struct BinaryByte {
  std::size_t line = 0, column = 0;
  unsigned char byte = 0;
};
BinaryByte find_binary_byte(std::string_view text);

// ConfigError "FILE:LINE: byte 0xNN at column C: binary data, not text; expected EXPECTED" when
// `text` holds such a byte.
void refuse_binary(std::string_view text, const std::string& file, const std::string& expected);

}  // namespace lbsim
