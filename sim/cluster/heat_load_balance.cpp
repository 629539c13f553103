// ScyllaDB's heat-weighted load balancing; sources and contracts in heat_load_balance.hpp.
#include "sim/cluster/heat_load_balance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace lbsim::hwlb {

std::vector<double> miss_equalizing_shares(std::span<const double> hit_rates) {
  std::vector<double> p(hit_rates.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    p[i] = 1.0 / (1.0 - hit_rates[i]);  // reciprocal miss ratio
    sum += p[i];
  }
  for (double& x : p) x /= sum;
  return p;
}

void clip_shares(std::vector<double>& p, double limit) {
  // Each pass caps what reaches the limit and scales the rest by the factor the previous pass
  // found; a scaled share can cross the limit in turn, hence the loop (as in clip_probabilities).
  double scale = 1.0;
  for (;;) {
    double excess = 0.0;
    double rest = 0.0;
    for (double& x : p) {
      if (x >= limit) {
        excess += x - limit;
        x = limit;
      } else {
        x *= scale;
        rest += x;
      }
    }
    if (excess == 0.0) return;
    scale = (rest + excess) / rest;
  }
}

std::vector<double> coordinator_shares(std::span<const double> p, std::size_t me, unsigned k) {
  const std::size_t n = p.size();
  const double nd = static_cast<double>(n);
  const double keep_max = 1.0 / static_cast<double>(k);
  std::vector<double> pp(n, 0.0);
  pp[me] = std::min(nd * p[me], keep_max);

  // need[i] > 0 (or == 0 exactly at the boundary): a mixed replica, which keeps 1/k of its own
  // reads, still needs need[i] from the others and has `spare` = 1 - 1/k of its reads to give.
  std::vector<double> need(n, 0.0);
  std::size_t mixed = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double d = nd * p[j] - keep_max;
    if (d >= 0.0) {
      ++mixed;
      need[j] = d;
    }
  }
  const double spare = 1.0 - keep_max;

  // What `me` will have left to give once the mixed replicas have traded.
  double mine;
  if (need[me] == 0.0)
    mine = 1.0 - nd * p[me];  // a surplus replica
  else
    mine = need[me] <= spare ? spare - need[me] : 0.0;

  if (need[me] != 0.0) {
    // Stage 1: the mixed replicas trade. Walk the needs at or below me's (and below `spare`) in
    // increasing order; each step raises the filled level to the next need, and every mixed
    // replica still below its need receives an equal part of the rise from the others.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i)
      if (need[i] != 0.0 && need[i] <= need[me] && need[i] < spare) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return need[a] < need[b]; });
    double level = 0.0;
    std::size_t remaining = mixed;
    for (std::size_t j : order) {
      const double rise = need[j] - level;
      level = need[j];
      if (--remaining == 0) break;
      for (std::size_t i = 0; i < n; ++i)
        if (i != me && need[i] >= need[j]) pp[i] += rise / static_cast<double>(remaining);
      if (j == me) break;  // later steps change only what the others send
    }

    if (need[me] > spare) {
      // me ends as a pure taker: whatever of its spare is left above the last filled level goes
      // to the other mixed replicas above that level.
      const double last = order.empty() ? 0.0 : need[order.back()];
      const double left = spare - last;
      if (left != 0.0) {
        if (remaining > 1) {
          for (std::size_t i = 0; i < n; ++i)
            if (i != me && need[i] > last) pp[i] += left / static_cast<double>(remaining - 1);
        } else {
          // One mixed replica (me) is left with spare it cannot give itself: the source's
          // "CASE3", where me hands it back to all the others.
          for (std::size_t i = 0; i < n; ++i)
            if (i != me) pp[i] += left / static_cast<double>(mixed - 1);
        }
      }
    } else {
      // The mirror image: exactly one other replica ends as a pure taker, so the others gave each
      // other too much; me sends its part of the leftover to that replica instead.
      std::size_t takers = 0;
      std::size_t taker = 0;
      double last = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        if (need[i] > spare) {
          ++takers;
          taker = i;
        } else {
          last = std::max(last, need[i]);
        }
      }
      if (takers == 1) {
        const double left = spare - last;
        const double md = static_cast<double>(mixed);
        pp[taker] += left / (md - 1.0);
        for (std::size_t i = 0; i < n; ++i)
          if (need[i] > 0.0 && i != taker && i != me) pp[i] -= left / (md - 1.0) / (md - 2.0);
      }
    }
  }

  if (mine != 0.0) {
    // Stage 2: me's surplus goes to the needs left after stage 1 (a mixed replica's need less its
    // spare), in proportion to them.
    double total = 0.0;
    for (double& d : need) {
      if (d > 0.0) {
        d = d > spare ? d - spare : 0.0;
        total += d;
      }
    }
    if (total > 0.0)
      for (std::size_t j = 0; j < n; ++j)
        if (need[j] > 0.0) pp[j] += need[j] / total * mine;
  }
  return pp;
}

