// lbsim serve's frame codec (issue 46): the server's work per data request outside the model, on
// configs/serve.json's cluster. BM_CqlExecute: a prepared read's EXECUTE frame decoded by
// Session::handle (parameters, partition key, token, the answer's body prepared) and its RESULT
// frame written. BM_CqlQueryLiteral: the same read as a QUERY with the key as a literal, so the
// statement is parsed each time (what an application that does not prepare costs).
#include <benchmark/benchmark.h>

#include <string>

#include "sim/config/scenario.hpp"
#include "sim/serve/catalog.hpp"
#include "sim/serve/session.hpp"

namespace lbsim {
namespace {

using namespace cql;

struct ServeFixture {
  Scenario sc = load_scenario(std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json");
  Catalog catalog{sc, 0x7f000001};
  NodeState node;
  SessionCounts counts;
  Session session{catalog, node, 0, sc, counts};
  Header header(std::uint8_t op) {
    Header h;
    h.version = 4;
    h.stream = 7;
    h.opcode = op;
    return h;
  }
  ServeFixture() {
    Writer s;
    s.u16(1);
    s.string("CQL_VERSION");
    s.string("3.0.0");
    session.handle(header(kStartup), s.out());
  }
};

void BM_CqlExecute(benchmark::State& state) {
  ServeFixture f;
  Writer p;
  p.long_string("SELECT value FROM lbsim.kv WHERE key = ?");
  const Outcome prepared = f.session.handle(f.header(kPrepare), p.out());
  Reader r(prepared.frames.at(0).data() + kHeaderSize, prepared.frames.at(0).size() - kHeaderSize);
  r.i32();
  const Bytes id = r.short_bytes();
  Writer e;
  e.short_bytes(id);
  e.u16(0x000A);
  e.byte(0x01 | 0x02 | 0x04 | 0x20);  // values, skip metadata, page size, timestamp: as Node.js sends
  e.u16(1);
  e.bytes(Bytes{1, 2, 3, 4, 5, 6, 7, 8});
  e.i32(5000);
  e.i64(1700000000000000);
  const Bytes body = e.out();
  const Header h = f.header(kExecute);
  std::size_t bytes = 0;
  for (auto _ : state) {
    Outcome o = f.session.handle(h, body);
    const Bytes answer = frame(o.data->stream, kResult, o.data->success);
    bytes += answer.size();
    benchmark::DoNotOptimize(answer.data());
  }
  state.counters["answer_bytes"] = static_cast<double>(bytes) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_CqlExecute);

void BM_CqlQueryLiteral(benchmark::State& state) {
  ServeFixture f;
  Writer q;
  q.long_string("SELECT value FROM lbsim.kv WHERE key = 0x0102030405060708");
  q.u16(0x000A);
  q.byte(0);
  const Bytes body = q.out();
  const Header h = f.header(kQuery);
  for (auto _ : state) {
    Outcome o = f.session.handle(h, body);
    const Bytes answer = frame(o.data->stream, kResult, o.data->success);
    benchmark::DoNotOptimize(answer.data());
  }
}
BENCHMARK(BM_CqlQueryLiteral);

}  // namespace
}  // namespace lbsim
