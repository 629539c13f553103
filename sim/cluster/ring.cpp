#include "sim/cluster/ring.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include <boost/sort/insert_sort/insert_sort.hpp>
#include <boost/sort/pdqsort/pdqsort.hpp>
#include <fmt/format.h>

#include "sim/core/check.hpp"

namespace lbsim {

namespace {
constexpr long double kTwo64 = 18446744073709551616.0L;
// (token, node) as one unsigned number ordered as the pair.
u128 ring_order_key(Token t, NodeId n) { return (static_cast<u128>(token_order(t)) << 32) | n; }
}  // namespace

Summary summarize(std::span<const double> values) {
  Summary s;
  s.count = values.size();
  if (values.empty()) return s;
  double sum = 0;
  s.min = values[0];
  s.max = values[0];
  for (double v : values) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / static_cast<double>(values.size());
  double var = 0;
  for (double v : values) var += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(var / static_cast<double>(values.size()));
  s.max_over_mean = s.mean > 0 ? s.max / s.mean : 0;
  return s;
}

TokenRing::TokenRing(Topology topology, Replication replication)
    : topo_(std::move(topology)), repl_(std::move(replication)) {
  std::vector<std::pair<Token, NodeId>> ring;
  for (NodeId n = 0; n < topo_.nodes.size(); ++n)
    for (Token t : topo_.nodes[n].tokens) ring.emplace_back(t, n);
  // std::pair's order as one unsigned 128-bit key (the token's bits flipped at the sign, so that
  // unsigned order is the signed one): branch-free pattern-defeating quicksort (Boost.Sort) sorts
  // random tokens about twice as fast as std::sort (768,000 tokens: 35 vs 77 ms, issue 14).
  boost::sort::pdqsort_branchless(ring.begin(), ring.end(), [](const auto& a, const auto& b) {
    return ring_order_key(a.first, a.second) < ring_order_key(b.first, b.second);
  });
  tokens_.reserve(ring.size());
  owners_.reserve(ring.size());
  for (const auto& [t, n] : ring) {
    tokens_.push_back(t);
    owners_.push_back(n);
  }

  build_buckets();
  if (repl_.kind == StrategyKind::Simple) place_simple();
  else place_nts();
  compute_ownership();
}

TokenRing TokenRing::from_tablets(Topology topology, Replication replication, const TabletMap& map) {
  TokenRing r;
  r.topo_ = std::move(topology);
  r.repl_ = std::move(replication);
  const std::size_t n = map.count();
  r.stride_ = map.replicas_per_tablet();
  r.tokens_.reserve(n);
  r.owners_.reserve(n);
  r.server_.reserve(n * r.stride_);
  r.replica_shards_.reserve(n * r.stride_);
  for (std::size_t i = 0; i < n; ++i) {
    r.tokens_.push_back(tablet_last_token(i, map.log2_count()));
    const auto reps = map.replicas(i);
    r.owners_.push_back(reps.empty() ? 0 : reps[0].host);
    for (const TabletReplica& t : reps) {
      r.server_.push_back(t.host);
      r.replica_shards_.push_back(t.shard);
    }
  }
  r.driver_ = r.server_;
  r.build_buckets();
  r.compute_ownership();
  return r;
}

TokenRing TokenRing::renumbered(Topology full, std::span<const NodeId> to_full) const {
  TokenRing r = *this;
  r.topo_ = std::move(full);
  for (NodeId& n : r.owners_) n = to_full[n];
  for (NodeId& n : r.server_) n = to_full[n];
  for (NodeId& n : r.driver_) n = to_full[n];
  r.compute_ownership();
  return r;
}

void TokenRing::build_buckets() {
  // Bucket index over the top bits of the unbiased token: about one ring token per bucket.
  const std::size_t nb = std::clamp<std::size_t>(std::bit_ceil(tokens_.size()), 2, std::size_t{1} << 22);
  bucket_shift_ = 64 - std::countr_zero(nb);
  bucket_start_.assign(nb + 1, 0);
  std::size_t k = 0;
  for (std::size_t b = 0; b <= nb; ++b) {
    while (k < tokens_.size() && bucket_of(tokens_[k]) < b) ++k;
    bucket_start_[b] = static_cast<std::uint32_t>(k);
  }
}

void TokenRing::place_simple() {
  const std::size_t n = tokens_.size();
  const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(repl_.simple_rf), topo_.size());
  if (static_cast<std::size_t>(repl_.simple_rf) > topo_.size())
    warnings_.push_back(fmt::format("replication factor {} exceeds the {} nodes; every node is a replica",
                                    repl_.simple_rf, topo_.size()));
  stride_ = want;
  server_.resize(n * want);
  std::vector<std::uint32_t> mark(topo_.size(), 0);
  std::uint32_t epoch = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ++epoch;
    std::size_t got = 0;
    for (std::size_t j = 0; j < n && got < want; ++j) {
      const NodeId node = owners_[(i + j) % n];
      if (mark[node] == epoch) continue;
      mark[node] = epoch;
      server_[i * want + got++] = node;
    }
  }
  driver_ = server_;
}

