// Streamed trace replay (issue 14): a trace file, CSV lines `time_us,op,key_hex[,cl]` (optional
// header line starting with "time", `#` comments, CRLF accepted), read in fixed-size chunks and
// parsed in place, one record at a time. Memory is the chunk (1 MiB) whatever the file's length;
// parsing a line allocates nothing (keys over 256 bytes decode into a reused vector). One line is
// at most kMaxLineBytes (1 MiB, sim/core/text_input.hpp): a longer one is an error "FILE:LINE".
//
// Validation (sim/config/scenario_workload.cpp) makes one pass and keeps a TraceSummary; every run
// and the analytic model open their own reader on the file (no shared mutable state between runs).
//
// Errors are ConfigError naming the file and line ("t.csv:4: times must not decrease ..."), the
// file alone for an empty file or one without records, and the JSON field for a file that cannot
// be opened.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/workload/workload_spec.hpp"

namespace lbsim {

inline constexpr std::size_t kTraceChunkBytes = std::size_t{1} << 20;

class TraceReader {
 public:
  // Opens `file`; a directory or an unopenable file is an error at `where` (a JSON path).
  TraceReader(std::string file, const std::string& where, std::size_t chunk = kTraceChunkBytes);
  // Reads `text` as the contents of a file named `file` (tests and the fuzz harness), through the
  // same chunked path; `text` must outlive the reader.
  static TraceReader from_text(std::string_view text, std::string file, std::size_t chunk = kTraceChunkBytes);
  TraceReader(TraceReader&& o) noexcept;
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;
  TraceReader& operator=(TraceReader&&) = delete;
  ~TraceReader();

  // The next record; false after the last one.
  bool next(TraceRecord& out);

  std::uint64_t records() const { return records_; }  // returned so far
  std::uint64_t line() const { return line_no_; }      // lines read so far
  // Bytes held for reading: the chunk size, unless one line is longer (then the buffer doubles
  // until that line fits; a bounded, pathological case: a line, not the file).
  std::size_t buffer_capacity() const { return cap_; }
  const std::string& file() const { return file_; }

 private:
  TraceReader(std::string file, std::size_t chunk);
  void refill();
  bool parse_line(std::string_view line, TraceRecord& out);
  [[noreturn]] void fail_line(const std::string& message) const;

  std::string file_;
  std::FILE* f_ = nullptr;
  std::string_view text_;  // from_text: the source instead of f_
  std::size_t text_pos_ = 0;
  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0, begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::uint64_t bytes_read_ = 0;
  std::uint64_t line_no_ = 0;
  std::uint64_t records_ = 0;
  SimTime last_at_ = 0;
  std::vector<std::uint8_t> long_key_;  // keys over the stack buffer (rare)
};

// The file's size and modification time now (zeros when it cannot be read).
TraceStamp trace_stamp(const std::string& path);

// A reader on a validated trace (TraceSummary::path); refuses a file changed since the load.
TraceReader open_trace(const TraceSummary& summary);

// Every record of `text` (tests and fuzzing; the simulator itself never holds the records).
std::vector<TraceRecord> read_trace_text(std::string_view text, const std::string& file,
                                         std::size_t chunk = kTraceChunkBytes);

}  // namespace lbsim
