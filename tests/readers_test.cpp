// The readers of issue 44 (round 3): one duplicate-refusing JSON parse for every JSON input, the
// nodetool ring reader telling data rows from decoration, one node per address, and the 1 MiB cap
// on one line of the streaming readers (traces, `lbsim fit`, `lbsim import`). The refusals through
// the binary are rows 500-559 of tests/bad_inputs/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "sim/config/import.hpp"
#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_reader.hpp"
#include "sim/core/text_input.hpp"
#include "sim/fit/parsers.hpp"
#include "sim/report/report_shape.hpp"
#include "sim/workload/trace_reader.hpp"

namespace lbsim::readers_test {

namespace fs = std::filesystem;

#define EXPECT_PREFIX(s, p) EXPECT_EQ(std::string(s).substr(0, std::string(p).size()), std::string(p))

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JsonDuplicateKeys, RefusedWithTheFileAndThePointer) {
  EXPECT_PREFIX(error_of([] { (void)jsonin::parse_text(R"({"seed": 42, "seed": 7})", "s.json"); }),
            "s.json: /seed: duplicate key \"seed\": an object names each key once (JSON readers disagree on which of "
            "the two counts); remove one");
  // Inside arrays the pointer has the element's index; '/' and '~' in keys are escaped (RFC 6901).
  EXPECT_PREFIX(error_of([] {
              (void)jsonin::parse_text(R"({"a": [1, {"x": 1}, [2, {"b/c": {"k~": 1, "k~": 2}}]]})", "t.json");
            }),
            "t.json: /a/2/1/b~1c/k~0: duplicate");
  EXPECT_PREFIX(error_of([] { (void)jsonin::parse_text_ordered(R"({"p": {"q": 1, "r": 2, "q": 3}})", "o.json"); }),
            "o.json: /p/q: duplicate key \"q\":");
  // The same key in different objects, or the same value twice, is fine.
  const auto j = jsonin::parse_text(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})", "ok.json");
  EXPECT_EQ(j["c"][1]["x"], 4);
  // parse_value (--set) refuses a repeat but leaves a syntax error to nlohmann (a bare string then).
  EXPECT_THROW((void)jsonin::parse_value(R"({"threads": 4, "threads": 8})", "--set client=..."), ConfigError);
  EXPECT_THROW((void)jsonin::parse_value("dc1", "--set x=dc1"), nlohmann::json::parse_error);
}

TEST(JsonDuplicateKeys, FilesAndSetsRefuseThem) {
  const fs::path f = fs::temp_directory_path() / ("lbsim-dup-" + std::to_string(::getpid()) + ".json");
  std::ofstream(f) << "{\n \"nodes\": [],\n \"nodes\": []\n}\n";
  EXPECT_PREFIX(error_of([&] { (void)jsonin::load_file(f.string()); }), f.string() + ": /nodes: duplicate key \"nodes\"");
  EXPECT_NE(error_of([&] { (void)jsonin::load_file_ordered(f.string()); }).find("/nodes: duplicate key"), std::string::npos);
  fs::remove(f);
  jsonin::Json doc = jsonin::Json::object();
  EXPECT_PREFIX(error_of([&] { apply_set(doc, R"(client={"threads":4,"threads":8})"); }),
            R"(--set client={"threads":4,"threads":8}: /threads: du)");
  apply_set(doc, "client.dc=dc1");  // not JSON: a bare string, as before
  EXPECT_EQ(doc["client"]["dc"], "dc1");
}

const char* kHead =
    "Datacenter: dc1\n==========\nAddress     Rack        Status State   Load            Owns                Token\n"
    "                                                                           100\n";

