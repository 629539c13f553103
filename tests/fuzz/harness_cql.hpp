// What fuzz_cql does with an input (apart from harness.hpp: it needs lbsim_serve), so that
// tests/fuzz_regression_test.cpp replays its corpus in every build. The input is a sequence of
// request frames for one connection: each 9-byte v4 header (its length field capped at what is
// left) and its body go through Session::handle, as server.cpp hands them over, on
// configs/serve.json's cluster; the same bytes also go to the statement parser as a CQL string.
// A bug is an exception out of handle() (every malformed input must come back as an ERROR frame),
// anything but SyntaxError out of the parser, a sanitizer report, a hang or unbounded memory.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>

#include "sim/config/scenario.hpp"
#include "sim/serve/catalog.hpp"
#include "sim/serve/session.hpp"
#include "sim/serve/statement.hpp"

namespace lbsim::fuzz {

inline void cql_session(std::string_view data) {
  using namespace lbsim::cql;
  static const Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json");
  static const Catalog base(sc, 0x7f000001);
  try {
    parse_statement(std::string(data));
  } catch (const SyntaxError&) {
    // A clean rejection.
  }
  Catalog catalog = base;  // CREATE TABLE may add tables: a fresh copy per input
  NodeState node;
  SessionCounts counts;
  Session session(catalog, node, 0, sc, counts);
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  const std::size_t size = data.size();
  std::size_t at = 0;
  while (size - at >= kHeaderSize) {
    Header h = parse_header(p + at);
    at += kHeaderSize;
    const std::size_t n = std::min<std::size_t>(h.length, size - at);
    h.length = static_cast<std::uint32_t>(n);
    const Bytes body(p + at, p + at + n);
    at += n;
    const Outcome o = session.handle(h, body);
    if (o.data) {
      ExternalEnd end;
      end.success = false;
      end.error = ErrorKind::WriteTimeout;
      (void)session.error_frame(*o.data, end, 1);
    }
    if (o.close) break;
  }
}

}  // namespace lbsim::fuzz
