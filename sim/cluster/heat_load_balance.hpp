// ScyllaDB's heat-weighted load balancing (HWLB, `cache_hit_rate_read_balancing`, on by default):
// how a coordinator picks the CL replicas of a read from the replicas' cache hit rates, as a pure
// component. Not yet used by the engine (issue 37).
//
// Sources (scylladb/scylladb at a55b434a2b6ad56bec7bf541f629214399daf065, re-expressed here, no
// code copied):
//   db/heat_load_balance.{hh,cc}: miss_equalizing_probablities, clip_probabilities, redistribute,
//     ssample and combination_generator (the maths below);
//   db/consistency_level.cc, filter_for_query: the caller (the 0.95 cap, the 1 s staleness rule,
//     the 0.01 dead band, "old" nodes without a rate, the extra replica for speculation);
//   service/misc_services.cc, cache_hitrate_calculator::recalculate_hitrates: how a node computes
//     and publishes its rate (the recompute interval and the gossip rule);
//   test/boost/hwlb_test.cc (named so in scylladb#9285), function test_hit_rates: the acceptance
//     criteria that tests/heat_load_balance_test.cpp applies.
//
// The goal (heat_load_balance.hh's header comment): send each replica a share of the reads such
// that every replica takes the same number of cache misses per second, while the coordinator, when
// it is a replica, serves as many of its own reads locally as that allows; the coordinator is
// assumed to have been picked uniformly among the N replicas by the client.
//
// Arithmetic is in double where ScyllaDB uses float; the shares agree to float precision. One
// deliberate difference: where the source reads the last element of an empty list (a coordinator
// whose deficit exceeds every other mixed node's surplus; possible only at CL 1, where the amount
// it then hands out is zero anyway), this component takes the filled level to be 0.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"

