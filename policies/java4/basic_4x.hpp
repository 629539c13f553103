// Java driver 4.x BasicLoadBalancingPolicy (apache/cassandra-java-driver core/.../internal/core/
// loadbalancing/BasicLoadBalancingPolicy.java); DefaultLoadBalancingPolicy (default_4x.cpp)
// extends it, as in the driver.
// - Live nodes: per DC insertion-ordered sets (CopyOnWriteArraySet); a node is added at init and
//   on up unless its distance is IGNORED, removed on down. Without a local DC, one DC-agnostic set.
// - distance: LOCAL without a local DC or in it; a remote node is REMOTE when it is among, or
//   there is still room in, the first max_nodes_per_remote_dc live nodes of its DC; else IGNORED.
// - Plan: snapshot of the local DC's live nodes; the replicas among them are bubbled to the front
//   in live-set order and, when more than one, shuffled (ArrayUtils.shuffleHead, ThreadLocalRandom:
//   counted as thread_local draws); the non-replicas are rotated left by roundRobinAmount, which
//   starts at 0 and steps by one per plan (MAX_VALUE -> 0).
// - DC failover (only with max_nodes_per_remote_dc > 0, a local DC, and a CL that is not DC-local
//   unless allow_for_local_consistency_levels): built lazily after the local nodes; the first N
//   live nodes of each remote DC, shuffled together. The driver lists remote DCs in
//   ConcurrentHashMap order; lbsim uses DC index order (the shuffle hides it anyway).
// - shuffle_replicas = false is a test hook (the driver's tests override shuffleHead to a no-op).
// - LWT (scylladb/java-driver scylla-4.x, java-driver#850): the local replicas in replica order,
//   unshuffled, without the local-rack split or the slow-replica reordering.
// - local_rack (scylladb/java-driver scylla-4.x): replicas in the local rack of the local DC are
//   bubbled first, then the other replicas, each group in live-set order; the local-rack block and
//   the rest of the replicas are shuffled separately (shuffleHead, then shuffleInRange). Without a
//   local-rack replica the whole replica block is shuffled as above.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "policies/plan_util.hpp"

namespace lbsim::policy {

struct Basic4xOptions {
  std::optional<std::string> local_dc;
  bool infer_local_dc = false;  // Default4x: the DC of the (implicit) contact point, node 0
  int max_nodes_per_remote_dc = 0;
  bool allow_for_local_consistency_levels = false;
  bool shuffle_replicas = true;
  std::optional<std::string> local_rack;  // Scylla 4.x only
};

class Basic4x : public Policy {
 public:
  explicit Basic4x(Basic4xOptions o) : o_(std::move(o)) {}

  void init(const ClusterView& view, Rng& rng) override;
  Distance distance(HostId h) const override { return dist_[h]; }
  Plan* new_plan(const Request& req, PlanRandom& rnd, PlanArena& arena) override;
  void on_up(HostId h) override;
  void on_down(HostId h) override;

  // The remote part of a plan, computed when the local part runs out.
  std::span<const HostId> failover_nodes(PlanRandom& rnd, PlanArena& arena) const;

 protected:
  // Default4x's hook: reorders the `replicas` head of a plan after the shuffle.
  virtual void reorder_replicas(std::span<HostId> /*replicas*/, const Request&, PlanRandom&) {}
  void shuffle_head(std::span<HostId> head, PlanRandom& rnd) const {
    if (o_.shuffle_replicas) java_shuffle(head, rnd, RngModel::ThreadLocal);
  }
  const ClusterView& view() const { return *view_; }

 private:
  Distance compute_distance(HostId h) const;
  // The rotation of the non-replicas and the lazy DC failover, around `rc` replicas at the front.
  // `local` is the plan's snapshot of the local live set, `marked` the ascending positions in it of
  // the hosts left out of the rotated tail (the replicas), `block` the replica block.
  Plan* finish_plan(std::span<const HostId> local, std::span<HostId> block, std::span<const std::uint32_t> marked,
                    const Request& req, PlanRandom& rnd, PlanArena& arena);
  CowList& live_set(std::uint32_t dc) { return agnostic_ ? live_[0] : live_[dc]; }
  const CowList* local_set() const;

  Basic4xOptions o_;
  const ClusterView* view_ = nullptr;
  bool agnostic_ = false;
  std::uint32_t local_dc_ = kNoDc;
  std::vector<CowList> live_;  // per DC (one list when DC-agnostic): CopyOnWriteArraySet
  std::vector<Distance> dist_;
  std::int32_t round_robin_ = 0;  // roundRobinAmount
  std::vector<std::uint32_t> mark_;  // replica stamps, per host
  std::uint32_t stamp_ = 0;
  std::vector<std::uint8_t> in_local_rack_;  // per host: local_rack set and host in it (and in the local DC)
};

}  // namespace lbsim::policy
