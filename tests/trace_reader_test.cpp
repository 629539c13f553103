// Streamed trace replay (issue 14): TraceReader gives the records and the errors of the former
// whole-file parser (kept below as the reference), through any chunk size, without holding the
// file; the scenario keeps only a summary, and runs re-stream the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <initializer_list>

#include <fmt/format.h>

#include "sim/cluster/routing_key.hpp"
#include "sim/workload/trace_reader.hpp"
#include "sim_test_util.hpp"

namespace lbsim {
namespace trace_reader_test_detail {

// The parser before issue 14 (sim/config/scenario_workload.cpp: read_text + parse_trace), verbatim
// but for names: whole text in memory, a string per line and per field.
std::string legacy_shown(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return s.size() > 40 ? out + "..." : out;
}

std::vector<TraceRecord> legacy_parse_trace(const std::string& text, const std::string& file) {
  std::vector<TraceRecord> out;
  if (text.empty()) throw ConfigError(file, "trace file is empty; expected lines time_us,op,key_hex[,cl]");
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (line_no == 1 && line.rfind("time", 0) == 0) continue;  // header
    const std::string where = fmt::format("{}:{}", file, line_no);
    std::vector<std::string> f;
    std::size_t s = 0;
    for (;;) {
      const std::size_t c = line.find(',', s);
      f.push_back(line.substr(s, c == std::string::npos ? std::string::npos : c - s));
      if (c == std::string::npos) break;
      s = c + 1;
    }
    if (f.size() < 3 || f.size() > 4)
      throw ConfigError(where, fmt::format("expected time_us,op,key_hex[,cl], got {} fields", f.size()));
    TraceRecord r;
    double us = 0;
    const auto [p, ec] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), us);
    if (ec != std::errc() || p != f[0].data() + f[0].size() || !(us >= 0) || us > 1e15)
      throw ConfigError(where, "time_us must be a number >= 0, got '" + legacy_shown(f[0]) + "'");
    r.at = from_us(us);
    if (!out.empty() && r.at < out.back().at)
      throw ConfigError(where, fmt::format("times must not decrease ({} us after {} us)", f[0], to_ms(out.back().at) * 1e3));
    std::string op = f[1];
    std::transform(op.begin(), op.end(), op.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (op == "read") r.op = OpKind::Read;
    else if (op == "write") r.op = OpKind::Write;
    else throw ConfigError(where, "unknown op '" + legacy_shown(f[1]) + "'; valid: read, write");
    const auto key = parse_hex(f[2]);
    if (!key || key->empty())
      throw ConfigError(where, "key_hex must be non-empty hex (even length), got '" + legacy_shown(f[2]) + "'");
    r.token = murmur3_token(*key);
    if (f.size() == 4 && !f[3].empty()) {
      const auto cl = parse_consistency(f[3]);
      if (!cl)
        throw ConfigError(where, "unknown consistency level '" + legacy_shown(f[3]) + "'; valid: " + std::string(kConsistencyNames));
      r.cl = *cl;
      r.has_cl = true;
    }
    out.push_back(r);
  }
  if (out.empty()) throw ConfigError(file, "trace has no records");
  return out;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string file = ::testing::TempDir() + name;
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

bool same(const TraceRecord& a, const TraceRecord& b) {
  return a.at == b.at && a.token == b.token && a.routed == b.routed && a.op == b.op && a.has_cl == b.has_cl &&
         (!a.has_cl || a.cl == b.cl);
}

void expect_same_records(const std::vector<TraceRecord>& want, const std::vector<TraceRecord>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(same(want[i], got[i])) << what << " record " << i + 1;
}

// The error message of `f`, or "" when it succeeds.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// Header, comments, CRLF, blank lines, optional and empty cl, mixed case, a key longer than the
// reader's stack buffer, and no newline after the last line.
std::string sample_trace() {
  std::string t = "time_us,op,key_hex,cl\r\n# a comment\n0,read,00000001,\r\n10,WRITE,0002,ONE\n\n";
  t += "10,Read,ff,local_quorum\r\n# another, with, commas\r\n12.5,write,DEADbeef\n";
  t += "12.5,read," + std::string(1200, 'a') + ",QUORUM\n";
  for (int i = 0; i < 300; ++i) t += fmt::format("{},{},{:08x}{}\n", 20 + i * 3, i % 3 ? "read" : "write", i * 7919, i % 5 ? "" : ",ALL");
  t += "1e4,read,abcdef0123";
  return t;
}

}  // namespace trace_reader_test_detail

