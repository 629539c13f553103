#include "sim/serve/session.hpp"

#include <fmt/format.h>

#include "sim/cluster/routing_key.hpp"
#include "sim/engine/model_spec.hpp"

namespace lbsim::cql {

std::optional<ConsistencyLevel> consistency_of(std::uint16_t code) {
  using CL = ConsistencyLevel;
  switch (code) {
    case 0x0000: return CL::Any;
    case 0x0001: return CL::One;
    case 0x0002: return CL::Two;
    case 0x0003: return CL::Three;
    case 0x0004: return CL::Quorum;
    case 0x0005: return CL::All;
    case 0x0006: return CL::LocalQuorum;
    case 0x0007: return CL::EachQuorum;
    case 0x0008: return CL::Serial;
    case 0x0009: return CL::LocalSerial;
    case 0x000A: return CL::LocalOne;
    default: return std::nullopt;
  }
}

std::string error_code_name(std::int32_t code) {
  switch (code) {
    case kServerError: return "server_error";
    case kProtocolError: return "protocol_error";
    case kUnavailable: return "unavailable";
    case kOverloaded: return "overloaded";
    case kIsBootstrapping: return "is_bootstrapping";
    case kWriteTimeout: return "write_timeout";
    case kReadTimeout: return "read_timeout";
    case kSyntaxError: return "syntax_error";
    case kInvalid: return "invalid";
    case kConfigError: return "config_error";
    case kAlreadyExists: return "already_exists";
    case kUnprepared: return "unprepared";
    default: return fmt::format("0x{:04X}", code);
  }
}

Bytes prepared_id(const std::string& keyspace, const std::string& query) {
  // Two FNV-1a 64 hashes with different offsets: 16 stable bytes.
  auto fnv = [&](std::uint64_t h) {
    for (unsigned char c : keyspace + '\0' + query) {
      h ^= c;
      h *= 0x100000001b3ull;
    }
    return h;
  };
  Writer w;
  w.i64(static_cast<std::int64_t>(fnv(0xcbf29ce484222325ull)));
  w.i64(static_cast<std::int64_t>(fnv(0x84222325cbf29ce4ull)));
  return std::move(w.out());
}

Bytes routing_key(const std::vector<Bytes>& components) { return pack_composite(components); }

Session::Session(Catalog& catalog, NodeState& node, NodeId self, const Scenario& sc, SessionCounts& counts,
                 std::uint32_t shard)
    : catalog_(catalog), node_(node), self_(self), sc_(sc), counts_(counts), shard_(shard),
      rf_(RfTable::of(sc.topology(), sc.cluster.replication)) {}

// Unprepared (0x2500) with the id, on which every driver prepares again (Python
// PreparedQueryNotFound, gocql RequestErrUnprepared, Node.js serverErrorUnprepared).
Bytes Session::unprepared(std::int16_t stream, const Bytes& id) {
  const std::string message = "Prepared query with ID " + to_hex(id) + " not found";
  counts_.count_error("unprepared", message);
  Writer w;
  w.i32(kUnprepared);
  w.string(message);
  w.short_bytes(id);
  return frame(stream, kError, w.out());
}

// Already_exists (0x2400) with its keyspace and table ("" for a keyspace), spec section 9.
Bytes Session::already_exists(std::int16_t stream, const std::string& message, const std::string& ks,
                              const std::string& table) {
  counts_.count_error("already_exists", message);
  Writer w;
  w.i32(kAlreadyExists);
  w.string(message);
  w.string(ks);
  w.string(table);
  return frame(stream, kError, w.out());
}

Bytes Session::error(std::int16_t stream, std::int32_t code, const std::string& message) {
  counts_.count_error(error_code_name(code), message);
  return frame(stream, kError, error_body(code, message));
}

Session::Params Session::read_params(Reader& r) {
  Params p;
  p.cl = r.u16();
  p.flags = r.byte();
  if (p.flags & 0x01) {
    const std::uint16_t n = r.u16();
    for (std::uint16_t i = 0; i < n; ++i) {
      if (p.flags & 0x40) r.string();  // names for values: taken in order (the markers' order)
      bool unset = false;
      p.values.push_back(r.value(&unset));
    }
  }
  if (p.flags & 0x04) r.i32();    // page size
  if (p.flags & 0x08) r.bytes();  // paging state
  if (p.flags & 0x10) r.u16();    // serial consistency
  if (p.flags & 0x20) r.i64();    // default timestamp
  return p;
}

Outcome Session::handle(const Header& h, const Bytes& body) {
  Outcome out;
  ++counts_.by_opcode[std::string(opcode_name(h.opcode))];
  const std::uint8_t version = h.version & 0x7f;
  if (h.version & kResponse) {
    out.frames.push_back(error(h.stream, kProtocolError, "a response frame sent to the server"));
    out.close = true;
    return out;
  }
  if (version != kVersion) {
    // The refusal every driver steps down on (Python: "unsupported protocol version", Node.js:
    // "Invalid or unsupported protocol version", both substrings of Cassandra's wording in
    // ProtocolVersion.invalidVersionMessage), on the request's stream, in a v4 header.
    out.frames.push_back(error(h.stream, kProtocolError,
                               fmt::format("Invalid or unsupported protocol version ({}); supported versions are (4/v4)",
                                           version)));
    return out;
  }
  if (h.flags & 0x01) {
    out.frames.push_back(error(h.stream, kProtocolError, "compression was not negotiated (SUPPORTED lists none)"));
    out.close = true;
    return out;
  }
  try {
    Reader r(body);
    if (h.flags & 0x04) {  // a custom payload first: skipped
      const std::uint16_t n = r.u16();
      for (std::uint16_t i = 0; i < n; ++i) {
        r.string();
        r.bytes();
      }
    }
    if (!started_ && h.opcode != kOptions && h.opcode != kStartup) {
      out.frames.push_back(error(h.stream, kProtocolError,
                                 fmt::format("Unexpected message {}, expecting STARTUP or OPTIONS", opcode_name(h.opcode))));
      return out;
    }
    switch (h.opcode) {
      case kOptions: {
        Writer w;
        std::vector<std::pair<std::string, std::vector<std::string>>> m{
            {"COMPRESSION", {}}, {"CQL_VERSION", {"3.4.5"}}, {"PROTOCOL_VERSIONS", {"4/v4"}}};
        if (server_rules(sc_.nodes.server).scylla) {
          // ScyllaDB's sharding keys (scylladb/scylladb docs/dev/protocol-extensions.md).
          m.push_back({"SCYLLA_NR_SHARDS", {std::to_string(std::max<std::uint32_t>(1, sc_.nodes.shards))}});
          m.push_back({"SCYLLA_PARTITIONER", {"org.apache.cassandra.dht.Murmur3Partitioner"}});
          m.push_back({"SCYLLA_SHARD", {std::to_string(shard_)}});
          m.push_back({"SCYLLA_SHARDING_ALGORITHM", {"biased-token-round-robin"}});
          m.push_back({"SCYLLA_SHARDING_IGNORE_MSB", {std::to_string(sc_.nodes.msb_ignore)}});
          if (catalog_.shard_aware_port() != 0)
            m.push_back({"SCYLLA_SHARD_AWARE_PORT", {std::to_string(catalog_.shard_aware_port())}});
          // The routing payload, when the keyspace has tablets (protocol-extensions.md: value "").
          if (sc_.cluster.replication.tablets) m.push_back({"TABLETS_ROUTING_V1", {""}});
        }
        w.string_multimap(m);
        out.frames.push_back(frame(h.stream, kSupported, w.out()));
        return out;
      }
      case kStartup: {
        for (const auto& [k, v] : r.string_map()) {
          if (k == "COMPRESSION") {
            out.frames.push_back(error(h.stream, kProtocolError, "Unknown compression algorithm: " + v));
            return out;
          }
          if (k == "TABLETS_ROUTING_V1" && server_rules(sc_.nodes.server).scylla && sc_.cluster.replication.tablets)
            tablets_routing_ = true;
        }
        started_ = true;
        out.frames.push_back(frame(h.stream, kReady, {}));
        return out;
      }
      case kRegister: {
        for (const std::string& e : r.string_list()) {
          if (e == "TOPOLOGY_CHANGE") topology_ = true;
          else if (e == "STATUS_CHANGE") status_ = true;
          else if (e == "SCHEMA_CHANGE") schema_ = true;
          else {
            out.frames.push_back(error(h.stream, kProtocolError, "Invalid value '" + e + "' for Type"));
            return out;
          }
        }
        out.frames.push_back(frame(h.stream, kReady, {}));
        return out;
      }
      case kQuery: {
        const std::string q = r.long_string();
        const Params p = read_params(r);
        Statement st;
        try {
          st = parse_statement(q);
        } catch (const SyntaxError& e) {
          out.frames.push_back(error(h.stream, kSyntaxError, e.what()));
          return out;
        }
        return run(h.stream, st, st.keyspace.empty() ? keyspace_ : st.keyspace, p, (p.flags & 0x02) != 0, nullptr);
      }
      case kPrepare: {
        const std::string q = r.long_string();
        Statement st;
        try {
          st = parse_statement(q);
        } catch (const SyntaxError& e) {
          out.frames.push_back(error(h.stream, kSyntaxError, e.what()));
          return out;
        }
        Prepared pr;
        pr.st = st;
        pr.keyspace = st.keyspace.empty() ? keyspace_ : st.keyspace;
        const Table* t = nullptr;
        if (st.kind == Statement::Select || st.kind == Statement::Insert || st.kind == Statement::Update ||
            st.kind == Statement::Delete || st.kind == Statement::Batch) {
          if (pr.keyspace.empty()) {
            out.frames.push_back(error(h.stream, kInvalid, "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"));
            return out;
          }
          pr.system = catalog_.is_system_keyspace(pr.keyspace);
          t = pr.system ? catalog_.system_table(pr.keyspace, st.table) : catalog_.table(pr.keyspace, st.table);
          if (!t) {
            out.frames.push_back(error(h.stream, kInvalid, "unconfigured table " + st.table));
            return out;
          }
        }
        std::vector<std::pair<std::string, Type>> binds;
        std::vector<std::uint16_t> pk;
        if (t) {
          binds = catalog_.bind_types(st, *t);
          if (st.kind == Statement::Select) pr.result = catalog_.projection(st, *t);
          if (st.conditional) pr.result = {{"[applied]", Type::of(kBoolean)}};
          // pk_indexes: the marker of each partition-key column, in key order; none unless all are bound.
          for (std::size_t k : t->partition_key) {
            int marker = -1;
            for (const auto& [col, term] : st.where)
              if (col == t->columns[k].name && term.marker >= 0) marker = term.marker;
            if (marker < 0) {
              pk.clear();
              break;
            }
            pk.push_back(static_cast<std::uint16_t>(marker));
          }
        }
        const Bytes id = prepared_id(pr.keyspace, q);
        Writer w;
        w.i32(kPrepared);
        w.short_bytes(id);
        write_prepared_metadata(w, t ? t->keyspace : pr.keyspace, t ? t->name : st.table, binds, pk, pr.result);
        // A bounded cache, as servers keep (Cassandra's prepared_statements_cache_size): the
        // smallest id goes when it is full, and a client that executes it gets Unprepared and
        // prepares it again, as the drivers do.
        if (node_.prepared.size() >= NodeState::kMaxPrepared && !node_.prepared.count(id))
          node_.prepared.erase(node_.prepared.begin());
        node_.prepared[id] = std::move(pr);
        out.frames.push_back(frame(h.stream, kResult, w.out()));
        return out;
      }
      case kExecute: {
        const Bytes id = r.short_bytes();
        const Params p = read_params(r);
        const auto it = node_.prepared.find(id);
        if (it == node_.prepared.end()) {
          out.frames.push_back(unprepared(h.stream, id));
          return out;
        }
        // The client skips the metadata (Skip_metadata): it has the PREPARE reply's.
        return run(h.stream, it->second.st, it->second.keyspace, p, (p.flags & 0x02) != 0, &it->second.result);
      }
      case kBatch: {
        const std::uint8_t type = r.byte();
        const std::uint16_t n = r.u16();
        std::optional<Statement> first;
        std::string ks = keyspace_;
        std::vector<Cell> first_values;
        for (std::uint16_t i = 0; i < n; ++i) {
          const std::uint8_t kind = r.byte();
          Statement st;
          std::string st_ks = keyspace_;
          if (kind == 0) {
            const std::string q = r.long_string();
            try {
              st = parse_statement(q);
            } catch (const SyntaxError& e) {
              out.frames.push_back(error(h.stream, kSyntaxError, e.what()));
              return out;
            }
            if (!st.keyspace.empty()) st_ks = st.keyspace;
          } else if (kind == 1) {
            const Bytes id = r.short_bytes();
            const auto it = node_.prepared.find(id);
            if (it == node_.prepared.end()) {
              out.frames.push_back(unprepared(h.stream, id));
              return out;
            }
            st = it->second.st;
            st_ks = it->second.keyspace;
          } else {
            throw ProtocolError(fmt::format("invalid BATCH statement kind {}", kind));
          }
          const std::uint16_t nv = r.u16();
          std::vector<Cell> values;
          for (std::uint16_t v = 0; v < nv; ++v) values.push_back(r.value());
          if (!first) {
            first = st;
            ks = st_ks;
            first_values = std::move(values);
          }
        }
        Params p;
        p.cl = r.u16();
        p.flags = r.byte();
        if (p.flags & 0x10) r.u16();
        if (p.flags & 0x20) r.i64();
        p.values = std::move(first_values);
        if (!first) {
          out.frames.push_back(error(h.stream, kInvalid, "a BATCH needs at least one statement"));
          return out;
        }
        // A batch is routed as its first statement (the drivers' routing key is the first
        // statement's); a logged batch's batchlog writes are not modelled.
        first->kind = first->kind == Statement::Select ? Statement::Select : first->kind;
        Outcome o = run(h.stream, *first, ks, p, true, nullptr);
        if (o.data) o.data->write_type = type == 0 ? "BATCH" : type == 2 ? "COUNTER" : "UNLOGGED_BATCH";
        if (o.data) o.data->success = [] {
          Writer w;
          w.i32(kVoid);
          return std::move(w.out());
        }();
        return o;
      }
      case kAuthResponse:
        out.frames.push_back(error(h.stream, kProtocolError, "authentication was not requested"));
        return out;
      default:
        out.frames.push_back(error(h.stream, kProtocolError,
                                   fmt::format("{} is not a request opcode", opcode_name(h.opcode))));
        out.close = true;
        return out;
    }
  } catch (const ProtocolError& e) {
    out.frames.push_back(error(h.stream, kProtocolError, std::string("Invalid message: ") + e.what()));
    out.close = true;
    return out;
  } catch (const CqlError& e) {
    out.frames.push_back(error(h.stream, e.code, e.message));
    return out;
  } catch (const std::exception& e) {  // a body this server failed on: the connection only
    out.frames.push_back(error(h.stream, kServerError, std::string("lbsim serve failed on this request: ") + e.what()));
    out.close = true;
    return out;
  }
}

Outcome Session::run(std::int16_t stream, const Statement& st, const std::string& ks, const Params& p,
                     bool skip_metadata, const std::vector<std::pair<std::string, Type>>* prepared_result) {
  Outcome out;
  Writer w;
  switch (st.kind) {
    case Statement::Use: {
      const std::string& name = st.table;
      if (name != catalog_.keyspace() && !catalog_.is_system_keyspace(name)) {
        out.frames.push_back(error(stream, kInvalid, "Keyspace '" + name + "' does not exist"));
        return out;
      }
      keyspace_ = name;
      w.i32(kSetKeyspace);
      w.string(name);
      out.frames.push_back(frame(stream, kResult, w.out()));
      return out;
    }
    case Statement::CreateKeyspace: {
      catalog_.create_keyspace(st);  // throws CqlError when it cannot be honoured
      if (!st.if_not_exists) {
        out.frames.push_back(already_exists(stream, "Keyspace " + st.table + " already exists", st.table, ""));
        return out;
      }
      w.i32(kVoid);
      out.frames.push_back(frame(stream, kResult, w.out()));
      return out;
    }
    case Statement::CreateTable: {
      const std::string tks = st.keyspace.empty() ? keyspace_ : st.keyspace;
      try {
        if (catalog_.create_table(st, keyspace_)) {
          w.i32(kSchemaChange);
          w.string("CREATED");
          w.string("TABLE");
          w.string(tks);
          w.string(st.table);
          out.created = st.table;
        } else {
          w.i32(kVoid);
        }
      } catch (const CqlError& e) {
        if (e.code != kAlreadyExists) throw;
        out.frames.push_back(already_exists(stream, e.message, tks, st.table));
        return out;
      }
      out.frames.push_back(frame(stream, kResult, w.out()));
      return out;
    }
    default: break;
  }
  if (ks.empty()) {
    out.frames.push_back(error(stream, kInvalid, "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"));
    return out;
  }
  if (catalog_.is_system_keyspace(ks)) {
    if (st.kind != Statement::Select) {
      out.frames.push_back(error(stream, kUnauthorized, "lbsim serve's system tables are read-only"));
      return out;
    }
    Statement s2 = st;
    s2.keyspace = ks;
    const RowSet rows = catalog_.select_system(s2, self_, p.values);
    out.frames.push_back(frame(stream, kResult, rows_body(rows, !skip_metadata || !prepared_result)));
    return out;
  }
  const Table* t = catalog_.table(ks, st.table);
  if (!t) {
    out.frames.push_back(error(stream, kInvalid, ks != catalog_.keyspace() ? "Keyspace " + ks + " does not exist"
                                                                         : "unconfigured table " + st.table));
    return out;
  }
  // The partition key's values, from the markers' values or the literals.
  std::vector<Bytes> pk;
  bool routed = true;
  for (std::size_t k : t->partition_key) {
    const Column& c = t->columns[k];
    std::optional<Bytes> v;
    for (const auto& [col, term] : st.where) {
      if (col != c.name) continue;
      if (term.marker >= 0) {
        if (static_cast<std::size_t>(term.marker) >= p.values.size() || !p.values[static_cast<std::size_t>(term.marker)])
          throw CqlError{kInvalid, "Invalid null value in condition for column " + c.name};
        v = *p.values[static_cast<std::size_t>(term.marker)];
      } else {
        v = literal_value(term, c.type);
        if (!v) throw CqlError{kInvalid, "Invalid literal '" + term.literal + "' for column " + c.name + " of type " + type_name(c.type)};
      }
    }
    if (!v) {
      if (st.kind != Statement::Select)
        throw CqlError{kInvalid, "Some partition key parts are missing: " + c.name};
      routed = false;  // a SELECT without the whole partition key: one unrouted read (a scan is not modelled)
      break;
    }
    pk.push_back(std::move(*v));
  }
  const auto cl = consistency_of(p.cl);
  if (!cl) throw ProtocolError(fmt::format("unknown consistency level 0x{:04X}", p.cl));
  DataRequest d;
  d.stream = stream;
  d.cl_code = p.cl;
  d.op.kind = st.conditional ? OpKind::Lwt : st.kind == Statement::Select ? OpKind::Read : OpKind::Write;
  d.op.cl = *cl == ConsistencyLevel::Serial ? ConsistencyLevel::Quorum
            : *cl == ConsistencyLevel::LocalSerial ? ConsistencyLevel::LocalQuorum : *cl;
  d.op.routed = routed;
  d.op.token = routed ? murmur3_token(routing_key(pk)) : 0;
  d.op.coordinator = self_;
  const ClNeed need = cl_need(d.op.cl, sc_.topology().node_dc[self_], rf_);
  d.block_for = need.total;
  d.write_type = st.conditional ? "CAS" : "SIMPLE";
  d.hint_eligible = prepared_result != nullptr && routed;
  // Reads return no rows: lbsim stores no data (docs/serve.md).
  if (st.conditional) {
    RowSet applied;
    applied.keyspace = t->keyspace;
    applied.table = t->name;
    applied.columns = {{"[applied]", Type::of(kBoolean)}};
    applied.rows.push_back({bool_value(true)});
    d.success = rows_body(applied, true);
  } else if (st.kind == Statement::Select) {
    RowSet empty;
    empty.keyspace = t->keyspace;
    empty.table = t->name;
    empty.columns = prepared_result ? *prepared_result : catalog_.projection(st, *t);
    d.success = rows_body(empty, !skip_metadata);
  } else {
    w.i32(kVoid);
    d.success = std::move(w.out());
  }
  out.data = std::move(d);
  return out;
}

// The payload's value: the CQL serialisation of tuple<bigint first, bigint last, list<tuple<uuid,
// int>>>, each tuple field and list element [bytes]-wrapped, the list with an int count
// (scylladb/scylladb docs/dev/protocol-extensions.md "tablets-routing-v1"; the parsers of
// scylladb/gocql tablets/hint_parser.go and scylla-rust-driver routing/locator/tablets.rs read it
// so): 32 + 32 n bytes for n replicas.
Bytes Session::result_frame(const DataRequest& r, const ExternalEnd& end) const {
  if (!end.hint || !r.hint_eligible || !tablets_routing_) return frame(r.stream, kResult, r.success);
  const RoutingHint& h = *end.hint;
  Writer v;
  v.i32(8);
  v.i64(h.first);
  v.i32(8);
  v.i64(h.last);
  v.i32(static_cast<std::int32_t>(4 + 32 * h.replicas.size()));
  v.i32(static_cast<std::int32_t>(h.replicas.size()));
  for (const auto& [host, shard] : h.replicas) {
    v.i32(28);
    v.i32(16);
    const auto& id = catalog_.host_id(host);
    v.raw(id.data(), id.size());
    v.i32(4);
    v.i32(static_cast<std::int32_t>(shard));
  }
  Writer w;
  w.u16(1);
  w.string("tablets-routing-v1");
  w.bytes(v.out());
  w.raw(r.success.data(), r.success.size());
  return frame(r.stream, kResult, w.out(), 0x04);
}

Bytes Session::error_frame(const DataRequest& r, const ExternalEnd& end, std::uint32_t alive) {
  const ErrorKind e = end.error;
  Writer w;
  std::int32_t code = kServerError;
  switch (e) {
    case ErrorKind::Unavailable:
      code = kUnavailable;
      w.i32(code);
      w.string(fmt::format("Cannot achieve consistency level (required {}, alive {})", r.block_for, alive));
      w.u16(r.cl_code);
      w.i32(static_cast<std::int32_t>(r.block_for));
      w.i32(static_cast<std::int32_t>(alive));
      break;
    case ErrorKind::ReadTimeout:
      code = kReadTimeout;
      w.i32(code);
      w.string(fmt::format("Operation timed out - received only {} responses.", end.received));
      w.u16(r.cl_code);
      w.i32(static_cast<std::int32_t>(end.received));
      w.i32(static_cast<std::int32_t>(r.block_for));
      w.byte(end.data_present ? 1 : 0);
      break;
    case ErrorKind::WriteTimeout:
      code = kWriteTimeout;
      w.i32(code);
      w.string(fmt::format("Operation timed out - received only {} responses.", end.received));
      w.u16(r.cl_code);
      w.i32(static_cast<std::int32_t>(end.received));
      w.i32(static_cast<std::int32_t>(r.block_for));
      w.string(r.write_type);
      break;
    case ErrorKind::Overloaded:
      code = kOverloaded;
      w.i32(code);
      w.string("Too many in flight requests: the coordinator shed the request (lbsim)");
      break;
    default:
      w.i32(code);
      w.string(fmt::format("lbsim: the simulated operation ended with {}", error_name(e)));
      break;
  }
  counts_.count_error(error_code_name(code), std::string(error_name(e)));
  return frame(r.stream, kError, w.out());
}

}  // namespace lbsim::cql
