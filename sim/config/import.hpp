// `lbsim import`: a real cluster's ring, as its tools print it, turned into a topology file
// (sim/config/topology_file.hpp) that `ring`, `replicas`, `plan` and scenarios
// ("cluster": {"topology_file": ...}) read.
//
// Inputs (formats as Cassandra 3.x/4.x and ScyllaDB print them; the parsers read what they need
// and ignore the rest, so column changes between versions that keep these fields are fine):
// - `nodetool ring`: "Datacenter: NAME" headers, then lines "ADDRESS RACK STATUS STATE LOAD
//   [UNIT] OWNS TOKEN"; the first column is the address, the second the rack, the last the token.
// - `nodetool describering KEYSPACE`: "TokenRange(start_token:S, end_token:E, endpoints:[...],
//   ..., endpoint_details:[EndpointDetails(host:H, datacenter:D, rack:R), ...])" lines; each
//   range's end token belongs to the range's primary owner, the first endpoint.
// - CSV: "address,dc,rack,tokens" with the tokens separated by spaces or ';' (a header line is
//   skipped).
// - `cassandra-rackdc.properties` files (dc=..., rack=...), optional, one per node as
//   ADDRESS=FILE: they override the DC and rack of that node (nodetool ring of some versions
//   prints no rack).
// Hand-written: no library parses nodetool output.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/topology.hpp"
#include "sim/core/json_reader.hpp"

namespace lbsim {

enum class ImportFormat { NodetoolRing, Describering, Csv };

struct ImportedRing {
  std::vector<NodeSpec> nodes;  // in order of first appearance; tokens sorted
  std::vector<std::string> warnings;
};

// Parses `text` (from `source`, named in errors with a line number). ConfigError on lines it
// cannot read, tokens out of range, a token owned twice, or no node at all.
ImportedRing parse_ring_text(const std::string& text, ImportFormat format, const std::string& source);

// Applies a cassandra-rackdc.properties text to `node` ("dc" and "rack" keys; '#' comments).
void apply_rackdc(NodeSpec& node, const std::string& properties, const std::string& source);

// "dc1=3,dc2=3" (NetworkTopologyStrategy) or "3" (SimpleStrategy).
Replication parse_rf_option(const std::string& text);

// The topology file document.
jsonin::Json topology_file_json(const ImportedRing& ring, const Replication& repl, const std::string& generator);

// The format `text` reads as, when it is not a JSON document but `lbsim import` can read it (a
// nodetool ring with its "Datacenter:" or "Address" header, describering output, a ring CSV).
std::optional<ImportFormat> sniff_ring_text(const std::string& text);

// jsonin::load_file, except that a file `lbsim import` could read instead (sniff_ring_text) fails
// with the import command to run: what `lbsim ring ring.txt` on nodetool output needs to hear.
jsonin::Json load_json_or_import_hint(const std::string& file);

}  // namespace lbsim
