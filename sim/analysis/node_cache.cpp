#include "sim/analysis/node_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/analysis/key_weights.hpp"
#include "sim/cluster/routing_key.hpp"

namespace lbsim {

namespace {

// f(T) of eq. (4) and df/d(log T).
struct InvalEval {
  double f = 0, df_dlog = 0;
};
InvalEval evaluate_inval(const std::vector<CacheItem>& items, double s, double t) {
  InvalEval e;
  for (const CacheItem& it : items) {
    const double b = it.rate + it.wrate;
    const double a = it.mult * s * it.rate / b;
    const double x = b * t;
    e.f += a * -std::expm1(-x);
    e.df_dlog += a * x * std::exp(-x);
  }
  return e;
}

}  // namespace

CacheCheResult che_with_invalidation(const std::vector<CacheItem>& all, double s, double cap) {
  CacheCheResult r;
  std::vector<CacheItem> items;
  items.reserve(all.size());
  double full = 0, rate_sum = 0;
  for (const CacheItem& it : all) {
    if (!(it.rate > 0) || !(it.mult > 0)) continue;
    r.reads += it.mult * it.rate;
    items.push_back(it);
    full += it.mult * s * it.rate / (it.rate + it.wrate);
    rate_sum += it.mult * s * it.rate;  // sum of a_k b_k: the slope of f at T = 0
  }
  r.items = items.size();
  if (items.empty()) return r;
  if (s > cap) return r;  // no entry fits: every read misses (LruCache::access)
  auto hits_at = [&](double t) {
    double h = 0, occ = 0;
    for (const CacheItem& it : items) {
      const double b = it.rate + it.wrate;
      const double p = std::isinf(t) ? it.rate / b : it.rate / b * -std::expm1(-b * t);
      h += it.mult * it.rate * p;
      occ += it.mult * s * p;
    }
    r.hits = h;
    r.occupancy = occ;
  };
  if (full <= cap) {  // f(infinity) <= C: nothing is evicted; only writes end entries
    r.fits = true;
    r.t = std::numeric_limits<double>::infinity();
    hits_at(r.t);
    return r;
  }
  // f(T) <= T sum a_k b_k gives T0 = C / that <= T; double up to a bracket, then Newton steps on
  // log T kept inside it (bisection otherwise), as che.cpp does.
  double lo = std::log(cap / rate_sum);
  double hi = lo + 1.0;
  while (evaluate_inval(items, s, std::exp(hi)).f <= cap) hi += hi - lo;
  double u = 0.5 * (lo + hi);
  for (int i = 0; i < 200; ++i) {
    const InvalEval e = evaluate_inval(items, s, std::exp(u));
    const double g = e.f - cap;
    if (std::abs(g) <= 1e-12 * cap || hi - lo < 1e-14) break;
    if (g < 0) lo = u; else hi = u;
    double next = e.df_dlog > 0 ? u - g / e.df_dlog : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    u = next;
  }
  r.t = std::exp(u);
  hits_at(r.t);
  return r;
}

CacheModel analyze_cache(const CacheModelInput& in) {
  CacheModel out;
  const TokenRing& ring = *in.ring;
  const std::size_t nodes = ring.topology().size();
  const std::uint32_t shards = std::max<std::uint32_t>(1, in.shards);
  const std::vector<double>& share = *in.read_share;
  const std::size_t stride = in.stride;
  auto down = [&](NodeId n) { return n < in.down.size() && in.down[n]; };
  std::vector<std::vector<CacheItem>> caches(nodes * shards);
  const std::uint64_t exact = std::min(in.keys.count, in.exact_keys);
  out.method = exact < in.keys.count ? "grouped" : "exact";
  const KeyPmf pmf(in.keys);
  // Each cache gets its share of the keys' items; a rough reservation avoids regrowth.
  for (auto& c : caches) c.reserve(static_cast<std::size_t>(exact * stride / (nodes * shards) + 16));
  const double wf = in.invalidate ? in.write_fraction : 0.0;
  double head_mass = 0;
  for (std::uint64_t k = 1; k <= exact; ++k) {
    const double p = pmf(k);
    head_mass += p;
    if (!(p > 0)) continue;
    const Token tok = token_of_key_id(static_cast<std::int64_t>(k));
    const std::size_t r = ring.range_index(tok);
    const auto replicas = ring.replicas_at(r, ReplicaOrder::Server);
    const std::uint32_t token_shard = shards > 1 && !ring.has_tablets() ? shard_of(tok, in.sharding) : 0;
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      const double q = share[r * stride + i];
      if (!(q > 0)) continue;
      const NodeId n = replicas[i];
      const std::uint32_t sh = shards > 1 ? (ring.has_tablets() ? ring.replica_shard(r, i) % shards : token_shard) : 0;
      caches[n * shards + sh].push_back({in.read_fraction * p * q, down(n) ? 0.0 : wf * p, 1.0});
    }
  }
  if (exact < in.keys.count && head_mass < 1.0) {
    // Per cache, the ranges' arc fractions by read share (a class per distinct share); keys are
    // spread evenly over the shards (key_weights.cpp does the same for the load model).
    const long double two64 = 18446744073709551616.0L;
    std::vector<std::vector<std::pair<double, double>>> classes(nodes * shards);  // (share, arc fraction)
    for (std::size_t r = 0; r < ring.size(); ++r) {
      const double arc = static_cast<double>(static_cast<long double>(ring.arc(r)) / two64);
      const auto replicas = ring.replicas_at(r, ReplicaOrder::Server);
      for (std::size_t i = 0; i < replicas.size(); ++i) {
        const double q = share[r * stride + i];
        if (!(q > 0)) continue;
        for (std::uint32_t sh = 0; sh < shards; ++sh) {
          if (ring.has_tablets() && shards > 1 && ring.replica_shard(r, i) % shards != sh) continue;
          const double frac = ring.has_tablets() || shards == 1 ? arc : arc / shards;
          classes[replicas[i] * shards + sh].push_back({q, frac});
        }
      }
    }
    for (auto& cl : classes) {  // merge equal shares (sorted; a relative 1e-9 counts as equal)
      std::sort(cl.begin(), cl.end());
      std::vector<std::pair<double, double>> merged;
      for (const auto& [q, f] : cl) {
        if (!merged.empty() && q - merged.back().first <= 1e-9 * q) merged.back().second += f;
        else merged.push_back({q, f});
      }
      cl.swap(merged);
    }
    // Blocks of consecutive ids, width growing by 1 % (capped): each block's mass at its middle
    // id's pmf x width, renormalised to the tail's mass.
    const std::uint64_t tail = in.keys.count - exact;
    const double cap_width = std::max(1.0, static_cast<double>(tail) / 4096.0);
    struct Block {
      double keys, mass;
    };
    std::vector<Block> blocks;
    double width = 1, mass = 0;
    for (std::uint64_t first = exact + 1; first <= in.keys.count;) {
      width = std::min(cap_width, std::max(width, 0.01 * static_cast<double>(first)));
      const std::uint64_t w = std::min<std::uint64_t>(static_cast<std::uint64_t>(width), in.keys.count - first + 1);
      const double m = pmf(first + w / 2) * static_cast<double>(w);
      blocks.push_back({static_cast<double>(w), m});
      mass += m;
      first += w;
    }
    const double scale = mass > 0 ? (1.0 - head_mass) / mass : 0.0;
    for (std::size_t c = 0; c < caches.size(); ++c) {
      const NodeId n = static_cast<NodeId>(c / shards);
      for (const Block& b : blocks) {
        const double p = b.mass * scale / b.keys;  // one key's probability
        if (!(p > 0)) continue;
        for (const auto& [q, f] : classes[c])
          caches[c].push_back({in.read_fraction * p * q, down(n) ? 0.0 : wf * p, b.keys * f});
      }
    }
  }
  out.modelled = true;
  out.nodes.assign(nodes, {});
  const double cap = in.capacity_bytes / shards;
  double reads = 0, hits = 0;
  for (NodeId n = 0; n < nodes; ++n) {
    NodeCacheModel& nm = out.nodes[n];
    double h = 0;
    nm.t_min = std::numeric_limits<double>::infinity();
    nm.t_max = 0;
    for (std::uint32_t sh = 0; sh < shards; ++sh) {
      auto& items = caches[n * shards + sh];
      CacheCheResult c = che_with_invalidation(items, in.entry_bytes, cap);
      std::vector<CacheItem>().swap(items);
      nm.reads_per_op += c.reads;
      h += c.hits;
      if (c.reads > 0) {
        nm.t_min = std::min(nm.t_min, c.t);
        nm.t_max = std::max(nm.t_max, c.t);
      }
      nm.shards.push_back(c);
    }
    if (nm.t_max == 0) nm.t_min = 0;
    nm.hit_rate = nm.reads_per_op > 0 ? h / nm.reads_per_op : 0.0;
    nm.misses_per_op = nm.reads_per_op - h;
    reads += nm.reads_per_op;
    hits += h;
    out.misses_per_op += nm.misses_per_op;
  }
  out.hit_rate = reads > 0 ? hits / reads : 0.0;
  double worst = 0;
  for (NodeId n = 0; n < nodes; ++n) {
    if (out.nodes[n].misses_per_op > worst) {
      worst = out.nodes[n].misses_per_op;
      out.disk_bottleneck = n;
    }
  }
  const double mean = out.misses_per_op / static_cast<double>(nodes);
  out.miss_imbalance = mean > 0 ? worst / mean : 0.0;
  if (in.disk_read_s > 0 && worst > 0)
    out.disk_saturation_ops_s = 1.0 / (worst * in.sstables_per_read * in.disk_read_s);
  return out;
}

}  // namespace lbsim
