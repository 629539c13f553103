// Sweep grids: `--set PATH=V1,V2,...` options expanded into their cartesian product, in a fixed
// order (the first parameter varies slowest), and deterministic slices of it for `--shard I/N`.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lbsim {

struct GridAxis {
  std::string path;                 // as given, e.g. "client.threads"
  std::vector<std::string> values;  // raw values (JSON text or bare strings), e.g. "8"
};

struct GridPoint {
  std::size_t index = 0;
  std::vector<std::string> sets;  // "PATH=VALUE" for apply_set
  nlohmann::ordered_json values;  // {"client.threads": 8, ...} (JSON values when they parse)
  std::string id;                 // "p003" (stable folder name)
};

// Parses "PATH=V1,V2,..."; commas inside [], {} or quotes do not split. ConfigError when malformed.
GridAxis parse_axis(const std::string& option);
std::vector<GridPoint> expand_grid(const std::vector<GridAxis>& axes);

struct Shard {
  std::size_t index = 1, count = 1;  // 1-based I of N
};
// "I/N" with 1 <= I <= N.
Shard parse_shard(const std::string& text);
// Grid points that belong to shard I of N: those with index % N == I - 1.
bool in_shard(const GridPoint& p, const Shard& s);

}  // namespace lbsim
