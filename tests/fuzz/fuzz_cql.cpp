// libFuzzer target: lbsim serve's frame and body decoders (sim/serve/, issue 46). The input is a
// sequence of request frames for one connection: each 9-byte v4 header (its length field capped
// at what is left) and its body go through Session::handle, as server.cpp's read loop hands them
// over, on configs/serve.json's cluster. Every malformed input must come back as an ERROR frame
// (PROTOCOL_ERROR, Syntax_error, Invalid, ...), never as an exception out of handle(), a
// sanitizer report, a hang or unbounded memory. The statement parser is fed the same bytes as a
// CQL string: SyntaxError is its only clean rejection.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "sim/config/scenario.hpp"
#include "sim/serve/catalog.hpp"
#include "sim/serve/session.hpp"
#include "sim/serve/statement.hpp"

namespace {
struct World {
  lbsim::Scenario sc = lbsim::load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json");
  lbsim::cql::Catalog catalog{sc, 0x7f000001};
};
World& world() {
  static World w;
  return w;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim::cql;
  World& w = world();
  try {
    parse_statement(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const SyntaxError&) {
    // A clean rejection.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parse_statement: not a SyntaxError: %s\n", e.what());
    std::abort();
  }
  // A catalog of its own per input: CREATE TABLE may add tables.
  Catalog catalog = w.catalog;
  NodeState node;
  SessionCounts counts;
  Session session(catalog, node, 0, w.sc, counts);
  std::size_t at = 0;
  while (size - at >= kHeaderSize) {
    Header h = parse_header(data + at);
    at += kHeaderSize;
    const std::size_t n = std::min<std::size_t>(h.length, size - at);
    h.length = static_cast<std::uint32_t>(n);
    const Bytes body(data + at, data + at + n);
    at += n;
    try {
      const Outcome o = session.handle(h, body);
      if (o.data) (void)session.error_frame(*o.data, lbsim::ErrorKind::WriteTimeout, 1);
      if (o.close) break;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "Session::handle let an exception out: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