void systematic_sample(std::span<const double> pp, unsigned k, Rng& rng,
                       std::vector<std::uint32_t>& out) {
  out.clear();
  const double step = 1.0 / static_cast<double>(k);
  const double u = rng.uniform01() * step;
  const std::size_t last = pp.size() - 1;
  for (unsigned t = 0; t < k; ++t) {
    double x = u + step * static_cast<double>(t);
    std::size_t i = 0;
    for (; i < last; ++i) {
      x -= pp[i];
      if (x < 0.0) break;
    }
    out.push_back(static_cast<std::uint32_t>(i));
  }
}

void choose(std::span<const double> hit_rates, std::size_t me, unsigned k, bool extra, Rng& rng,
            std::vector<std::uint32_t>& out) {
  std::vector<double> p = miss_equalizing_shares(hit_rates);
  clip_shares(p, 1.0 / static_cast<double>(k));
  if (me < hit_rates.size()) p = coordinator_shares(p, me, k);
  systematic_sample(p, k, rng, out);
  if (!extra) return;
  // The spare: uniform among the replicas not chosen (combination_generator::get).
  const std::size_t n = hit_rates.size();
  std::vector<bool> used(n, false);
  for (std::uint32_t i : out) used[i] = true;
  std::uint64_t m = rng.below(n - k);
  for (std::size_t i = 0; i < n; ++i) {
    if (used[i]) continue;
    if (m == 0) {
      out.push_back(static_cast<std::uint32_t>(i));
      break;
    }
    --m;
  }
}

double effective_rate(PeerRate& peer, SimTime now, double cap) {
  if (peer.rate < 0.0) return peer.rate;
  if (now - peer.updated > kStaleAfter) {
    peer.updated = now;
    return cap;
  }
  return std::min(peer.rate, cap);
}

bool rebalances(std::span<const double> effective_rates) {
  if (effective_rates.empty()) return false;
  double lo = 1.0;
  double hi = 0.0;
  for (double h : effective_rates) {
    if (h < 0.0) return false;
    lo = std::min(lo, h);
    hi = std::max(hi, h);
  }
  return hi - lo > kDeadBand;
}

double hit_rate(double reads_without_misses, double reads_with_misses) {
  if (reads_without_misses == 0.0) return 0.0;
  return reads_without_misses / (reads_without_misses + reads_with_misses);
}

SimTime next_recompute(double max_change) {
  return max_change > kRecomputeFastAbove ? kRecomputeFast : kRecomputeSlow;
}

bool publishes(std::uint64_t published_before, double max_change, SimTime now,
               SimTime last_published) {
  return published_before == 0 || max_change > kPublishBigChange ||
         (max_change > kPublishSmallChange && now - last_published > kPublishMinInterval);
}

}  // namespace lbsim::hwlb
