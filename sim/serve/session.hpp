// One CQL connection's protocol state and its answers (issue 46), apart from any socket so that
// tests drive it frame by frame: version negotiation, OPTIONS/STARTUP/REGISTER, the system tables,
// PREPARE/EXECUTE, QUERY and BATCH. Control traffic is answered at once; a request on a data table
// comes back as a DataRequest for the model, whose answer the server sends when the simulated
// operation ends (error_frame for a failure).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/coordination.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/serve/catalog.hpp"

namespace lbsim::cql {

struct Prepared {
  Statement st;
  std::string keyspace;  // resolved at PREPARE time
  bool system = false;
  std::vector<std::pair<std::string, Type>> result;  // the PREPARE reply's result metadata
};

// What one node keeps across its connections: prepared ids (an id can be executed on any
// connection to the node, spec 4.2.5.4) and its counters.
// Prepared ids in byte order. Written out rather than std::less<std::vector>: GCC 12 inlines that
// one into a memcmp whose bound it cannot prove and warns (-Wstringop-overread, a false positive).
struct BytesLess {
  bool operator()(const Bytes& a, const Bytes& b) const {
    const std::size_t n = std::min(a.size(), b.size());
    const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
    return c != 0 ? c < 0 : a.size() < b.size();
  }
};

struct NodeState {
  static constexpr std::size_t kMaxPrepared = 4096;  // prepared statements kept per node
  std::map<Bytes, Prepared, BytesLess> prepared;
};

// A request for the model: the operation, and what its answer needs.
struct DataRequest {
  std::int16_t stream = 0;
  ExternalOp op;
  std::uint16_t cl_code = 0;     // the request's consistency, as sent
  std::uint32_t block_for = 1;   // the CL's replica count for the coordinator (Read/Write_timeout, Unavailable)
  std::string write_type;        // SIMPLE, BATCH, UNLOGGED_BATCH, CAS (Write_timeout)
  // A prepared statement with its partition key bound: its answer may carry the model's routing
  // hint as a tablets-routing-v1 payload (ScyllaDB evaluates check_locality for those only).
  bool hint_eligible = false;
  Bytes success;                 // the RESULT body sent when the operation succeeds
};

struct Outcome {
  std::vector<Bytes> frames;           // to write now, in order
  std::optional<DataRequest> data;     // to hand to the model
  bool close = false;                  // close the connection after writing frames
  std::optional<std::string> created;  // a table created (SCHEMA_CHANGE events to send)
};

// Counters that the serve report sums over connections.
struct SessionCounts {
  std::map<std::string, std::uint64_t> by_opcode;
  std::map<std::string, std::uint64_t> errors;  // errors sent, by CQL error name
  // The errors' messages ("invalid: unconfigured table peers_v2"), for a user to see why; the
  // first kMaxMessages distinct ones are kept, so that a client sending endless bad statements
  // cannot grow the server's memory.
  static constexpr std::size_t kMaxMessages = 64;
  std::map<std::string, std::uint64_t> messages;
  std::uint64_t messages_dropped = 0;
  void count_error(const std::string& name, const std::string& message) {
    ++errors[name];
    std::string key = name + ": " + message.substr(0, 200);
    if (auto it = messages.find(key); it != messages.end()) ++it->second;
    else if (messages.size() < kMaxMessages) messages.emplace(std::move(key), 1);
    else ++messages_dropped;
  }
};

class Session {
 public:
  Session(Catalog& catalog, NodeState& node, NodeId self, const Scenario& sc, SessionCounts& counts,
          std::uint32_t shard = 0);
  // One request frame (its header and body): the answers.
  Outcome handle(const Header& h, const Bytes& body);
  bool wants_topology() const { return topology_; }
  bool wants_status() const { return status_; }
  bool wants_schema() const { return schema_; }
  bool wants_tablet_hints() const { return tablets_routing_; }

  // The ERROR frame for a simulated operation that failed with `error`.
  Bytes error_frame(const DataRequest& r, const ExternalEnd& end, std::uint32_t alive);
  // A successful answer: the RESULT, with the tablets-routing-v1 custom payload (flag 0x04) when
  // the model gives a routing hint, the request is eligible and this connection negotiated it.
  Bytes result_frame(const DataRequest& r, const ExternalEnd& end) const;

 private:
  struct Params {
    std::uint16_t cl = 0;
    std::uint8_t flags = 0;
    std::vector<Cell> values;
  };
  Params read_params(Reader& r);
  Outcome run(std::int16_t stream, const Statement& st, const std::string& ks, const Params& p, bool skip_metadata,
              const std::vector<std::pair<std::string, Type>>* prepared_result);
  Bytes error(std::int16_t stream, std::int32_t code, const std::string& message);
  Bytes unprepared(std::int16_t stream, const Bytes& id);
  Bytes already_exists(std::int16_t stream, const std::string& message, const std::string& ks, const std::string& table);

  Catalog& catalog_;
  NodeState& node_;
  NodeId self_;
  const Scenario& sc_;
  SessionCounts& counts_;
  std::uint32_t shard_;
  RfTable rf_;
  bool started_ = false;
  bool topology_ = false, status_ = false, schema_ = false;
  bool tablets_routing_ = false;  // STARTUP asked for TABLETS_ROUTING_V1
  std::string keyspace_;  // USE
};

// CQL consistency codes (spec section 3) to lbsim's levels; nullopt for an unknown code.
std::optional<ConsistencyLevel> consistency_of(std::uint16_t code);
// An error code's name as the report counts it ("overloaded", "read_timeout", ...).
std::string error_code_name(std::int32_t code);
// A prepared statement's id: 16 bytes of a hash of its keyspace and text (Cassandra's is MD5 of
// the same; any stable 16 bytes serve, since only this server reads them).
Bytes prepared_id(const std::string& keyspace, const std::string& query);
// The routing key of a table's partition key values (one column: its bytes; several: each as
// [short length][bytes][0]), as the drivers pack it (docs/ring.md).
Bytes routing_key(const std::vector<Bytes>& components);

}  // namespace lbsim::cql
