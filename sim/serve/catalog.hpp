// What the drivers discover when they connect to `lbsim serve` (issue 46): the system tables
// (system.local, system.peers, system_schema.*) of the scenario's cluster, and the tables of its
// keyspace with their partition keys. The columns and their types are those the three drivers
// require (docs/serve.md, with the drivers' source lines).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/scenario.hpp"
#include "sim/serve/cql_wire.hpp"
#include "sim/serve/statement.hpp"

namespace lbsim::cql {

struct Column {
  std::string name;
  Type type;
  enum Kind : std::uint8_t { PartitionKey, Clustering, Regular } kind = Regular;
  int position = -1;  // within the partition key or the clustering columns
};

struct Table {
  std::string keyspace, name;
  std::vector<Column> columns;
  std::vector<std::size_t> partition_key;  // indexes into columns, in key order
  const Column* find(const std::string& column) const;
};

using Cell = std::optional<Bytes>;
using Row = std::vector<Cell>;

// A CQL error to send back: its code and message (and no extra fields).
struct CqlError {
  std::int32_t code = kInvalid;
  std::string message;
};

// The rows of a SELECT on a system table: the projected columns and the matching rows.
struct RowSet {
  std::string keyspace, table;
  std::vector<std::pair<std::string, Type>> columns;
  std::vector<Row> rows;
};

// Encodes a RESULT Rows body; `metadata` false writes the No_metadata flag (the client asked to
// skip it), true the Global_tables_spec layout.
Bytes rows_body(const RowSet& r, bool metadata);
// A Prepared result's two metadata blocks (spec 4.2.5.4): bind markers (with pk_indexes) and result.
void write_prepared_metadata(Writer& w, const std::string& ks, const std::string& table,
                             const std::vector<std::pair<std::string, Type>>& binds,
                             const std::vector<std::uint16_t>& pk_indexes,
                             const std::vector<std::pair<std::string, Type>>& result);

// A literal's bytes as a value of type t (nullopt: it does not parse as one).
std::optional<Bytes> literal_value(const Term& t, const Type& type);

class Catalog {
 public:
  // The scenario's cluster: every node that is a member at the start, at address base + k
  // (node k in scenario order), with its DC, rack, tokens and a host id derived from its index.
  Catalog(const Scenario& sc, std::uint32_t base_address);

  const std::string& keyspace() const { return keyspace_; }
  std::uint32_t address(NodeId n) const { return base_ + n; }
  std::optional<NodeId> node_of_address(std::uint32_t addr) const;
  const std::array<std::uint8_t, 16>& host_id(NodeId n) const { return host_ids_[n]; }
  std::string host_id_text(NodeId n) const;
  std::string release_version() const { return release_; }
  // Whether node n is in the ring now (system.peers lists it): a node that joins later becomes one
  // when it is NORMAL, a leaving one stops being one when it has left.
  bool member(NodeId n) const { return member_[n]; }
  // ScyllaDB's shard-aware port that SUPPORTED announces (0: none).
  std::uint16_t shard_aware_port() const { return shard_aware_port_; }
  void set_shard_aware_port(std::uint16_t p) { shard_aware_port_ = p; }
  void set_member(NodeId n, bool m) { member_[n] = m; }

  // A data table of the keyspace (or null).
  const Table* table(const std::string& ks, const std::string& name) const;
  // A system table's definition (or null): system.local, system.peers, system_schema.*.
  const Table* system_table(const std::string& ks, const std::string& name) const;
  bool is_system_keyspace(const std::string& ks) const;

  // SELECT on a system table as node `self` answers it; `values` are the bound markers.
  RowSet select_system(const Statement& st, NodeId self, const std::vector<Cell>& values) const;
  // The result columns of a SELECT on table t (its projection): throws CqlError for a column t lacks.
  std::vector<std::pair<std::string, Type>> projection(const Statement& st, const Table& t) const;
  // The types of a statement's bind markers, by the columns they are bound to.
  std::vector<std::pair<std::string, Type>> bind_types(const Statement& st, const Table& t) const;

  // CREATE KEYSPACE and CREATE TABLE: accepted when they agree with the scenario (the keyspace's
  // name and replication), else a CqlError. Returns false when it already existed (IF NOT EXISTS).
  bool create_keyspace(const Statement& st);
  bool create_table(const Statement& st, const std::string& session_keyspace);

 private:
  void define_system_tables();
  std::vector<Row> system_rows(const std::string& ks, const std::string& name, NodeId self) const;

  const Scenario& sc_;
  std::uint32_t base_;
  std::string keyspace_, release_;
  std::vector<std::array<std::uint8_t, 16>> host_ids_;
  std::vector<bool> member_;
  std::uint16_t shard_aware_port_ = 0;
  std::map<std::string, Table> tables_;         // the keyspace's tables, by name
  std::map<std::string, Table> system_tables_;  // "ks.name"
};

}  // namespace lbsim::cql