namespace lbsim::hwlb {

// ---- Constants, each with its source ----------------------------------------------------------

// db/consistency_level.cc (filter_for_query, get_hit_rate): hit rates are capped at 0.95 so that
// a cold node still gets 1/20th of a hot node's reads and near-1 rates do not skew the split. The
// cap was 0.999 before scylladb#8815's fix (the unit test's test_a case says so; the same
// function with 0.999 is in older consistency_level.cc versions), with the same 0.01 dead band:
// that pair is the "max-min" behaviour #8815 reports (after one of three nodes restarted, the
// dead band no longer held and the two hot nodes split by their tiny miss ratios, "node B got
// twice the load as node C"). Which release first shipped 0.95 is not established here.
inline constexpr double kMaxHitRate = 0.95;
inline constexpr double kMaxHitRateBefore8815 = 0.999;
// filter_for_query: HWLB is skipped (proximity order kept) unless max - min > 0.01.
inline constexpr double kDeadBand = 0.01;
// get_hit_rate: a peer rate not updated for more than 1000 ms counts as the cap, once; reading it
// then stamps it as updated (set_hit_rate with the same rate), so the next second sees it again.
inline constexpr SimTime kStaleAfter = 1000 * kMs;
// cache_hitrate_calculator: recompute every 500 ms after a change of more than 0.01 in any table,
// else (and after a failed round) every 2000 ms.
inline constexpr SimTime kRecomputeFast = 500 * kMs;
inline constexpr SimTime kRecomputeSlow = 2000 * kMs;
inline constexpr double kRecomputeFastAbove = 0.01;
// Gossip (CACHE_HITRATES) publication: the first time; when the change exceeds 0.1; or when it
// exceeds 0.01 and the last publication is more than 5000 ms old. Peers also learn a rate from the
// cache_temperature carried by read responses (the comment beside that rule), which this rule
// does not cover.
inline constexpr double kPublishBigChange = 0.1;
inline constexpr double kPublishSmallChange = 0.01;
inline constexpr SimTime kPublishMinInterval = 5000 * kMs;

// ---- The maths of db/heat_load_balance.cc -------------------------------------------------------

// Desired share of the reads per replica, p_i = R_i / sum R with R_i = 1 / (1 - h_i): equal misses
// per second everywhere. Every h_i must be < 1 (the caller caps them).
std::vector<double> miss_equalizing_shares(std::span<const double> hit_rates);

// Caps every share at `limit` (1/CL: a replica cannot be in a combination twice), scaling the
// uncapped ones up so the sum stays 1, repeated until nothing exceeds the limit.
void clip_shares(std::vector<double>& p, double limit);

// The shares coordinator `me` (an index into p) uses for its own reads, so that when every replica
// coordinates 1/N of the reads the replicas receive the shares p while each keeps for itself
// min(N p_me, 1/k). Replicas with N p < 1/k ("surplus") keep N p and give away the rest; replicas
// with N p >= 1/k ("mixed") keep 1/k, give away 1 - 1/k and need N p - 1/k from the others. The
// mixed replicas first trade among themselves in increasing order of need (each level of need is
// shared out equally among those that still need more), with the source's corrections for a single
// mixed replica left over; then the surplus is spread over the remaining needs in proportion to
// them. The result sums to 1 and no entry exceeds 1/k (for the vectors the unit test accepts; see
// scylladb#9285 for the known exceptions). p must already be clipped to 1/k.
std::vector<double> coordinator_shares(std::span<const double> p, std::size_t me, unsigned k);

// Systematic sampling (ssample): lays the shares end to end on [0, 1), draws one u in [0, 1/k) and
// takes the replica under u, u + 1/k, ..., u + (k-1)/k. Each replica is included with probability
// k pp_i, and the k indices are distinct when no share exceeds 1/k. Indices come out in increasing
// order, so a coordinator at index 0 that includes itself is first (it reads the data, the others
// send digests). One draw from `rng`.
void systematic_sample(std::span<const double> pp, unsigned k, Rng& rng,
                       std::vector<std::uint32_t>& out);

// miss_equalizing_combination: the k replicas (indices into hit_rates) that coordinator `me` asks.
// `me` >= hit_rates.size() means the coordinator is not a replica: the clipped shares are used as
// they are. With `extra`, one more index follows, uniform among the replicas not chosen (the
// speculative-retry spare; k + 1 <= N). Hit rates are used as given: the cap belongs to the
// caller (effective_rate), as in ScyllaDB, whose unit test feeds 0.999 straight in.
void choose(std::span<const double> hit_rates, std::size_t me, unsigned k, bool extra, Rng& rng,
            std::vector<std::uint32_t>& out);

// Cost: choose() allocates its share vectors on every call, as the source does. A caller on a hot
// path can keep coordinator_shares per (coordinator, replica set) until a rate changes (rates move
// every 0.5-2 s) and call systematic_sample alone, which does not allocate once `out` has room.

// ---- The caller's rules (db/consistency_level.cc) -----------------------------------------------

// What a coordinator knows of one replica's hit rate. rate < 0: the replica publishes none (a node
// of a release without HWLB), which switches HWLB off for the read.
struct PeerRate {
  double rate = 0.0;
  SimTime updated = 0;
};

// The rate filter_for_query uses for `peer` at `now`: negative stays negative; stale (older than
// kStaleAfter) reads as `cap` and restamps the peer as updated now; otherwise min(rate, cap).
double effective_rate(PeerRate& peer, SimTime now, double cap = kMaxHitRate);

// True when HWLB reorders the replicas for these effective rates: no negative rate, and
// max - min > kDeadBand. Otherwise the coordinator keeps the proximity order.
bool rebalances(std::span<const double> effective_rates);

// ---- The rate's producer (service/misc_services.cc) ---------------------------------------------

// A node's hit rate from its reads-with-no-misses and reads-with-misses rates: 0 when the first is
// 0, else nm / (nm + m).
double hit_rate(double reads_without_misses, double reads_with_misses);

// The delay before the next recomputation, from the largest change of any table's rate.
SimTime next_recompute(double max_change);

// Whether a recomputation publishes the rates in gossip.
bool publishes(std::uint64_t published_before, double max_change, SimTime now,
               SimTime last_published);

}  // namespace lbsim::hwlb
