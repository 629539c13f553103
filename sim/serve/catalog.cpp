#include "sim/serve/catalog.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "sim/engine/model_spec.hpp"

namespace lbsim::cql {

const Column* Table::find(const std::string& column) const {
  for (const Column& c : columns)
    if (c.name == column) return &c;
  return nullptr;
}

namespace {

Table make_table(std::string ks, std::string name, std::vector<std::pair<std::string, Type>> cols,
                 std::vector<std::string> pk = {}, std::vector<std::string> ck = {}) {
  Table t;
  t.keyspace = std::move(ks);
  t.name = std::move(name);
  for (auto& [n, ty] : cols) t.columns.push_back({n, ty, Column::Regular, -1});
  for (std::size_t i = 0; i < pk.size(); ++i)
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].name == pk[i]) {
        t.columns[c].kind = Column::PartitionKey;
        t.columns[c].position = static_cast<int>(i);
        t.partition_key.push_back(c);
      }
  for (std::size_t i = 0; i < ck.size(); ++i)
    for (Column& c : t.columns)
      if (c.name == ck[i]) {
        c.kind = Column::Clustering;
        c.position = static_cast<int>(i);
      }
  return t;
}

const Type kText = Type::of(kVarchar);
const Type kInetT = Type::of(kInet);
const Type kUuidT = Type::of(kUuid);
const Type kIntT = Type::of(kInt);
const Type kBool = Type::of(kBoolean);
const Type kTextSet = Type::set_of(kVarchar);
const Type kTextList = Type::list_of(kVarchar);
const Type kTextMap = Type::map_of(kVarchar, kVarchar);

// The release_version a node reports: its release's major.minor (patch 0); ScyllaDB releases report
// 3.0.8, the Cassandra version they are compatible with (assumed: the value seen from ScyllaDB
// clusters, not checked in its source here). 3.x keeps gocql on system.peers and Python on its
// schema parser V3; 4.x and 5.x make gocql try system.peers_v2 and Python read
// system_virtual_schema, both answered with Invalid (0x2200), on which each falls back
// (gocql conn.go, python-driver metadata.py _handle_results's expected_failures).
std::string release_of(ServerRelease r) {
  switch (r) {
    case ServerRelease::Cassandra41: return "4.1.0";
    case ServerRelease::Cassandra50: return "5.0.0";
    case ServerRelease::Unspecified:
    case ServerRelease::Cassandra311: return "3.11.0";
    default: return "3.0.8";
  }
}

std::string replication_class(const Replication& r) {
  return r.kind == StrategyKind::Simple ? "org.apache.cassandra.locator.SimpleStrategy"
                                        : "org.apache.cassandra.locator.NetworkTopologyStrategy";
}

bool parse_int(std::string_view s, long long& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<Bytes> literal_value(const Term& t, const Type& type) {
  const std::string& s = t.literal;
  switch (type.id) {
    case kVarchar:
    case kAscii:
      if (!t.quoted) return std::nullopt;
      return text_value(s);
    case kBlob: {
      if (s.size() < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s.size() % 2 != 0) return std::nullopt;
      Bytes b;
      for (std::size_t i = 2; i < s.size(); i += 2) {
        const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        b.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
      }
      return b;
    }
    case kInt: {
      long long v = 0;
      if (t.quoted || !parse_int(s, v) || v < INT32_MIN || v > INT32_MAX) return std::nullopt;
      return int_value(static_cast<std::int32_t>(v));
    }
    case kBigint:
    case kCounter:
    case kTimestamp: {
      long long v = 0;
      if (t.quoted || !parse_int(s, v)) return std::nullopt;
      return bigint_value(v);
    }
    case kBoolean:
      if (s == "true") return bool_value(true);
      if (s == "false") return bool_value(false);
      return std::nullopt;
    case kUuid:
    case kTimeuuid: {
      Bytes b;
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '-') continue;
        if (i + 1 >= s.size()) return std::nullopt;
        const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        b.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
        ++i;
      }
      if (b.size() != 16) return std::nullopt;
      return b;
    }
    default: return std::nullopt;
  }
}

Bytes rows_body(const RowSet& r, bool metadata) {
  Writer w;
  w.i32(kRows);
  w.i32(metadata ? 0x0001 : 0x0004);
  w.i32(static_cast<std::int32_t>(r.columns.size()));
  if (metadata) {
    w.string(r.keyspace);
    w.string(r.table);
    for (const auto& [name, type] : r.columns) {
      w.string(name);
      w.type(type);
    }
  }
  w.i32(static_cast<std::int32_t>(r.rows.size()));
  for (const Row& row : r.rows)
    for (const Cell& c : row) {
      if (c) w.bytes(*c);
      else w.null_bytes();
    }
  return std::move(w.out());
}

