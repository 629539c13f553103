// What `lbsim ring`, `lbsim replicas` and `lbsim plan` read: a topology file (the oracle's format)
// or a scenario, told apart by their top-level keys ("nodes" vs "cluster"). A file that is not JSON
// but `lbsim import` could read (nodetool output) fails with the import command to run.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/ring.hpp"
#include "sim/cluster/shard.hpp"
#include "sim/config/topology_file.hpp"

namespace lbsim {

struct RingInput {
  std::string name;  // scenario name, or the file name for a topology file
  std::unique_ptr<TokenRing> ring;
  std::unique_ptr<TokenRing> tablets;  // tablet keyspaces: the initial tablet map in ring form
  std::uint32_t shards = 1;            // shards per node (tablet keyspaces)
  std::optional<Sharding> sharding;
  std::vector<KeyQuery> keys;  // topology files only
  std::vector<Token> tokens;   // topology files only
  std::vector<std::string> warnings;
  bool scenario = false;
};

// `sets` ("PATH=VALUE", as `--set`; see apply_set) patch the document before it is read.
RingInput load_ring_input(const std::string& file, const std::vector<std::string>& sets = {});

}  // namespace lbsim
