// How much of the workload falls in each vnode range: the probability that an operation's key
// token lies in range r, for the key distributions of sim/workload/key_dist.hpp.
//
// Exact for populations up to kExactKeys keys: every key id's probability (the distribution's
// pmf, matching KeyGenerator::next) is added to the range of its token. Beyond that, the first
// kExactKeys ids are exact and the remaining probability mass is spread over ranges by arc length
// (a uniform hash makes that the expectation).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/cluster/ring.hpp"
#include "sim/cluster/shard.hpp"
#include "sim/workload/key_dist.hpp"

namespace lbsim {

inline constexpr std::uint64_t kExactKeys = 20'000'000;

// P(key id == k) for k in [1, spec.count].
class KeyPmf {
 public:
  explicit KeyPmf(const KeySpec& spec);
  double operator()(std::uint64_t k) const;

 private:
  KeySpec spec_;
  double zipf_norm_ = 1;  // H(count, s)
};
// `by_shard`, when given (Scylla's per_shard discipline, sharding.nr_shards > 1), receives the
// weights per range and shard, row-major (range * nr_shards + shard): exact keys count in the
// shard of their token; the spread mass beyond kExactKeys is split evenly over the shards.
std::vector<double> range_weights(const TokenRing& ring, const KeySpec& spec, const Sharding* sharding = nullptr,
                                  std::vector<double>* by_shard = nullptr);

}  // namespace lbsim
