// The Che approximation of an LRU cache's hit rate (issue 37, item 4).
//
// H. Che, Y. Tung, Z. Wang, "Hierarchical Web caching systems: modeling, design and experimental
// results", IEEE JSAC 20(7), 2002: under independent Poisson requests (the independent reference
// model), an LRU cache of capacity C behaves as if every item stayed cached for one
// characteristic time T after its last request. An item of rate lambda_k is then cached with
// probability 1 - exp(-lambda_k T), and T solves
//     sum_k s_k (1 - exp(-lambda_k T)) = C                                     (1)
// (sizes s_k in bytes: the variable-size form, as e.g. Fofack, Nain, Neglia, Towsley, "Performance
// evaluation of hierarchical TTL-based cache networks", Computer Networks 65, 2014). The hit rate
// is the request-weighted mean
//     h = sum_k lambda_k (1 - exp(-lambda_k T)) / sum_k lambda_k.              (2)
// C. Fricker, P. Robert, J. Roberts, "A versatile and accurate approximation for LRU cache
// performance", ITC 24, 2012, show why it is accurate for large populations (T concentrates) and
// measure it within a fraction of a percent on Zipf popularities; tests/che_test.cpp checks it
// against lbsim's exact LRU (sim/cache/lru.hpp) within 2 points on uniform, Zipf(0.99) and
// gaussian keys drawn as the simulator draws them.
//
// Solving (1): the left side f(T) grows strictly from 0 to S = sum of the sizes of the items that
// are requested and fit, so T is unique when S > C. f(T) <= T sum_k s_k lambda_k gives a lower
// bound T0 = C / sum_k s_k lambda_k; doubling brackets the root; Newton steps on u = log T
// (df/du = T sum_k s_k lambda_k exp(-lambda_k T)), kept inside the bracket and falling back to
// bisection, converge in a few dozen O(K) passes for 10^6+ items.
//
// Edge cases:
//   - The whole working set fits (S <= C): nothing is ever evicted, T is infinite and the
//     steady-state hit rate is 1; what remains are cold misses, the first request of each item.
//     che_cold_hit_rate() gives them over a horizon t from an empty cache: the expected number of
//     distinct items requested in t is sum_k (1 - exp(-lambda_k t)), out of t sum_k lambda_k
//     requests.
//   - An item larger than C is never cached by the LRU (LruCache::access) and always misses; it is
//     left out of (1) and counts as a miss in (2).
//   - Items with lambda_k = 0 take no space and no requests.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <span>

#include "sim/workload/key_dist.hpp"

namespace lbsim {

struct CheResult {
  double t = 0;          // characteristic time, in the unit of 1/rate (infinite when everything fits)
  double hit_rate = 0;   // request-weighted, eq. (2)
  double occupancy = 0;  // f(T) in bytes (= C unless everything fits)
  bool fits = false;     // the requested items that fit sum to <= C
  int iterations = 0;    // passes over the items in the root search
};

// Eq. (1)-(2) for one cache over items with rates `rates` (any time unit) and sizes `sizes` in
// bytes (same length). capacity_bytes > 0. Pure; O(K) per iteration, no allocation.
CheResult che_lru(std::span<const double> rates, std::span<const double> sizes, double capacity_bytes);

// The same over key ids 1..count: `popularity(k)` the rate (or probability) of key k,
// `size(k)` its bytes. Evaluates each function once per key (O(count) memory).
CheResult che_lru_keys(std::uint64_t count, const std::function<double(std::uint64_t)>& popularity,
                       const std::function<double(std::uint64_t)>& size, double capacity_bytes);

// The same for a population drawn by lbsim's KeyGenerator (its exact pmf, KeyPmf of
// key_weights.hpp), every key `entry_bytes` bytes.
CheResult che_lru_keyspec(const KeySpec& spec, double entry_bytes, double capacity_bytes);

// The warm-up of a cache emptied at time 0 (a restart), under the same characteristic-time view:
// an item is cached at t once requested within the last min(t, T), so the instantaneous hit rate is
//     h(t) = sum_k lambda_k (1 - exp(-lambda_k min(t, T))) / sum_k lambda_k,
// which reaches eq. (2) at t = T (T = infinity when everything fits: it never stops rising). Items
// larger than the capacity always miss. `che` is che_lru()'s answer for the same items.
double che_warmup_hit_rate(std::span<const double> rates, std::span<const double> sizes, double capacity_bytes,
                           const CheResult& che, double t);

// Cold misses only (a cache larger than the working set), from an empty cache over a horizon of
// `horizon` time units: 1 - sum_k (1 - exp(-lambda_k horizon)) / (horizon sum_k lambda_k).
double che_cold_hit_rate(std::span<const double> rates, double horizon);

}  // namespace lbsim