void TokenRing::place_nts() {
  const std::size_t n = tokens_.size();
  struct DcPlan {
    std::uint32_t dc;
    std::uint32_t rf;
    std::uint32_t target;  // min(rf, nodes in DC)
    std::int64_t repeats;  // rf - racks in DC (Cassandra's acceptableRackRepeats)
    std::uint32_t racks;
    std::vector<std::uint32_t> pos;  // ring indices of this DC's tokens, ascending
    std::size_t cursor = 0;
  };
  std::vector<DcPlan> plans;
  for (const auto& [name, rf] : repl_.dc_rf) {
    if (rf <= 0) continue;
    const auto dc = topo_.dc_index(name);
    if (!dc) continue;  // a DC without nodes gets no replicas (the config parser warns)
    const std::uint32_t nodes = topo_.dc_node_count[*dc];
    if (static_cast<std::uint32_t>(rf) > nodes)
      warnings_.push_back(fmt::format("replication factor {} for datacenter '{}' exceeds its {} nodes; "
                                      "every node of it is a replica", rf, name, nodes));
    DcPlan p;
    p.dc = *dc;
    p.rf = static_cast<std::uint32_t>(rf);
    p.target = std::min(p.rf, nodes);
    p.racks = topo_.dc_rack_count[*dc];
    p.repeats = static_cast<std::int64_t>(rf) - p.racks;
    plans.push_back(std::move(p));
  }
  for (std::uint32_t i = 0; i < n; ++i)
    for (auto& p : plans)
      if (topo_.node_dc[owners_[i]] == p.dc) p.pos.push_back(i);
  for (const auto& p : plans) stride_ += p.target;

  server_.resize(n * stride_);
  driver_.resize(n * stride_);
  std::vector<std::uint32_t> node_s(topo_.size(), 0), rack_s(topo_.racks.size(), 0);
  std::vector<std::uint32_t> node_d(topo_.size(), 0), rack_d(topo_.racks.size(), 0), skip_d(topo_.size(), 0);
  std::uint32_t epoch = 0;
  std::vector<std::pair<std::size_t, NodeId>> em_s, em_d;  // (walk step, node)
  std::vector<NodeId> skipped;
  auto by_step = [](const auto& a, const auto& b) { return a.first < b.first; };

  for (std::size_t i = 0; i < n; ++i) {
    em_s.clear();
    em_d.clear();
    for (auto& p : plans) {
      while (p.cursor < p.pos.size() && p.pos[p.cursor] < i) ++p.cursor;
      const std::size_t start = p.cursor == p.pos.size() ? 0 : p.cursor;
      const std::size_t m = p.pos.size();
      ++epoch;
      // Server order: Cassandra NetworkTopologyStrategy.DatacenterEndpoints.
      std::uint32_t left = p.target;
      std::int64_t repeats = p.repeats;
      for (std::size_t w = 0; w < m && left > 0; ++w) {
        const std::uint32_t idx = p.pos[(start + w) % m];
        const NodeId node = owners_[idx];
        if (node_s[node] == epoch) continue;
        const std::uint32_t rack = topo_.node_rack[node];
        if (rack_s[rack] != epoch) {
          rack_s[rack] = epoch;
        } else if (repeats > 0) {
          --repeats;
        } else {
          continue;
        }
        node_s[node] = epoch;
        --left;
        em_s.emplace_back((idx + n - i) % n, node);
      }
      // Driver order: Java driver 3.x ReplicationStrategy.NetworkTopologyStrategy.
      std::uint32_t got = 0, seen_racks = 0;
      skipped.clear();
      auto accept = [&](NodeId node, std::size_t step) {
        if (node_d[node] == epoch) return;
        node_d[node] = epoch;
        ++got;
        em_d.emplace_back(step, node);
      };
      for (std::size_t w = 0; w < m && got < p.target; ++w) {
        const std::uint32_t idx = p.pos[(start + w) % m];
        const NodeId node = owners_[idx];
        const std::size_t step = (idx + n - i) % n;
        const std::uint32_t rack = topo_.node_rack[node];
        if (seen_racks == p.racks) {
          accept(node, step);
        } else if (rack_d[rack] == epoch) {
          if (skip_d[node] != epoch) {
            skip_d[node] = epoch;
            skipped.push_back(node);
          }
        } else {
          rack_d[rack] = epoch;
          ++seen_racks;
          accept(node, step);
          if (seen_racks == p.racks)
            for (std::size_t s = 0; s < skipped.size() && got < p.target; ++s) accept(skipped[s], step);
        }
      }
      LBSIM_DCHECK(left == 0 && got == p.target, "NTS walk must fill every DC within one lap");
    }
    // Interleave DCs in ring-walk order; within a step the emission order is kept. A few entries,
    // nearly in order (each DC's are): an insertion sort, stable (an entry moves only past greater
    // ones), where std::stable_sort allocated a buffer for every range (a tenth of `analyze`'s
    // instructions at 3,000 x 256).
    boost::sort::insert_sort(em_s.begin(), em_s.end(), by_step);
    boost::sort::insert_sort(em_d.begin(), em_d.end(), by_step);
    for (std::size_t r = 0; r < stride_; ++r) {
      server_[i * stride_ + r] = em_s[r].second;
      driver_[i * stride_ + r] = em_d[r].second;
    }
  }
}