void write_prepared_metadata(Writer& w, const std::string& ks, const std::string& table,
                             const std::vector<std::pair<std::string, Type>>& binds,
                             const std::vector<std::uint16_t>& pk_indexes,
                             const std::vector<std::pair<std::string, Type>>& result) {
  // Global_tables_spec always: Node.js learns the keyspace only from it (readers.js readMetadata).
  w.i32(0x0001);
  w.i32(static_cast<std::int32_t>(binds.size()));
  w.i32(static_cast<std::int32_t>(pk_indexes.size()));
  for (std::uint16_t i : pk_indexes) w.u16(i);
  w.string(ks);
  w.string(table);
  for (const auto& [name, type] : binds) {
    w.string(name);
    w.type(type);
  }
  w.i32(0x0001);
  w.i32(static_cast<std::int32_t>(result.size()));
  w.string(ks);
  w.string(table);
  for (const auto& [name, type] : result) {
    w.string(name);
    w.type(type);
  }
}

Catalog::Catalog(const Scenario& sc, std::uint32_t base_address)
    : sc_(sc), base_(base_address), keyspace_(sc.cluster.replication.name), release_(release_of(sc.nodes.server)) {
  const Topology& topo = sc.topology();
  // Members at the start: all, or the first changes.initial_nodes when nodes join later.
  const std::size_t initial =
      sc.changes.events.empty() || sc.changes.initial_nodes == 0 ? topo.size() : sc.changes.initial_nodes;
  for (NodeId n = 0; n < topo.size(); ++n) {
    // Host ids: "lbsim" in ASCII, then the version-4 and variant bits, then the node's index.
    std::array<std::uint8_t, 16> u{0x6c, 0x62, 0x73, 0x69, 0x6d, 0x00, 0x40, 0x00, 0x80, 0x00, 0, 0, 0, 0, 0, 0};
    for (int b = 0; b < 4; ++b) u[15 - b] = static_cast<std::uint8_t>((n + 1) >> (8 * b));
    host_ids_.push_back(u);
    member_.push_back(n < initial && !topo.nodes[n].tokens.empty());
  }
  // The keyspace's one table: kv (key blob PRIMARY KEY, value blob).
  tables_["kv"] = make_table(keyspace_, "kv", {{"key", Type::of(kBlob)}, {"value", Type::of(kBlob)}}, {"key"});
  define_system_tables();
}

std::string Catalog::host_id_text(NodeId n) const {
  const auto& u = host_ids_[n];
  std::string s;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", u[i]);
  }
  return s;
}

std::optional<NodeId> Catalog::node_of_address(std::uint32_t addr) const {
  if (addr < base_ || addr - base_ >= host_ids_.size()) return std::nullopt;
  return addr - base_;
}

