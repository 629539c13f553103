// JSON renderings of ring facts shared by `lbsim ring --json` and `lbsim replicas --json`.
#pragma once
#include <nlohmann/json.hpp>

#include "sim/cluster/ring.hpp"

namespace lbsim::cli {

nlohmann::ordered_json summary_json(const Summary& s);
nlohmann::ordered_json node_ownership_json(const TokenRing& ring, bool full);
nlohmann::ordered_json id_list(const TokenRing& ring, std::span<const NodeId> ids);

}  // namespace lbsim::cli