TEST(ImportRing, MalformedDataRowsAreErrorsNotSkipped) {
  auto ring = [](const std::string& rows) {
    return error_of([&] { (void)parse_ring_text(kHead + rows, ImportFormat::NodetoolRing, "ring.txt"); });
  };
  const std::string ok1 = "10.0.0.1    r1          Up     Normal  1.12 GiB        33.33%              -100\n";
  const std::string ok3 = "10.0.0.3    r1          Up     Normal  1.10 GiB        33.33%              100\n";
  EXPECT_PREFIX(ring(ok1 + "10.0.0.2    r1   Up   Normal  1.10 GiB   33.33%   9223372036854775808\n" + ok3),
            "ring.txt:6: token 9223372036854775808 is out of range [-9223372036854775808, 9223372036854775807] "
            "(Murmur3 tokens)");
  EXPECT_PREFIX(ring(ok1 + "10.0.0.2    r1   Up   Normal  1.10 GiB   33.33%   -9223372036854775809\n"),
            "ring.txt:6: token -9223372036854775809 is");
  EXPECT_PREFIX(ring(ok1 + "10.0.0.2    r1   Up   Normal  1.10 GiB   33.33%   0.5\n" + ok3),
            "ring.txt:6: '0.5' is not a token (an");
  EXPECT_PREFIX(ring(ok1 + "10.0.0.2    r1   Up   Normal  1.10 GiB   33.33%   ?\n"), "ring.txt:6: '?' is not a token (an ");
  EXPECT_PREFIX(ring("10.0.0.1\n"), "ring.txt:5: 1 column(s); ex");
  // The decoration nodetool prints is still skipped: the good rows give 3 nodes and 3 tokens.
  const auto r = parse_ring_text(std::string(kHead) + ok1 + "10.0.0.2    r1   Up   Normal  1.10 GiB   33.33%   0\n" + ok3 +
                                     "\nNote: Non-system keyspaces don't have the same replication settings, effective "
                                     "ownership information is meaningless\n",
                                 ImportFormat::NodetoolRing, "ring.txt");
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[1].tokens, (std::vector<Token>{0}));
  // Lines that are neither rows nor decoration, and no row at all: the first such line is named.
  EXPECT_PREFIX(error_of([] {
              (void)parse_ring_text("Address Rack Status\nnode1 rack1\nnode2 rack1\n", ImportFormat::NodetoolRing, "h.txt");
            }),
            "h.txt:2: no node found: 'node1 rack1' is no");
}

TEST(ImportRing, OneAddressIsOneNode) {
  auto csv = [](const std::string& rows) {
    return error_of([&] { (void)parse_ring_text("address,dc,rack,tokens\n" + rows, ImportFormat::Csv, "n.csv"); });
  };
  EXPECT_EQ(csv("10.0.0.1,dc1,r1,-100\n10.0.0.2,dc1,r1,0\n10.0.0.1,dc1,r2,100\n"),
            "n.csv:4: address 10.0.0.1 is on rack 'r2' here and on 'r1' at line 2; a node has one rack");
  EXPECT_EQ(csv("10.0.0.1,dc1,r1,-100\n10.0.0.1,dc2,r1,100\n"),
            "n.csv:3: address 10.0.0.1 is in datacenter 'dc2' here and in 'dc1' at line 2; a node has one datacenter");
  // Several lines of one node on one rack stay one node with all its tokens.
  const auto r = parse_ring_text("10.0.0.1,dc1,r1,-100\n10.0.0.1,dc1,r1,100\n", ImportFormat::Csv, "n.csv");
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].tokens, (std::vector<Token>{-100, 100}));
  const std::string desc =
      "TokenRange(start_token:1, end_token:5, endpoints:[a], endpoint_details:[EndpointDetails(host:a, datacenter:dc1, "
      "rack:r1)])\nTokenRange(start_token:5, end_token:1, endpoints:[a], endpoint_details:[EndpointDetails(host:a, "
      "datacenter:dc1, rack:r9)])\n";
  EXPECT_PREFIX(error_of([&] { (void)parse_ring_text(desc, ImportFormat::Describering, "d.txt"); }),
            "d.txt:2: address a is on rack 'r9' here and ");
}

TEST(ImportRing, RfNamesEachDcOnce) {
  EXPECT_PREFIX(error_of([] { (void)parse_rf_option("dc1=3,dc1=2"); }),
            "--rf: 'dc1=3,dc1=2': datacenter dc1 is given twice (dc1=3 before); give each DC once");
  EXPECT_EQ(parse_rf_option("dc1=3,dc2=2").dc_rf.size(), 2u);
}

TEST(ImportRing, RackdcRefusesBinary) {
  NodeSpec n{"a", "dc1", "r1", {}};
  EXPECT_PREFIX(error_of([&] { apply_rackdc(n, std::string("dc=x\nrack=y") + '\0' + "z\n", "p.properties"); }),
            "p.properties:2: byte 0x00 (NUL) at column 7: ");
  EXPECT_EQ(n.rack, "r1");  // nothing applied from a refused file
}

