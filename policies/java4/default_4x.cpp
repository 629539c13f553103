// Default4x: semantics of Java driver 4.x DefaultLoadBalancingPolicy (apache/cassandra-java-driver
// core/.../internal/core/loadbalancing/DefaultLoadBalancingPolicy.java, the version that extends
// BasicLoadBalancingPolicy): Basic4x plus, when slow_replica_avoidance (default true) and more
// than two local replicas, after the shuffle:
// - newest-up: among the replicas whose upTimes entry is within 1 minute, the most recent. Health
//   is checked only while no newly-up replica has been seen in the scan. OSS 4.x never writes
//   upTimes outside its tests, so in lbsim only restore_state (tests, `lbsim plan --state`) sets it
//   and the branch is dead in simulations, as in the driver.
// - unhealthy = in flight >= 10 (ClusterView::in_flight) and response rate insufficient: fewer
//   than two response timestamps, or the older of the last two more than 200 ms ago. Timestamps
//   are recorded on every response except driver-side timeouts (onNodeError skips
//   DriverTimeoutException).
// - no newly-up replica and 0 < unhealthy < replicas/2: unhealthy replicas bubble to the end of the
//   replica block, stably; else if the newly-up replica is first or second and a 1d4 roll
//   (ThreadLocalRandom.nextInt(4): a thread_local draw) is not 1, it moves to the end.
// - power of two choices: if in_flight(first) > in_flight(second), swap them.
// The local DC is mandatory in the driver; when "local_dc" is absent lbsim infers it from the first
// node, as the driver does from an implicit contact point.
#include "policies/java4/basic_4x.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

constexpr SimTime kNewlyUpInterval = 60 * kSec;
constexpr std::int32_t kMaxInFlightThreshold = 10;
constexpr SimTime kResponseCountResetInterval = 200 * kMs;

// Java long subtraction (wraps instead of overflowing).
constexpr std::int64_t jsub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

void bubble_down(std::span<HostId> a, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) std::swap(a[i], a[i + 1]);
}

struct HostFeedback {
  int responses = 0;
  std::array<SimTime, 2> times{0, 0};
  bool has_up_time = false;
  SimTime up_time = 0;
};

class Default4x final : public Basic4x {
 public:
  Default4x(Basic4xOptions o, bool avoid_slow) : Basic4x(std::move(o)), avoid_slow_(avoid_slow) {}

  void init(const ClusterView& view, Rng& rng) override {
    Basic4x::init(view, rng);
    fb_.assign(view.size(), HostFeedback{});
  }
  void on_response(HostId h, SimTime now, SimTime, ResponseKind kind) override {
    if (!avoid_slow_ || kind == ResponseKind::ClientTimeout) return;
    HostFeedback& f = fb_[h];
    if (f.responses == 0) {
      f.times[0] = now;
      f.responses = 1;
    } else if (f.responses == 1) {
      f.times[1] = now;
      f.responses = 2;
    } else {
      f.times[0] = f.times[1];
      f.times[1] = now;
    }
  }
  void restore_state(HostId h, const HostState& s) override {
    HostFeedback& f = fb_[h];
    f.responses = std::clamp(s.response_count, 0, 2);
    f.times = s.response_times;
    f.has_up_time = s.up_time.has_value();
    f.up_time = s.up_time.value_or(0);
  }
  bool adaptive() const override { return avoid_slow_; }
  bool reads_in_flight() const override { return avoid_slow_; }

 protected:
  void reorder_replicas(std::span<HostId> r, const Request& req, PlanRandom& rnd) override {
    const std::size_t rc = r.size();
    if (!avoid_slow_ || rc <= 2) return;
    const SimTime now = req.now;
    HostId newest = kNoHost;
    SimTime most_recent = -1;
    std::uint64_t unhealthy = 0;  // bit i: replica i (replica blocks hold at most RF <= 64 nodes)
    int unhealthy_count = 0;
    for (std::size_t i = 0; i < rc; ++i) {
      const HostFeedback& f = fb_[r[i]];
      if (f.has_up_time && jsub(jsub(now, f.up_time), kNewlyUpInterval) < 0 && jsub(f.up_time, most_recent) > 0) {
        newest = r[i];
        most_recent = f.up_time;
      }
      if (newest == kNoHost && i < 64 && is_unhealthy(r[i], now)) {
        unhealthy |= std::uint64_t{1} << i;
        ++unhealthy_count;
      }
    }
    if (newest == kNoHost && unhealthy_count > 0 && unhealthy_count < static_cast<double>(rc) / 2.0) {
      int moved = 0;
      for (std::size_t i = rc; i-- > 0 && moved < unhealthy_count;) {
        if (unhealthy >> i & 1) {
          bubble_down(r, i, rc - 1 - static_cast<std::size_t>(moved));
          ++moved;
        }
      }
    } else if ((newest == r[0] || newest == r[1]) && rnd.below(4, RngModel::ThreadLocal) != 1) {
      bubble_down(r, newest == r[0] ? 0 : 1, rc - 1);
    }
    if (view().in_flight(r[0]) > view().in_flight(r[1])) std::swap(r[0], r[1]);
  }

 private:
  bool is_unhealthy(HostId h, SimTime now) const {
    if (view().in_flight(h) < kMaxInFlightThreshold) return false;
    const HostFeedback& f = fb_[h];
    if (f.responses < 2) return true;
    return jsub(f.times[0], jsub(now, kResponseCountResetInterval)) < 0;
  }
  bool avoid_slow_;
  std::vector<HostFeedback> fb_;
};

std::unique_ptr<Policy> make_default_4x(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path,
                   {"type", "local_dc", "max_nodes_per_remote_dc", "allow_for_local_consistency_levels", "shuffle_replicas",
                    "slow_replica_avoidance", "local_rack"});
  Basic4xOptions opts;
  opts.local_dc = dc_param(o, "local_dc", ctx);
  opts.local_rack = rack_param(o, "local_rack", opts.local_dc, ctx);
  opts.infer_local_dc = true;
  opts.max_nodes_per_remote_dc = static_cast<int>(o.integer("max_nodes_per_remote_dc", 0, 1000000, 0));
  opts.allow_for_local_consistency_levels = o.boolean("allow_for_local_consistency_levels", false);
  opts.shuffle_replicas = o.boolean("shuffle_replicas", true);
  return std::make_unique<Default4x>(opts, o.boolean("slow_replica_avoidance", true));
}

}  // namespace

LBSIM_REGISTER_POLICY(Default4x, Driver::Java4,
                      "Java 4.x DefaultLoadBalancingPolicy: Basic4x plus, with 3+ local replicas, demotion of busy replicas "
                      "without 2 responses in 200 ms and a power-of-two-choices swap on in-flight counts; the newly-up "
                      "branch is dead code in OSS 4.x (upTimes never written) and only --state can trigger it",
                      (std::vector<ParamInfo>{
                          {"local_dc", "a datacenter of the topology", "inferred: the DC of the first host"},
                          {"max_nodes_per_remote_dc", "0..1000000", "0"},
                          {"allow_for_local_consistency_levels", "true | false", "false"},
                          {"shuffle_replicas", "true | false", "true"},
                          {"slow_replica_avoidance", "true | false", "true"},
                          {"local_rack", "a rack of local_dc (Scylla 4.x)", "none"}}),
                      make_default_4x)

}  // namespace lbsim::policy
