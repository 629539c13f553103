// lbsim serve's protocol (issue 46) frame by frame, without a socket: the v4 codec
// (apache/cassandra doc/native_protocol_v4.spec), the statement parser, the system tables the
// drivers read, and one connection's session (version refusal, OPTIONS, STARTUP, PREPARE and
// EXECUTE, errors); then through the server's sockets: a client of this file's own (a driver lbsim
// has no model of), every request opcode with a truncated and an oversized body, and a client
// that leaves mid-request, none of which harms another connection.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "serve_test_util.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/cluster/shard.hpp"
#include "sim/serve/catalog.hpp"
#include "sim/serve/cql_wire.hpp"
#include "sim/serve/session.hpp"
#include "sim/serve/statement.hpp"

namespace lbsim {
namespace {

using namespace cql;
const std::string kServeConfig = std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json";

Header request_header(std::uint8_t opcode, std::int16_t stream = 1, std::uint8_t version = 4) {
  Header h;
  h.version = version;
  h.stream = stream;
  h.opcode = opcode;
  return h;
}
Bytes startup_body() {
  Writer w;
  w.u16(1);
  w.string("CQL_VERSION");
  w.string("3.0.0");
  return std::move(w.out());
}
Bytes query_body(const std::string& q, std::uint16_t cl = 0x000A, const std::vector<Bytes>& values = {}) {
  Writer w;
  w.long_string(q);
  w.u16(cl);
  w.byte(values.empty() ? 0 : 0x01);
  if (!values.empty()) {
    w.u16(static_cast<std::uint16_t>(values.size()));
    for (const Bytes& v : values) w.bytes(v);
  }
  return std::move(w.out());
}
// A response frame's parts.
struct Response {
  Header h;
  Bytes body;
};
Response split(const Bytes& f) {
  Response r;
  r.h = parse_header(f.data());
  r.body.assign(f.begin() + kHeaderSize, f.end());
  return r;
}
std::int32_t error_code(const Bytes& f) {
  Response r = split(f);
  EXPECT_EQ(r.h.opcode, kError);
  Reader rd(r.body);
  return rd.i32();
}

struct Fixture {
  Scenario sc = load_scenario(kServeConfig);
  Catalog catalog{sc, *parse_ipv4("127.0.0.1")};
  NodeState node;
  SessionCounts counts;
  Session session{catalog, node, 0, sc, counts};
  Outcome ask(std::uint8_t op, const Bytes& body, std::int16_t stream = 1) {
    return session.handle(request_header(op, stream), body);
  }
  void start() { ASSERT_EQ(split(ask(kStartup, startup_body()).frames.at(0)).h.opcode, kReady); }
};

TEST(CqlWire, HeadersAndNotationsRoundTripAndTruncationIsAProtocolError) {
  const Bytes f = frame(-1, kEvent, {1, 2, 3}, 0x02);
  ASSERT_EQ(f.size(), kHeaderSize + 3);
  const Header h = parse_header(f.data());
  EXPECT_EQ(h.version, 0x84);
  EXPECT_EQ(h.flags, 0x02);
  EXPECT_EQ(h.stream, -1);
  EXPECT_EQ(h.opcode, kEvent);
  EXPECT_EQ(h.length, 3u);
  Writer w;
  w.string("héllo");
  w.long_string(std::string(70000, 'x'));
  w.i64(-5);
  w.inet(*parse_ipv4("127.0.0.5"), 9042);
  w.string_multimap({{"COMPRESSION", {}}, {"CQL_VERSION", {"3.4.5", "3.0.0"}}});
  Reader r(w.out());
  EXPECT_EQ(r.string(), "héllo");
  EXPECT_EQ(r.long_string().size(), 70000u);
  EXPECT_EQ(r.i64(), -5);
  EXPECT_EQ(r.byte(), 4);
  EXPECT_EQ(r.i32(), 0x7f000005);
  EXPECT_EQ(r.i32(), 9042);
  const auto supported = r.string_multimap();
  ASSERT_EQ(supported.size(), 2u);
  EXPECT_TRUE(supported.at("COMPRESSION").empty());
  EXPECT_EQ(supported.at("CQL_VERSION"), (std::vector<std::string>{"3.4.5", "3.0.0"}));
  EXPECT_EQ(r.left(), 0u);
  EXPECT_THROW(r.byte(), ProtocolError);
  Writer bad;
  bad.u16(10);  // a [string] of 10 bytes with 2
  bad.u16(0);
  Reader br(bad.out());
  EXPECT_THROW(br.string(), ProtocolError);
  Writer neg;
  neg.i32(-7);  // a [value] length below -2 ([bytes] takes any negative length as null)
  neg.i32(-7);
  Reader nr(neg.out());
  EXPECT_FALSE(nr.bytes());
  EXPECT_THROW(nr.value(), ProtocolError);
  EXPECT_EQ(ipv4_text(*parse_ipv4("10.1.2.3")), "10.1.2.3");
  EXPECT_FALSE(parse_ipv4("10.1.2"));
  EXPECT_FALSE(parse_ipv4("10.1.2.256"));
}

TEST(CqlStatement, ParsesWhatDriversAndApplicationsSend) {
  const Statement s = parse_statement("SELECT value FROM lbsim.kv WHERE key = ?;");
  EXPECT_EQ(s.kind, Statement::Select);
  EXPECT_EQ(s.keyspace, "lbsim");
  EXPECT_EQ(s.table, "kv");
  ASSERT_EQ(s.where.size(), 1u);
  EXPECT_EQ(s.where[0].first, "key");
  EXPECT_EQ(s.where[0].second.marker, 0);
  EXPECT_EQ(s.markers, 1);
  const Statement i = parse_statement("insert into KV (key, value) values (?, 0xCAFE) IF NOT EXISTS");
  EXPECT_EQ(i.kind, Statement::Insert);
  EXPECT_EQ(i.table, "kv");
  EXPECT_TRUE(i.conditional);
  ASSERT_EQ(i.where.size(), 2u);
  EXPECT_EQ(i.where[1].second.literal, "0xCAFE");
  const Statement c = parse_statement(
      "CREATE TABLE IF NOT EXISTS lbsim.events (tenant text, day int, at timestamp, body blob, "
      "PRIMARY KEY ((tenant, day), at))");
  EXPECT_EQ(c.kind, Statement::CreateTable);
  EXPECT_TRUE(c.if_not_exists);
  EXPECT_EQ(c.partition_key, (std::vector<std::string>{"tenant", "day"}));
  EXPECT_EQ(c.clustering, (std::vector<std::string>{"at"}));
  ASSERT_EQ(c.create_columns.size(), 4u);
  EXPECT_EQ(c.create_columns[2].type, Type::of(kTimestamp));
  const Statement q = parse_statement("SELECT * FROM \"MyTable\" WHERE k = 'it''s'");
  EXPECT_EQ(q.table, "MyTable");
  EXPECT_EQ(q.where[0].second.literal, "it's");
  EXPECT_TRUE(q.where[0].second.quoted);
  EXPECT_THROW(parse_statement("SELEC value FROM kv"), SyntaxError);
  EXPECT_THROW(parse_statement("SELECT value FROM kv WHERE key = 'open"), SyntaxError);
}

TEST(CqlSession, RefusesOtherVersionsWithTheErrorDriversStepDownOn) {
  Fixture f;
  for (std::uint8_t v : std::vector<std::uint8_t>{5, 0x41, 0x42, 3}) {
    const Outcome o = f.session.handle(request_header(kOptions, 0, v), {});
    ASSERT_EQ(o.frames.size(), 1u);
    const Response r = split(o.frames[0]);
    EXPECT_EQ(r.h.version, 0x84);
    EXPECT_EQ(r.h.stream, 0);
    Reader rd(r.body);
    EXPECT_EQ(rd.i32(), kProtocolError);
    EXPECT_NE(rd.string().find(fmt::format("Invalid or unsupported protocol version ({})", v)), std::string::npos);
    EXPECT_FALSE(o.close);
  }
  // OPTIONS: no compression, CQL 3.4.5, protocol 4 only; no ScyllaDB key for a Cassandra release.
  const Response s = split(f.ask(kOptions, {}).frames.at(0));
  EXPECT_EQ(s.h.opcode, kSupported);
  Reader rd(s.body);
  auto m = rd.string_multimap();
  EXPECT_TRUE(m.at("COMPRESSION").empty());
  EXPECT_EQ(m.at("CQL_VERSION"), std::vector<std::string>{"3.4.5"});
  EXPECT_EQ(m.count("SCYLLA_NR_SHARDS"), 0u);
  // A query before STARTUP is refused; STARTUP with a compression is refused.
  EXPECT_EQ(error_code(f.ask(kQuery, query_body("SELECT * FROM system.local")).frames.at(0)), kProtocolError);
  Writer lz4;
  lz4.u16(2);
  lz4.string("CQL_VERSION");
  lz4.string("3.0.0");
  lz4.string("COMPRESSION");
  lz4.string("lz4");
  EXPECT_EQ(error_code(f.ask(kStartup, lz4.out()).frames.at(0)), kProtocolError);
}

TEST(CqlSession, ScyllaReleasesAdvertiseTheirShardingInSupported) {
  Scenario sc = load_scenario(kServeConfig, {"cluster.server=scylla-2025.1"});
  Catalog catalog(sc, *parse_ipv4("127.0.0.1"));
  NodeState node;
  SessionCounts counts;
  Session s(catalog, node, 2, sc, counts, 1);
  const Response sup = split(s.handle(request_header(kOptions), {}).frames.at(0));
  Reader rd(sup.body);
  auto m = rd.string_multimap();
  EXPECT_EQ(m.at("SCYLLA_NR_SHARDS"), std::vector<std::string>{"2"});
  EXPECT_EQ(m.at("SCYLLA_SHARD"), std::vector<std::string>{"1"});
  EXPECT_EQ(m.at("SCYLLA_SHARDING_ALGORITHM"), std::vector<std::string>{"biased-token-round-robin"});
  EXPECT_EQ(m.at("SCYLLA_PARTITIONER"), std::vector<std::string>{"org.apache.cassandra.dht.Murmur3Partitioner"});
  EXPECT_EQ(m.at("SCYLLA_SHARDING_IGNORE_MSB"), std::vector<std::string>{"12"});
}

// A RESULT Rows body with metadata: each row as column name -> bytes (null as empty), and the types.
struct Rows {
  std::vector<std::map<std::string, Bytes>> rows;
  std::map<std::string, Type> types;
};
Type read_type(Reader& rd) {
  Type t{static_cast<TypeId>(rd.u16()), {}};
  if (t.id == kList || t.id == kSet) t.elements.push_back(read_type(rd));
  if (t.id == kMap) {
    t.elements.push_back(read_type(rd));
    t.elements.push_back(read_type(rd));
  }
  return t;
}
Rows parse_rows(const Bytes& body) {
  Reader rd(body);
  EXPECT_EQ(rd.i32(), kRows);
  EXPECT_EQ(rd.i32() & 1, 1);  // Global_tables_spec
  const std::int32_t ncols = rd.i32();
  rd.string();
  rd.string();
  std::vector<std::string> names;
  Rows out;
  for (int i = 0; i < ncols; ++i) {
    names.push_back(rd.string());
    out.types[names.back()] = read_type(rd);
  }
  for (std::int32_t n = rd.i32(), r = 0; r < n; ++r) {
    std::map<std::string, Bytes> row;
    for (int i = 0; i < ncols; ++i) row[names[i]] = rd.bytes().value_or(Bytes{});
    out.rows.push_back(std::move(row));
  }
  EXPECT_EQ(rd.left(), 0u);
  return out;
}
std::string text(const Bytes& b) { return {b.begin(), b.end()}; }

// system.local and system.peers: every node with its DC, rack and 16 tokens, the peers without the
// node asked; the tokens are the scenario's ring.
TEST(CqlSession, SystemTablesGiveTheScenariosNodesRacksAndTokens) {
  Fixture f;
  f.start();
  const Response local = split(f.ask(kQuery, query_body("SELECT * FROM system.local WHERE key='local'")).frames.at(0));
  ASSERT_EQ(local.h.opcode, kResult);
  const Rows l = parse_rows(local.body);
  ASSERT_EQ(l.rows.size(), 1u);
  EXPECT_EQ(text(l.rows[0].at("data_center")), "dc1");
  EXPECT_EQ(text(l.rows[0].at("rack")), f.sc.topology().nodes[0].rack);
  EXPECT_EQ(text(l.rows[0].at("partitioner")), "org.apache.cassandra.dht.Murmur3Partitioner");
  EXPECT_EQ(text(l.rows[0].at("release_version")), "4.1.0");
  EXPECT_EQ(l.types.at("tokens"), Type::set_of(kVarchar));
  Reader tr(l.rows[0].at("tokens"));
  ASSERT_EQ(tr.i32(), 16);
  std::vector<Token> tokens;
  for (int i = 0; i < 16; ++i) {
    const auto t = tr.bytes();
    tokens.push_back(std::stoll(text(*t)));
  }
  std::vector<Token> ring_tokens;
  const TokenRing& ring = f.sc.placement();
  for (std::size_t i = 0; i < ring.size(); ++i)
    if (ring.owner_at(i) == 0) ring_tokens.push_back(ring.token_at(i));
  std::sort(tokens.begin(), tokens.end());
  std::sort(ring_tokens.begin(), ring_tokens.end());
  EXPECT_EQ(tokens, ring_tokens);
  const Rows peers = parse_rows(split(f.ask(kQuery, query_body("SELECT * FROM system.peers")).frames.at(0)).body);
  ASSERT_EQ(peers.rows.size(), 4u);
  std::vector<std::uint32_t> addresses;
  for (const auto& row : peers.rows) {
    ASSERT_EQ(row.at("peer").size(), 4u);
    addresses.push_back((std::uint32_t{row.at("peer")[0]} << 24) | (std::uint32_t{row.at("peer")[1]} << 16) |
                        (std::uint32_t{row.at("peer")[2]} << 8) | row.at("peer")[3]);
    EXPECT_EQ(row.at("host_id").size(), 16u);
  }
  std::sort(addresses.begin(), addresses.end());
  for (std::uint32_t k = 0; k < 4; ++k) EXPECT_EQ(addresses[k], *parse_ipv4("127.0.0.2") + k);
}

TEST(CqlSession, PrepareGivesThePartitionKeyIndexAndExecuteRoutesByTheKeysToken) {
  Fixture f;
  f.start();
  const Response p = split(f.ask(kPrepare, [] {
    Writer w;
    w.long_string("SELECT value FROM lbsim.kv WHERE key = ?");
    return std::move(w.out());
  }()).frames.at(0));
  ASSERT_EQ(p.h.opcode, kResult);
  Reader rd(p.body);
  EXPECT_EQ(rd.i32(), kPrepared);
  const Bytes id = rd.short_bytes();
  EXPECT_EQ(id.size(), 16u);
  EXPECT_EQ(rd.i32(), 1);  // Global_tables_spec
  EXPECT_EQ(rd.i32(), 1);  // one marker
  EXPECT_EQ(rd.i32(), 1);  // one partition-key index
  EXPECT_EQ(rd.u16(), 0);  // ... the marker 0
  EXPECT_EQ(rd.string(), "lbsim");
  EXPECT_EQ(rd.string(), "kv");
  EXPECT_EQ(rd.string(), "key");
  EXPECT_EQ(rd.u16(), kBlob);
  const Bytes key{0xde, 0xad, 0xbe, 0xef};
  Writer e;
  e.short_bytes(id);
  e.u16(0x0004);  // QUORUM
  e.byte(0x01 | 0x02);
  e.u16(1);
  e.bytes(key);
  const Outcome o = f.ask(kExecute, e.out(), 9);
  EXPECT_TRUE(o.frames.empty());
  ASSERT_TRUE(o.data);
  EXPECT_EQ(o.data->stream, 9);
  EXPECT_EQ(o.data->op.kind, OpKind::Read);
  EXPECT_EQ(o.data->op.cl, ConsistencyLevel::Quorum);
  EXPECT_EQ(o.data->block_for, 2u);
  EXPECT_TRUE(o.data->op.routed);
  EXPECT_EQ(o.data->op.token, murmur3_token(key));
  // Its answer, when the model succeeds: Rows with no metadata (skip asked) and no row.
  Reader ok(o.data->success);
  EXPECT_EQ(ok.i32(), kRows);
  EXPECT_EQ(ok.i32(), 0x0004);
  EXPECT_EQ(ok.i32(), 1);
  EXPECT_EQ(ok.i32(), 0);
  // A failure: Read_timeout with its consistency, the responses the coordinator counted (here 2:
  // enough, but not the data replica's), block-for 2, and whether the data was among them.
  ExternalEnd end;
  end.success = false;
  end.error = ErrorKind::ReadTimeout;
  end.received = 2;
  const Response timeout = split(f.session.error_frame(*o.data, end, 3));
  Reader rt(timeout.body);
  EXPECT_EQ(rt.i32(), kReadTimeout);
  EXPECT_EQ(rt.string(), "Operation timed out - received only 2 responses.");
  EXPECT_EQ(rt.u16(), 0x0004);
  EXPECT_EQ(rt.i32(), 2);
  EXPECT_EQ(rt.i32(), 2);
  EXPECT_EQ(rt.byte(), 0);
  end.received = 1;
  end.data_present = true;
  const Response timeout1 = split(f.session.error_frame(*o.data, end, 3));
  Reader rt1(timeout1.body);
  rt1.i32();
  rt1.string();
  rt1.u16();
  EXPECT_EQ(rt1.i32(), 1);
  EXPECT_EQ(rt1.i32(), 2);
  EXPECT_EQ(rt1.byte(), 1);
  end.error = ErrorKind::Unavailable;
  const Response unavailable = split(f.session.error_frame(*o.data, end, 1));
  Reader un(unavailable.body);
  EXPECT_EQ(un.i32(), kUnavailable);
  un.string();
  EXPECT_EQ(un.u16(), 0x0004);
  EXPECT_EQ(un.i32(), 2);
  EXPECT_EQ(un.i32(), 1);
  // An id this node never prepared: Unprepared with the id.
  Writer u;
  u.short_bytes(Bytes(16, 7));
  u.u16(1);
  u.byte(0);
  EXPECT_EQ(error_code(f.ask(kExecute, u.out()).frames.at(0)), kUnprepared);
  // A write is a Write of VOID; a table it does not know is Invalid.
  const Outcome w = f.ask(kQuery, query_body("INSERT INTO lbsim.kv (key, value) VALUES (0x01, 0x02)"));
  ASSERT_TRUE(w.data);
  EXPECT_EQ(w.data->op.kind, OpKind::Write);
  EXPECT_EQ(w.data->op.token, murmur3_token(Bytes{0x01}));
  EXPECT_EQ(w.data->write_type, "SIMPLE");
  EXPECT_EQ(error_code(f.ask(kQuery, query_body("SELECT * FROM lbsim.nope WHERE key = 0x01")).frames.at(0)), kInvalid);
  EXPECT_EQ(f.counts.errors["unprepared"], 1u);
  EXPECT_EQ(f.counts.errors["invalid"], 1u);
}

TEST(CqlSession, ApplicationSchemaRoutesByItsCompositePartitionKeyAndOtherReplicationIsRefused) {
  Fixture f;
  f.start();
  const Outcome c = f.ask(kQuery, query_body("CREATE TABLE IF NOT EXISTS lbsim.events (tenant text, day int, "
                                             "at timestamp, body blob, PRIMARY KEY ((tenant, day), at))"));
  ASSERT_EQ(split(c.frames.at(0)).h.opcode, kResult);
  EXPECT_EQ(c.created, std::optional<std::string>("events"));
  const Outcome q = f.ask(kQuery, query_body("SELECT body FROM lbsim.events WHERE tenant = 'acme' AND day = 7 AND at = 0"));
  ASSERT_TRUE(q.data);
  const Bytes acme{'a', 'c', 'm', 'e'}, seven{0, 0, 0, 7};
  EXPECT_EQ(q.data->op.token, murmur3_token(routing_key({acme, seven})));
  EXPECT_EQ(error_code(f.ask(kQuery, query_body("CREATE KEYSPACE lbsim WITH replication = {'class': "
                                                "'SimpleStrategy', 'replication_factor': 1}")).frames.at(0)),
            kConfigError);
  EXPECT_EQ(error_code(f.ask(kQuery, query_body("CREATE TABLE other.t (k int PRIMARY KEY)")).frames.at(0)), kInvalid);
  // The scenario's own replication is accepted (IF NOT EXISTS: it exists).
  const Outcome same = f.ask(kQuery, query_body("CREATE KEYSPACE IF NOT EXISTS lbsim WITH replication = {'class': "
                                                "'NetworkTopologyStrategy', 'dc1': 3}"));
  EXPECT_EQ(split(same.frames.at(0)).h.opcode, kResult);
}

// The prepared statements a node keeps are bounded: a client preparing endless distinct ones
// cannot grow the server; the dropped ones come back as Unprepared.
TEST(CqlSession, PreparedStatementsPerNodeAreBounded) {
  Fixture f;
  f.start();
  std::vector<Bytes> ids;
  for (int i = 0; i < 4200; ++i) {
    Writer w;
    w.long_string(fmt::format("SELECT value FROM lbsim.kv WHERE key = 0x{:08x}", i));
    const Response r = split(f.ask(kPrepare, w.out()).frames.at(0));
    ASSERT_EQ(r.h.opcode, kResult);
    Reader rd(r.body);
    rd.i32();
    ids.push_back(rd.short_bytes());
  }
  EXPECT_EQ(f.node.prepared.size(), NodeState::kMaxPrepared);
  int unprepared = 0;
  for (const Bytes& id : ids) {
    Writer e;
    e.short_bytes(id);
    e.u16(1);
    e.byte(0);
    const Outcome o = f.ask(kExecute, e.out());
    unprepared += o.data ? 0 : 1;
    if (!o.data) {
      EXPECT_EQ(error_code(o.frames.at(0)), kUnprepared);
    }
  }
  EXPECT_EQ(unprepared, 4200 - static_cast<int>(NodeState::kMaxPrepared));
}

// Every request opcode with a body cut short, and with junk appended past a valid one: a
// PROTOCOL_ERROR that closes only that connection (junk after a complete body is ignored, as
// Cassandra's decoders read what they need).
TEST(CqlSession, EveryOpcodeWithATruncatedBodyIsAProtocolErrorThatClosesTheConnection) {
  Writer prep;
  prep.long_string("SELECT value FROM lbsim.kv WHERE key = ?");
  Writer reg;
  reg.string_list({"STATUS_CHANGE"});
  Writer batch;
  batch.byte(0);
  batch.u16(1);
  batch.byte(0);
  batch.long_string("INSERT INTO lbsim.kv (key, value) VALUES (0x01, 0x02)");
  batch.u16(0);
  batch.u16(1);
  batch.byte(0);
  const std::vector<std::pair<std::uint8_t, Bytes>> valid{
      {kStartup, startup_body()}, {kQuery, query_body("SELECT * FROM system.local")}, {kPrepare, prep.out()},
      {kRegister, reg.out()}, {kBatch, batch.out()}};
  for (const auto& [op, body] : valid) {
    for (std::size_t cut = 0; cut + 1 < body.size(); cut += std::max<std::size_t>(1, body.size() / 7)) {
      Fixture f;
      if (op != kStartup) f.start();
      const Bytes part(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(cut));
      const Outcome o = f.ask(op, part);
      ASSERT_EQ(o.frames.size(), 1u) << opcode_name(op) << " cut at " << cut;
      EXPECT_EQ(error_code(o.frames[0]), kProtocolError) << opcode_name(op) << " cut at " << cut;
      EXPECT_TRUE(o.close) << opcode_name(op);
    }
  }
  // EXECUTE cut inside its id; response opcodes and unknown ones sent as requests.
  for (std::uint8_t op : {kExecute}) {
    Fixture f;
    f.start();
    EXPECT_EQ(error_code(f.ask(op, Bytes{0, 16, 1, 2}).frames.at(0)), kProtocolError);
  }
  for (std::uint8_t op : std::vector<std::uint8_t>{kReady, kResult, kSupported, kEvent, 0x1F}) {
    Fixture f;
    f.start();
    const Outcome o = f.ask(op, {});
    EXPECT_EQ(error_code(o.frames.at(0)), kProtocolError) << int(op);
    EXPECT_TRUE(o.close);
  }
}

// Through the server's sockets: a client written here (no driver, no model of it in lbsim) speaks
// v4 and gets answers through the model; a frame over the limit is refused with PROTOCOL_ERROR and
// its connection closed; a client that leaves with a request in flight costs nothing else.
int connect_to(const std::string& addr, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(*parse_ipv4(addr));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}
void send_frame(int fd, std::uint8_t op, const Bytes& body, std::int16_t stream = 1, std::uint32_t claimed = 0xffffffff) {
  Bytes f(kHeaderSize);
  f[0] = 4;
  f[2] = static_cast<std::uint8_t>(static_cast<std::uint16_t>(stream) >> 8);
  f[3] = static_cast<std::uint8_t>(stream);
  f[4] = op;
  const std::uint32_t n = claimed == 0xffffffff ? static_cast<std::uint32_t>(body.size()) : claimed;
  for (int i = 0; i < 4; ++i) f[5 + i] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
  f.insert(f.end(), body.begin(), body.end());
  ASSERT_EQ(::send(fd, f.data(), f.size(), MSG_NOSIGNAL), static_cast<ssize_t>(f.size()));
}
// One frame, or a header with opcode 0xFF when the connection closed or timed out.
Response recv_frame(int fd) {
  Response r;
  r.h.opcode = 0xFF;
  std::uint8_t hdr[kHeaderSize];
  std::size_t got = 0;
  while (got < kHeaderSize) {
    const ssize_t n = ::recv(fd, hdr + got, kHeaderSize - got, 0);
    if (n <= 0) return r;
    got += static_cast<std::size_t>(n);
  }
  const Header h = parse_header(hdr);
  Bytes body(h.length);
  got = 0;
  while (got < h.length) {
    const ssize_t n = ::recv(fd, body.data() + got, h.length - got, 0);
    if (n <= 0) return r;
    got += static_cast<std::size_t>(n);
  }
  r.h = h;
  r.body = std::move(body);
  return r;
}

TEST(ServeSockets, AClientOfItsOwnIsAnsweredAndBadFramesHarmOnlyTheirConnection) {
  serve::ServeOptions opt;
  opt.address = "127.0.5.1";
  opt.port = 19342;
  opt.max_frame = 4096;
  testing::ServeThread server(load_scenario(kServeConfig), "python", opt);
  const int good = connect_to("127.0.5.3", opt.port);
  ASSERT_GE(good, 0);
  send_frame(good, kStartup, startup_body());
  EXPECT_EQ(recv_frame(good).h.opcode, kReady);
  // A client that leaves mid-request.
  const int gone = connect_to("127.0.5.3", opt.port);
  ASSERT_GE(gone, 0);
  send_frame(gone, kStartup, startup_body());
  EXPECT_EQ(recv_frame(gone).h.opcode, kReady);
  send_frame(gone, kQuery, query_body("SELECT value FROM lbsim.kv WHERE key = 0x0102"), 3);
  ::close(gone);
  // A frame over the limit, on a third connection.
  const int big = connect_to("127.0.5.2", opt.port);
  ASSERT_GE(big, 0);
  send_frame(big, kOptions, {}, 1, 5000);
  const Response refused = recv_frame(big);
  ASSERT_EQ(refused.h.opcode, kError);
  Reader rr(refused.body);
  EXPECT_EQ(rr.i32(), kProtocolError);
  EXPECT_EQ(recv_frame(big).h.opcode, 0xFF) << "the connection should be closed";
  ::close(big);
  // The good connection still works: 50 reads through the model, each answered on its stream.
  for (int i = 0; i < 50; ++i) {
    send_frame(good, kQuery, query_body(fmt::format("SELECT value FROM lbsim.kv WHERE key = 0x{:04x}", i), 0x0001),
               static_cast<std::int16_t>(100 + i));
    const Response a = recv_frame(good);
    ASSERT_EQ(a.h.opcode, kResult) << i;
    EXPECT_EQ(a.h.stream, 100 + i);
    Reader ar(a.body);
    EXPECT_EQ(ar.i32(), kRows);
  }
  ::close(good);
  const auto& report = server.stop();
  EXPECT_EQ(report["serve"]["limits"]["frames_over_limit"].get<int>(), 1);
  EXPECT_EQ(report["serve"]["data_requests"][2]["data_requests"].get<int>(), 51);
  EXPECT_EQ(report["serve"]["answered"].get<int>() + report["serve"]["unanswered"]["client_gone"].get<int>(), 51);
  EXPECT_EQ(report["nodes"][2]["coordinator_ops"].get<int>(), 51);
  EXPECT_EQ(report["nodes"][2]["address"].get<std::string>(), "127.0.5.3");
}

// The paced clock: a read whose model latency is 20 ms (constant service, no network or coordinator
// cost) is answered 20 ms of wall time after it is sent at --time-scale 1, and 40 ms at 0.5 (the
// cluster runs at half speed); the lag the report gives is what the answer's wall time adds.
double median_read_ms(double scale, int port) {
  serve::ServeOptions opt;
  opt.address = "127.0.6.1";
  opt.port = static_cast<std::uint16_t>(port);
  opt.time_scale = scale;
  const Scenario sc = load_scenario(
      kServeConfig, {R"(cluster.service.read={"dist": "constant", "us": 20000})", R"(cluster.service.coordinator={"dist": "constant", "us": 0})",
                     R"(network.same_rack={"dist": "constant", "us": 0})", R"(network.same_dc={"dist": "constant", "us": 0})"});
  testing::ServeThread server(sc, "python", opt);
  const int fd = connect_to("127.0.6.1", opt.port);
  EXPECT_GE(fd, 0);
  send_frame(fd, kStartup, startup_body());
  EXPECT_EQ(recv_frame(fd).h.opcode, kReady);
  std::vector<double> ms;
  for (int i = 0; i < 15; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    send_frame(fd, kQuery, query_body(fmt::format("SELECT value FROM lbsim.kv WHERE key = 0x{:04x}", i)), 5);
    const Response a = recv_frame(fd);
    EXPECT_EQ(a.h.opcode, kResult);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  ::close(fd);
  const auto& report = server.stop();
  EXPECT_LT(report["serve"]["lag_ms"]["p50"].get<double>(), 1.0);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

TEST(ServeSockets, AnswersLeaveAtTheModelsTimeOnTheScaledClock) {
  const double at1 = median_read_ms(1.0, 19452);
  const double at_half = median_read_ms(0.5, 19453);
  std::printf("a 20 ms read: %.2f ms of wall time at time scale 1, %.2f ms at 0.5\n", at1, at_half);
  EXPECT_GE(at1, 20.0);
  EXPECT_LT(at1, 22.0);
  EXPECT_GE(at_half, 40.0);
  EXPECT_LT(at_half, 42.0);
}

// ScyllaDB's shard-aware port: a connection from source port P is shard P mod shards, SUPPORTED
// says so and names the port; reads whose tokens are that shard's cost no cross-shard hop, those of
// the other shard one per replica job (ScyllaDB sends replica work to the sender's shard number).
int connect_from(const std::string& addr, int port, int parity, int shards, int& source) {
  for (int p = 41000 + (::getpid() % 2000) * 4; p < 65000; ++p) {
    if (p % shards != parity) continue;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_port = htons(static_cast<std::uint16_t>(p));
    local.sin_addr.s_addr = htonl(*parse_ipv4(addr));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
      ::close(fd);
      continue;
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(*parse_ipv4(addr));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd);
      continue;
    }
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    source = p;
    return fd;
  }
  return -1;
}

std::uint64_t hops_of_reads(bool matching) {
  serve::ServeOptions opt;
  opt.address = "127.0.7.1";
  opt.port = 19462;
  opt.shard_aware_port = 19463;
  const Scenario sc = load_scenario(kServeConfig, {"cluster.server=scylla-2025.1"});
  testing::ServeThread server(sc, "python", opt);
  int source = 0;
  const int fd = connect_from("127.0.7.2", opt.shard_aware_port, 1, 2, source);
  EXPECT_GE(fd, 0);
  send_frame(fd, kOptions, {});
  const Response sup = recv_frame(fd);
  Reader rd(sup.body);
  auto m = rd.string_multimap();
  EXPECT_EQ(m["SCYLLA_SHARD"], std::vector<std::string>{"1"}) << "source port " << source;
  EXPECT_EQ(m["SCYLLA_SHARD_AWARE_PORT"], std::vector<std::string>{"19463"});
  send_frame(fd, kStartup, startup_body());
  EXPECT_EQ(recv_frame(fd).h.opcode, kReady);
  int sent = 0;
  for (std::uint32_t i = 0; sent < 40; ++i) {
    const Bytes key{static_cast<std::uint8_t>(i >> 8), static_cast<std::uint8_t>(i)};
    const std::uint32_t shard = shard_of(murmur3_token(key), Sharding{2, sc.nodes.msb_ignore});
    if ((shard == 1) != matching) continue;
    send_frame(fd, kQuery, query_body(fmt::format("SELECT value FROM lbsim.kv WHERE key = 0x{:02x}{:02x}", key[0], key[1]), 0x0005),
               static_cast<std::int16_t>(sent));
    EXPECT_EQ(recv_frame(fd).h.opcode, kResult);
    ++sent;
  }
  ::close(fd);
  const auto& report = server.stop();
  std::uint64_t hops = 0;
  for (const auto& n : report["nodes"]) hops += n["cross_shard_hops"].get<std::uint64_t>();
  EXPECT_EQ(report["nodes"][1]["coordinator_ops"].get<int>(), 40);
  return hops;
}

TEST(ServeSockets, TheShardAwarePortGivesTheSourcePortsShardAndItsRequestsNoHops) {
  const std::uint64_t matching = hops_of_reads(true), other = hops_of_reads(false);
  std::printf("cross-shard hops of 40 reads at ALL: %llu on their tokens' shard, %llu on the other\n",
              static_cast<unsigned long long>(matching), static_cast<unsigned long long>(other));
  EXPECT_EQ(matching, 0u);
  EXPECT_EQ(other, 120u) << "each read's 3 replica jobs arrive on the other shard and hop once";
}

// ScyllaDB's tablets-routing-v1 (docs/dev/protocol-extensions.md), which none of the three
// installable drivers implements, through a client of the project's own that follows the published
// layout: a tablet keyspace on scylla-2025.1 lists TABLETS_ROUTING_V1 in SUPPORTED; a connection
// that asks for it in STARTUP gets, on the RESULT of each prepared request its node does not serve
// as the tablet's replica on the connection's shard, a custom payload (flag 0x04) holding the
// tablet's range (first, last] and its replicas' host ids and shards: those of the model's tablet
// map, by the host ids of system.local and system.peers. A connection that did not ask gets none.
TEST(ServeSockets, ATabletKeyspaceAnswersMisroutedRequestsWithTheTabletsRoutingPayload) {
  // The policies' vnode replica maps do not apply to tablets: the model's drivers use their caches.
  const Scenario sc = load_scenario(kServeConfig, {"cluster.server=scylla-2025.1", "keyspace.tablets=true",
                                                   "policies.0.policy.replica_source=null",
                                                   "policies.1.policy.replica_source=null",
                                                   "policies.2.policy.replica_source=null"});
  ASSERT_TRUE(sc.tablet_map);
  serve::ServeOptions opt;
  opt.address = "127.0.21.1";
  opt.port = 19382;
  testing::ServeThread server(sc, "python", opt);
  const Catalog catalog(sc, *parse_ipv4(opt.address));
  for (const bool asks : {true, false}) {
    const int fd = connect_to(opt.address, opt.port);  // n1
    ASSERT_GE(fd, 0);
    send_frame(fd, kOptions, {});
    const Response sup = recv_frame(fd);
    ASSERT_EQ(sup.h.opcode, kSupported);
    Reader sr(sup.body);
    const auto supported = sr.string_multimap();
    ASSERT_TRUE(supported.contains("TABLETS_ROUTING_V1"));
    EXPECT_EQ(supported.at("TABLETS_ROUTING_V1"), std::vector<std::string>{""});
    const std::uint32_t conn_shard = static_cast<std::uint32_t>(std::stoul(supported.at("SCYLLA_SHARD").at(0)));
    Writer st;
    st.u16(asks ? 2 : 1);
    st.string("CQL_VERSION");
    st.string("3.0.0");
    if (asks) {
      st.string("TABLETS_ROUTING_V1");
      st.string("");
    }
    send_frame(fd, kStartup, st.out());
    ASSERT_EQ(recv_frame(fd).h.opcode, kReady);
    Writer prep;
    prep.long_string("SELECT value FROM lbsim.kv WHERE key = ?");
    send_frame(fd, kPrepare, prep.out(), 2);
    const Response pr = recv_frame(fd);
    ASSERT_EQ(pr.h.opcode, kResult);
    Reader prd(pr.body);
    ASSERT_EQ(prd.i32(), kPrepared);
    const Bytes id = prd.short_bytes();
    int payloads = 0, plain = 0;
    for (int i = 0; i < 200; ++i) {
      const Bytes key{static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i * 7 + 3), 0x5a};
      Writer e;
      e.short_bytes(id);
      e.u16(0x0001);  // ONE
      e.byte(0x01);
      e.u16(1);
      e.bytes(key);
      send_frame(fd, kExecute, e.out(), 3);
      const Response r = recv_frame(fd);
      if (r.h.opcode == kError) {
        Reader er(r.body);
        const std::int32_t code = er.i32();
        FAIL() << "key " << i << ": error 0x" << std::hex << code << ": " << er.string();
      }
      ASSERT_EQ(r.h.opcode, kResult) << i;
      const Token t = murmur3_token(key);
      const auto reps = sc.tablet_map->replicas_of(t);
      bool served_here = false;
      for (const TabletReplica& x : reps) served_here = served_here || (x.host == 0 && x.shard == conn_shard);
      const bool has = (r.h.flags & 0x04) != 0;
      EXPECT_EQ(has, asks && !served_here) << "key " << i;
      if (!has) {
        ++plain;
        continue;
      }
      ++payloads;
      Reader b(r.body);
      ASSERT_EQ(b.u16(), 1);
      EXPECT_EQ(b.string(), "tablets-routing-v1");
      const Bytes v = b.bytes().value_or(Bytes{});
      ASSERT_EQ(v.size(), 32 + 32 * reps.size());
      Reader vr(v);
      ASSERT_EQ(vr.i32(), 8);
      const Token first = vr.i64();
      ASSERT_EQ(vr.i32(), 8);
      const Token last = vr.i64();
      EXPECT_TRUE(t > first && t <= last) << "the key's token is outside (first, last]";
      EXPECT_EQ(tablet_index(first + 1, sc.tablet_map->log2_count()), tablet_index(t, sc.tablet_map->log2_count()));
      EXPECT_EQ(vr.i32(), static_cast<std::int32_t>(4 + 32 * reps.size()));
      ASSERT_EQ(vr.i32(), static_cast<std::int32_t>(reps.size()));
      for (const TabletReplica& x : reps) {
        ASSERT_EQ(vr.i32(), 28);
        ASSERT_EQ(vr.i32(), 16);
        std::array<std::uint8_t, 16> host{};
        for (auto& byte : host) byte = vr.byte();
        EXPECT_EQ(host, catalog.host_id(x.host));
        ASSERT_EQ(vr.i32(), 4);
        EXPECT_EQ(static_cast<std::uint32_t>(vr.i32()), x.shard);
      }
      EXPECT_EQ(b.i32(), kRows);  // the RESULT itself follows
    }
    std::printf("tablets-routing-v1, %s: %d of 200 answers carried the payload, %d did not\n",
                asks ? "asked for" : "not asked for", payloads, plain);
    if (asks) {
      EXPECT_GT(payloads, 80);  // n1 holds about 3/5 of the tablets, half of them on this shard
      EXPECT_GT(plain, 10);
    } else {
      EXPECT_EQ(payloads, 0);
    }
    ::close(fd);
  }
  const auto& report = server.stop();
  EXPECT_GT(report["serve"]["tablets_routing_payloads"].get<int>(), 80);
}

TEST(ServeSockets, RemoteAddressesAreRefusedUnlessAllowed) {
  serve::ServeOptions opt;
  opt.address = "10.0.0.1";
  opt.port = 19442;
  const Scenario sc = load_scenario(kServeConfig);
  std::ostringstream log;
  EXPECT_THROW(serve::serve(sc, sc.policies.front(), 1, opt, log), ConfigError);
}

}  // namespace
}  // namespace lbsim