// A file just over the cap: one line of kMaxLineBytes + 1 bytes.
fs::path long_line_file(const std::string& name, const std::string& before, char fill) {
  const fs::path f = fs::temp_directory_path() / ("lbsim-long-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream out(f, std::ios::binary);
  out << before << std::string(kMaxLineBytes + 1, fill) << "\n";
  return f;
}

TEST(LineCap, StreamingReadersRefuseALineOverOneMiB) {
  const fs::path a = long_line_file("a.txt", "line one\n", 'x');
  EXPECT_PREFIX(error_of([&] { (void)read_text_file(a.string(), "X"); }),
            a.string() + ":2: a line longer than 1048576 bytes (1 MiB), the most lbsim reads as one line (is this a "
                         "binary file or a device?); expected X");
  // A line of exactly the cap is read.
  {
    std::ofstream out(a, std::ios::binary);
    out << std::string(kMaxLineBytes, 'x') << "\nshort\n";
  }
  EXPECT_EQ(read_text_file(a.string(), "X").size(), kMaxLineBytes + 7);
  fs::remove(a);

  // Traces, streamed in 1 MiB chunks: the line is refused, not grown into.
  const fs::path t = long_line_file("t.csv", "0,read,00\n", 'f');
  TraceReader rd(t.string(), "/workload/trace/file");
  TraceRecord r;
  EXPECT_TRUE(rd.next(r));
  EXPECT_PREFIX(error_of([&] { (void)rd.next(r); }),
            t.string() + ":2: a line longer than 1048576 b");
  fs::remove(t);
  // The same from memory, in small chunks, and for a last line without a newline.
  const std::string text = "0,read,00\n1,read," + std::string(kMaxLineBytes, 'f');
  EXPECT_PREFIX(error_of([&] { (void)read_trace_text(text, "m.csv", 4096); }), "m.csv:2: a line longer than 1048576 byte");
  const std::string ok = "0,read,00\n1,read," + std::string(kMaxLineBytes - 8, 'a') + "\n";  // just under: a key of 512 KiB
  EXPECT_EQ(read_trace_text(ok, "ok.csv", 4096).size(), 2u);
}

TEST(FitReaders, RefuseNulNegativeCountsAndNegativeStarts) {
  EXPECT_PREFIX(error_of([] {
              (void)fit::parse_text("n1.prom", std::string("scylla_reactor_utilization{shard=\"0\"} 12\nscylla_cache_row_hits 9") + '\0' + "\n");
            }),
            "n1.prom:2: byte 0x00 (NUL) at column 24: binary dat");
  const std::string tp =
      "Pool Name  Active  Pending  Completed  Blocked  All time blocked\nReadStage  0  0  12  0  0\n"
      "MutationStage  0  -3  10  0  0\n";
  EXPECT_PREFIX(error_of([&] { (void)fit::parse_text("tp.txt", tp); }), "tp.txt:3: '-3' is negative: counts ");
  const std::string hlog = "#[StartTime: 1700000000.000 (seconds since epoch)]\nTag=read-st,1.0,-1.0,0.5,HISTFAAAAA\n";
  EXPECT_PREFIX(error_of([&] { (void)fit::parse_text("c.hlog", hlog); }), "c.hlog:2: length_s (field 2) is -1.0, must be ");
  EXPECT_PREFIX(error_of([] { (void)fit::parse_text("c.hlog", "#[StartTime: -5 (seconds since epoch)]\nTag=x,1,1,1,A\n"); }),
            "c.hlog:1: StartTime -5 is negative; it is seconds since the epoch, >= 0");
}

TEST(ReportShape, AFieldOfTheWrongTypeIsNamed) {
  auto report = nlohmann::json::parse(R"({"schema": "lbsim.report/1", "scenario": {"name": "s", "hash": "h"},
    "policy": {"name": "p"}, "seed": 1, "nodes": [{"id": "n1", "dc": "dc1"}, {"id": 7}], "latency_ms": {"p99": null}})");
  EXPECT_PREFIX(error_of([&] { check_report_shape(report, "r.json"); }), "r.json: /nodes/1/id: must be a string, go");
  report["nodes"][1]["id"] = "n2";
  EXPECT_NO_THROW(check_report_shape(report, "r.json"));  // null numbers are NaN as written
  report.erase("policy");
  EXPECT_PREFIX(error_of([&] { check_report_shape(report, "r.json"); }), "r.json: /policy: required field is missing;");
  const auto sweep = nlohmann::ordered_json::parse(R"({"schema": "lbsim.sweep/1", "grid_points": 1, "points": [{"index": -1}]})");
  EXPECT_PREFIX(error_of([&] { check_sweep_shape(sweep, "s.json"); }), "s.json: /points/0/index: must be an integer >= 0,");
}

}  // namespace lbsim::readers_test