u128 TokenRing::arc(std::size_t range) const {
  if (tokens_.size() == 1) return static_cast<u128>(1) << 64;
  const std::size_t prev = range == 0 ? tokens_.size() - 1 : range - 1;
  return static_cast<std::uint64_t>(tokens_[range]) - static_cast<std::uint64_t>(tokens_[prev]);
}

void TokenRing::compute_ownership() {
  ownership_.assign(topo_.size(), {});
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    const auto a = arc(i);
    ownership_[owners_[i]].primary_arc += a;
    for (NodeId r : replicas_at(i, ReplicaOrder::Server)) ownership_[r].replica_arc += a;
  }
  for (auto& o : ownership_) {
    o.primary = static_cast<double>(static_cast<long double>(o.primary_arc) / kTwo64);
    o.replica = static_cast<double>(static_cast<long double>(o.replica_arc) / kTwo64);
  }
}

std::vector<DcOwnership> TokenRing::dc_ownership() const {
  std::vector<DcOwnership> out;
  for (std::uint32_t dc = 0; dc < topo_.dcs.size(); ++dc) {
    DcOwnership d;
    d.dc = topo_.dcs[dc];
    d.rf = repl_.kind == StrategyKind::Simple ? repl_.simple_rf : repl_.rf_for_dc(d.dc);
    d.nodes = topo_.dc_node_count[dc];
    d.racks = topo_.dc_rack_count[dc];
    std::vector<double> prim, repl;
    for (NodeId n = 0; n < topo_.size(); ++n) {
      if (topo_.node_dc[n] != dc) continue;
      prim.push_back(ownership_[n].primary);
      repl.push_back(ownership_[n].replica);
    }
    d.primary = summarize(prim);
    d.replica = summarize(repl);
    out.push_back(std::move(d));
  }
  return out;
}

std::size_t TokenRing::memory_bytes() const {
  return tokens_.capacity() * sizeof(Token) + owners_.capacity() * sizeof(NodeId) +
         bucket_start_.capacity() * 4 + (server_.capacity() + driver_.capacity()) * sizeof(NodeId);
}

}  // namespace lbsim