void Catalog::define_system_tables() {
  auto add = [&](Table t) { system_tables_[t.keyspace + "." + t.name] = std::move(t); };
  // system.local and system.peers: the columns of docs/serve.md's table (python-driver cluster.py
  // _is_valid_peer, gocql host_source.go hostInfoFromMap's asserted types, nodejs-driver
  // control-connection.js).
  add(make_table("system", "local",
                 {{"key", kText}, {"bootstrapped", kText}, {"broadcast_address", kInetT}, {"cluster_name", kText},
                  {"cql_version", kText}, {"data_center", kText}, {"host_id", kUuidT}, {"listen_address", kInetT},
                  {"native_protocol_version", kText}, {"partitioner", kText}, {"rack", kText},
                  {"release_version", kText}, {"rpc_address", kInetT}, {"schema_version", kUuidT},
                  {"tokens", kTextSet}},
                 {"key"}));
  add(make_table("system", "peers",
                 {{"peer", kInetT}, {"data_center", kText}, {"host_id", kUuidT}, {"preferred_ip", kInetT},
                  {"rack", kText}, {"release_version", kText}, {"rpc_address", kInetT}, {"schema_version", kUuidT},
                  {"tokens", kTextSet}},
                 {"peer"}));
  add(make_table("system_schema", "keyspaces",
                 {{"keyspace_name", kText}, {"durable_writes", kBool}, {"replication", kTextMap}}, {"keyspace_name"}));
  add(make_table("system_schema", "tables",
                 {{"keyspace_name", kText}, {"table_name", kText}, {"bloom_filter_fp_chance", Type::of(kDouble)},
                  {"caching", kTextMap}, {"comment", kText}, {"compaction", kTextMap}, {"compression", kTextMap},
                  {"default_time_to_live", kIntT}, {"flags", kTextSet}, {"gc_grace_seconds", kIntT},
                  {"id", kUuidT}, {"speculative_retry", kText}},
                 {"keyspace_name"}, {"table_name"}));
  add(make_table("system_schema", "columns",
                 {{"keyspace_name", kText}, {"table_name", kText}, {"column_name", kText},
                  {"clustering_order", kText}, {"column_name_bytes", Type::of(kBlob)}, {"kind", kText},
                  {"position", kIntT}, {"type", kText}},
                 {"keyspace_name"}, {"table_name", "column_name"}));
  // Empty in lbsim: the columns the drivers project (gocql metadata.go's queries, python-driver's
  // SchemaParserV3), so that a PREPARE of them gets exact result metadata.
  add(make_table("system_schema", "views",
                 {{"keyspace_name", kText}, {"view_name", kText}, {"base_table_id", kUuidT}, {"base_table_name", kText},
                  {"bloom_filter_fp_chance", Type::of(kDouble)}, {"caching", kTextMap}, {"comment", kText},
                  {"compaction", kTextMap}, {"compression", kTextMap}, {"crc_check_chance", Type::of(kDouble)},
                  {"dclocal_read_repair_chance", Type::of(kDouble)}, {"default_time_to_live", kIntT},
                  {"extensions", Type::map_of(kVarchar, kBlob)}, {"gc_grace_seconds", kIntT}, {"id", kUuidT},
                  {"include_all_columns", kBool}, {"max_index_interval", kIntT}, {"memtable_flush_period_in_ms", kIntT},
                  {"min_index_interval", kIntT}, {"read_repair_chance", Type::of(kDouble)}, {"speculative_retry", kText},
                  {"where_clause", kText}},
                 {"keyspace_name"}, {"view_name"}));
  add(make_table("system_schema", "types",
                 {{"keyspace_name", kText}, {"type_name", kText}, {"field_names", kTextList}, {"field_types", kTextList}},
                 {"keyspace_name"}, {"type_name"}));
  add(make_table("system_schema", "functions",
                 {{"keyspace_name", kText}, {"function_name", kText}, {"argument_types", kTextList},
                  {"argument_names", kTextList}, {"body", kText}, {"called_on_null_input", kBool}, {"language", kText},
                  {"return_type", kText}},
                 {"keyspace_name"}, {"function_name"}));
  add(make_table("system_schema", "aggregates",
                 {{"keyspace_name", kText}, {"aggregate_name", kText}, {"argument_types", kTextList},
                  {"final_func", kText}, {"initcond", kText}, {"return_type", kText}, {"state_func", kText},
                  {"state_type", kText}},
                 {"keyspace_name"}, {"aggregate_name"}));
  add(make_table("system_schema", "triggers",
                 {{"keyspace_name", kText}, {"table_name", kText}, {"trigger_name", kText}, {"options", kTextMap}},
                 {"keyspace_name"}, {"table_name", "trigger_name"}));
  add(make_table("system_schema", "indexes",
                 {{"keyspace_name", kText}, {"table_name", kText}, {"index_name", kText}, {"kind", kText},
                  {"options", kTextMap}},
                 {"keyspace_name"}, {"table_name", "index_name"}));
}

const Table* Catalog::table(const std::string& ks, const std::string& name) const {
  if (ks != keyspace_) return nullptr;
  const auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : &it->second;
}

const Table* Catalog::system_table(const std::string& ks, const std::string& name) const {
  const auto it = system_tables_.find(ks + "." + name);
  return it == system_tables_.end() ? nullptr : &it->second;
}

bool Catalog::is_system_keyspace(const std::string& ks) const {
  return ks == "system" || ks == "system_schema" || ks == "system_virtual_schema" || ks == "system_auth" ||
         ks == "system_distributed" || ks == "system_traces";
}