namespace {
namespace trd = trace_reader_test_detail;

TEST(TraceReader, StreamsTheRecordsOfTheWholeFileParserAtEveryChunkSize) {
  const std::string text = trd::sample_trace();
  const auto want = trd::legacy_parse_trace(text, "s.csv");
  ASSERT_EQ(want.size(), 306u);
  for (std::size_t chunk : std::initializer_list<std::size_t>{16, 17, 31, 64, 100, 4096, kTraceChunkBytes})
    trd::expect_same_records(want, read_trace_text(text, "s.csv", chunk), fmt::format("chunk {}", chunk));
  // From a file, the way runs read it.
  const std::string file = trd::temp_file("trace_reader_sample.csv", text);
  TraceReader rd(file, "/workload/trace/file");
  std::vector<TraceRecord> got;
  TraceRecord r;
  while (rd.next(r)) got.push_back(r);
  trd::expect_same_records(want, got, "file");
  EXPECT_EQ(rd.records(), want.size());
  EXPECT_FALSE(rd.next(r));  // stays at the end
}

TEST(TraceReader, ErrorsNameTheSameFileLineAndMessage) {
  const std::vector<std::string> bad = {
      "",
      "time_us,op,key_hex\n",
      "# only a comment\r\n\r\n",
      "0,read,00ff\n5,read\n",
      "0,read,00ff,ONE,extra\n",
      "-5,read,00ff\n",
      "0,read,00ff\nnan,read,00\n",
      "inf,read,00\n",
      " 1,read,00\n",
      "0x10,read,00\n",
      "2e15,read,00\n",
      "time_us,op,key_hex\n0,read,00\n20,read,00\r\n10,write,00\n",
      "0,read,00\n0.0006,read,00\n0.0004,read,00\n",
      "0,upsert,00ff\n",
      "0,read,0g\n",
      "0,read,abc\n",
      "0,read,\n",
      "0,read,00,QUORUMM\n",
      "0,read,00,SERIAL\n1,write,00,any\n2,read,00," + std::string(60, 'Q') + "\n",
      std::string("\x01\x02\xff\xfe garbage \x80\n", 15),
      "0,read," + std::string(3000, 'f') + "z\n",
      "0,read,00\n" + std::string(5000, '#') + "\n1,read\n",
  };
  for (const std::string& text : bad) {
    const std::string want = trd::error_of([&] { trd::legacy_parse_trace(text, "b.csv"); });
    ASSERT_NE(want, "") << text;
    for (std::size_t chunk : std::initializer_list<std::size_t>{16, 64, kTraceChunkBytes})
      EXPECT_EQ(trd::error_of([&] { read_trace_text(text, "b.csv", chunk); }), want) << text << " chunk " << chunk;
  }
  EXPECT_EQ(trd::error_of([&] { read_trace_text("0,read,00\n9,read,00\n3,read,00\n", "b.csv"); }),
            "b.csv:3: times must not decrease (3 us after 9 us)");
  // Files: the JSON field for a missing file or a directory.
  EXPECT_EQ(trd::error_of([] { TraceReader("/nonexistent/t.csv", "/workload/trace/file"); }),
            "/workload/trace/file: cannot open trace file '/nonexistent/t.csv'");
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(trd::error_of([&] { TraceReader(dir, "/workload/trace/file"); }),
            "/workload/trace/file: '" + dir + "' is a directory, not a trace file");
}

TEST(TraceReader, HoldsOneChunkNotTheFile) {
  // About 5 MiB of records: five times the chunk.
  std::string text = "time_us,op,key_hex,cl\n";
  std::size_t n = 0;
  while (text.size() < 5 * kTraceChunkBytes) {
    text += fmt::format("{},{},{:016x}{}\n", n, n % 2 ? "read" : "write", n * 0x9e3779b97f4a7c15ULL, n % 7 ? "" : ",LOCAL_ONE");
    ++n;
  }
  const std::string file = trd::temp_file("trace_reader_big.csv", text);
  TraceReader rd(file, "/workload/trace/file");
  EXPECT_EQ(rd.buffer_capacity(), kTraceChunkBytes);
  TraceRecord r;
  std::uint64_t reads = 0;
  while (rd.next(r)) reads += r.op == OpKind::Read;
  EXPECT_EQ(rd.records(), n);
  EXPECT_EQ(reads, n / 2);
  EXPECT_EQ(rd.buffer_capacity(), kTraceChunkBytes);
  EXPECT_LT(rd.buffer_capacity() * 4, std::filesystem::file_size(file));
  // Only a line longer than the chunk grows the buffer (to that line, not to the file).
  const std::string long_line = "0,read," + std::string(200, 'f') + "\n1,read,00\n";
  TraceReader small = TraceReader::from_text(long_line, "l.csv", 64);
  while (small.next(r)) {
  }
  EXPECT_EQ(small.records(), 2u);
  EXPECT_EQ(small.buffer_capacity(), 256u);
}

TEST(TraceReader, ScenarioKeepsASummaryAndNamesTheFirstRecordWithAnUnservableLevel) {
  // Records 4 (a SERIAL write) and 5 (an ANY read) are refused; record 4 is named, as when every
  // record was checked in order (though reads' levels are looked at before writes').
  const std::string file = trd::temp_file("trace_reader_cl.csv", "0,write,00,ANY\n1,read,01,ONE\n2,write,02,ONE\n"
                                                                 "3,write,03,SERIAL\n4,read,04,ANY\n5,read,05,ANY\n");
  // An open-loop trace brings its own arrivals: default.json's open loop gives way to threads.
  const std::string scenario = std::string(LBSIM_SOURCE_DIR) + "/configs/default.json";
  const std::string msg = trd::error_of(
      [&] { load_scenario(scenario, {"client.threads=200", "workload={\"trace\": {\"file\": \"" + file + "\"}}"}); });
  EXPECT_NE(msg.find(file + " record 4: SERIAL is the serial consistency"), std::string::npos) << msg;

  const std::string ok = trd::temp_file("trace_reader_ok.csv", "0,write,00,ANY\n1,read,01,ONE\n2,read,02\n3,write,0203\n");
  const Scenario sc = load_scenario(scenario, {"client.threads=200", "workload={\"trace\": {\"file\": \"" + ok + "\"}}"});
  ASSERT_TRUE(sc.workload.trace);
  EXPECT_EQ(sc.workload.trace->records, 4u);
  EXPECT_EQ(sc.workload.trace->reads, 2u);
  EXPECT_EQ(sc.workload.trace->first_cl[1][static_cast<std::size_t>(ConsistencyLevel::Any)], 1u);
  EXPECT_EQ(sc.workload.trace->first_cl[0][static_cast<std::size_t>(ConsistencyLevel::One)], 2u);
  EXPECT_EQ(sc.workload.ops, 4u);
}

TEST(TraceReader, RunsRefuseATraceChangedSinceTheLoad) {
  const std::string file = trd::temp_file("trace_reader_changes.csv", "0,read,00\n10,write,01\n20,read,02\n");
  const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/default.json",
                                    {"client.threads=200", "workload={\"trace\": {\"file\": \"" + file + "\"}}"});
  EXPECT_EQ(testing::run_first(sc).measured_ops() + testing::run_first(sc).warmup_ops, 3u);
  trd::temp_file("trace_reader_changes.csv", "0,read,00\n10,write,01\n20,read,02\n30,read,03\n");
  EXPECT_NE(trd::error_of([&] { testing::run_first(sc); }).find("changed since the scenario was loaded"), std::string::npos);
}

}  // namespace
}  // namespace lbsim
