// The CQL statements `lbsim serve` understands (issue 46): enough of CQL 3.4 to route what drivers
// and applications send (SELECT, INSERT, UPDATE, DELETE with equality restrictions; USE; CREATE
// KEYSPACE and CREATE TABLE), parsed by hand: no CQL grammar is packaged for C++ in Debian, and the
// server needs only each statement's table, its equality terms and its bind markers.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sim/serve/cql_wire.hpp"

namespace lbsim::cql {

// A statement the server cannot parse: a CQL Syntax_error (0x2000) with this message.
struct SyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An equality term: a bind marker (its index among the statement's markers) or a literal, kept
// as its text ('abc' without quotes, 0xCAFE, 42, true).
struct Term {
  int marker = -1;
  std::string literal;
  bool quoted = false;  // a '...' string literal
};

struct ColumnSpec {  // CREATE TABLE's column
  std::string name;
  Type type;
};

struct Statement {
  enum Kind : std::uint8_t { Select, Insert, Update, Delete, Use, CreateKeyspace, CreateTable, Batch } kind = Select;
  std::string keyspace;  // "" when the statement names none (the connection's keyspace applies)
  std::string table;     // the table, or USE's / CREATE KEYSPACE's keyspace
  bool star = false;     // SELECT *
  std::vector<std::string> columns;  // SELECT's projection, INSERT's columns
  // Column = term: SELECT/UPDATE/DELETE's WHERE (and UPDATE's SET, which routes nothing), INSERT's
  // VALUES in column order.
  std::vector<std::pair<std::string, Term>> where;
  std::vector<std::pair<std::string, Term>> assignments;
  int markers = 0;                          // bind markers, in order
  std::vector<std::string> marker_columns;  // the column each marker is compared with or assigned to
  bool conditional = false;  // IF NOT EXISTS / IF ...: a lightweight transaction
  bool if_not_exists = false;  // CREATE ... IF NOT EXISTS
  // CREATE KEYSPACE: the replication map, as given ('class' first if present)
  std::vector<std::pair<std::string, std::string>> replication;
  // CREATE TABLE: the columns, the partition key and the clustering columns, by name
  std::vector<ColumnSpec> create_columns;
  std::vector<std::string> partition_key, clustering;
};

// Parses one statement (a trailing ';' allowed). Throws SyntaxError.
Statement parse_statement(const std::string& cql);

// Lower-cases an unquoted identifier (CQL's rule); a "quoted" one keeps its case.
std::string fold_identifier(const std::string& id);

}  // namespace lbsim::cql