std::vector<Row> Catalog::system_rows(const std::string& ks, const std::string& name, NodeId self) const {
  const Topology& topo = sc_.topology();
  std::vector<Row> rows;
  static const std::array<std::uint8_t, 16> kSchemaVersion{0x6c, 0x62, 0x73, 0x69, 0x6d, 0x53, 0x40, 0x00,
                                                           0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
  auto tokens = [&](NodeId n) {
    std::vector<std::string> t;
    for (Token tok : topo.nodes[n].tokens) t.push_back(std::to_string(tok));
    return t;
  };
  auto text = [](std::string_view s) -> Cell { return text_value(s); };
  if (ks == "system" && name == "local") {
    rows.push_back({text("local"), text("COMPLETED"), inet_value(address(self)), text(sc_.name.empty() ? "lbsim" : sc_.name),
                    text("3.4.5"), text(topo.dcs[topo.node_dc[self]]), uuid_value(host_ids_[self]),
                    inet_value(address(self)), text("4"), text("org.apache.cassandra.dht.Murmur3Partitioner"),
                    text(topo.nodes[self].rack), text(release_), inet_value(address(self)), uuid_value(kSchemaVersion),
                    text_set_value(tokens(self))});
  } else if (ks == "system" && name == "peers") {
    for (NodeId n = 0; n < topo.size(); ++n) {
      if (n == self || !member_[n]) continue;
      rows.push_back({inet_value(address(n)), text(topo.dcs[topo.node_dc[n]]), uuid_value(host_ids_[n]),
                      inet_value(address(n)), text(topo.nodes[n].rack), text(release_), inet_value(address(n)),
                      uuid_value(kSchemaVersion), text_set_value(tokens(n))});
    }
  } else if (ks == "system_schema" && name == "keyspaces") {
    const Replication& r = sc_.cluster.replication;
    std::vector<std::pair<std::string, std::string>> repl{{"class", replication_class(r)}};
    if (r.kind == StrategyKind::Simple) repl.emplace_back("replication_factor", std::to_string(r.simple_rf));
    else
      for (const auto& [dc, rf] : r.dc_rf) repl.emplace_back(dc, std::to_string(rf));
    rows.push_back({text(keyspace_), bool_value(true), text_map_value(repl)});
  } else if (ks == "system_schema" && name == "tables") {
    for (const auto& [tname, t] : tables_) {
      std::array<std::uint8_t, 16> id{0x6c, 0x62, 0x73, 0x69, 0x6d, 0x54, 0x40, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0};
      id[15] = static_cast<std::uint8_t>(std::distance(tables_.begin(), tables_.find(tname)) + 1);
      rows.push_back({text(keyspace_), text(tname), bigint_value(0x3F847AE147AE147B) /* 0.01 */,
                      text_map_value({{"keys", "ALL"}, {"rows_per_partition", "NONE"}}), text(""),
                      text_map_value({{"class", "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"}}),
                      text_map_value({}), int_value(0), text_set_value({"compound"}), int_value(864000), uuid_value(id),
                      text("99PERCENTILE")});
    }
  } else if (ks == "system_schema" && name == "columns") {
    for (const auto& [tname, t] : tables_)
      for (const Column& c : t.columns) {
        const char* kind = c.kind == Column::PartitionKey ? "partition_key" : c.kind == Column::Clustering ? "clustering" : "regular";
        rows.push_back({text(keyspace_), text(tname), text(c.name), text(c.kind == Column::Clustering ? "asc" : "none"),
                        text_value(c.name), text(kind), int_value(c.position), text(type_name(c.type))});
      }
  }
  return rows;
}

std::vector<std::pair<std::string, Type>> Catalog::projection(const Statement& st, const Table& t) const {
  std::vector<std::pair<std::string, Type>> out;
  if (st.star) {
    for (const Column& c : t.columns) out.emplace_back(c.name, c.type);
    return out;
  }
  for (const std::string& name : st.columns) {
    if (name.ends_with("()")) {  // count(*) and friends: a bigint
      out.emplace_back(name.substr(0, name.size() - 2), Type::of(kBigint));
      continue;
    }
    const Column* c = t.find(name);
    if (!c) throw CqlError{kInvalid, "Undefined column name " + name + " in table " + t.keyspace + "." + t.name};
    out.emplace_back(c->name, c->type);
  }
  return out;
}

std::vector<std::pair<std::string, Type>> Catalog::bind_types(const Statement& st, const Table& t) const {
  std::vector<std::pair<std::string, Type>> out;
  for (const std::string& col : st.marker_columns) {
    if (col == "[limit]") {
      out.emplace_back("[limit]", Type::of(kInt));
      continue;
    }
    if (col == "[using]") {
      out.emplace_back("[timestamp]", Type::of(kBigint));
      continue;
    }
    const Column* c = t.find(col);
    if (!c) throw CqlError{kInvalid, "Undefined column name " + col + " in table " + t.keyspace + "." + t.name};
    out.emplace_back(c->name, c->type);
  }
  return out;
}

RowSet Catalog::select_system(const Statement& st, NodeId self, const std::vector<Cell>& values) const {
  const Table* t = system_table(st.keyspace, st.table);
  if (!t) throw CqlError{kInvalid, "unconfigured table " + st.table};
  RowSet out;
  out.keyspace = t->keyspace;
  out.table = t->name;
  out.columns = projection(st, *t);
  // The WHERE's equalities, each as the cell bytes it must equal.
  std::vector<std::pair<std::size_t, Bytes>> filters;
  for (const auto& [col, term] : st.where) {
    std::size_t idx = t->columns.size();
    for (std::size_t c = 0; c < t->columns.size(); ++c)
      if (t->columns[c].name == col) idx = c;
    if (idx == t->columns.size()) throw CqlError{kInvalid, "Undefined column name " + col};
    std::optional<Bytes> v;
    if (term.marker >= 0) {
      if (static_cast<std::size_t>(term.marker) >= values.size() || !values[static_cast<std::size_t>(term.marker)])
        throw CqlError{kInvalid, "Invalid null or missing value for column " + col};
      v = *values[static_cast<std::size_t>(term.marker)];
    } else {
      v = literal_value(term, t->columns[idx].type);
      if (!v) throw CqlError{kInvalid, "Invalid literal '" + term.literal + "' for column " + col};
    }
    filters.emplace_back(idx, *v);
  }
  for (Row& row : system_rows(t->keyspace, t->name, self)) {
    bool ok = true;
    for (const auto& [idx, v] : filters) ok = ok && row[idx] && *row[idx] == v;
    if (!ok) continue;
    Row projected;
    for (const auto& [name, type] : out.columns) {
      const Column* c = t->find(name);
      projected.push_back(c ? row[static_cast<std::size_t>(c - t->columns.data())] : Cell{});
    }
    out.rows.push_back(std::move(projected));
  }
  return out;
}

bool Catalog::create_keyspace(const Statement& st) {
  if (st.table != keyspace_)
    throw CqlError{kInvalid, fmt::format("lbsim serve has one keyspace, '{}' (the scenario's keyspace.name); "
                                         "CREATE KEYSPACE {} cannot be honoured",
                                         keyspace_, st.table)};
  // The replication must be the scenario's: the same class and factors.
  const Replication& r = sc_.cluster.replication;
  std::string cls;
  std::vector<std::pair<std::string, int>> given;
  for (const auto& [k, v] : st.replication) {
    if (k == "class") {
      cls = v;
      continue;
    }
    long long n = 0;
    if (!parse_int(v, n)) throw CqlError{kConfigError, "replication factor '" + v + "' is not an integer"};
    given.emplace_back(k, static_cast<int>(n));
  }
  const std::string want = replication_class(r);
  const bool class_ok = cls == want || "org.apache.cassandra.locator." + cls == want;
  bool rf_ok = false;
  if (r.kind == StrategyKind::Simple) {
    rf_ok = given.size() == 1 && given[0].first == "replication_factor" && given[0].second == r.simple_rf;
  } else {
    auto a = given;
    auto b = r.dc_rf;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    rf_ok = a == b;
  }
  if (!class_ok || !rf_ok) {
    std::string have = "{'class': '" + want + "'";
    if (r.kind == StrategyKind::Simple) have += fmt::format(", 'replication_factor': '{}'", r.simple_rf);
    for (const auto& [dc, rf] : r.dc_rf) have += fmt::format(", '{}': '{}'", dc, rf);
    throw CqlError{kConfigError, "lbsim serve cannot honour this replication: the scenario's keyspace " + keyspace_ +
                                     " has replication " + have + "}"};
  }
  return false;  // it exists (the scenario's)
}

bool Catalog::create_table(const Statement& st, const std::string& session_keyspace) {
  const std::string ks = st.keyspace.empty() ? session_keyspace : st.keyspace;
  if (ks != keyspace_)
    throw CqlError{kInvalid, "lbsim serve takes tables in its keyspace '" + keyspace_ + "' only, not in '" + ks + "'"};
  if (st.partition_key.empty()) throw CqlError{kInvalid, "No PRIMARY KEY specifed for table " + st.table};
  std::vector<std::pair<std::string, Type>> cols;
  for (const ColumnSpec& c : st.create_columns) cols.emplace_back(c.name, c.type);
  for (const std::string& k : st.partition_key)
    if (std::none_of(cols.begin(), cols.end(), [&](const auto& c) { return c.first == k; }))
      throw CqlError{kInvalid, "Unknown definition " + k + " referenced in PRIMARY KEY"};
  Table t = make_table(keyspace_, st.table, cols, st.partition_key, st.clustering);
  const auto it = tables_.find(st.table);
  if (it != tables_.end()) {
    if (st.if_not_exists) return false;
    throw CqlError{kAlreadyExists, "Cannot add already existing table \"" + st.table + "\" to keyspace \"" + ks + "\""};
  }
  tables_[st.table] = std::move(t);
  return true;
}

}  // namespace lbsim::cql
