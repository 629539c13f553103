// The event digest's names (sim/engine/event_digest.hpp): each event's logical kind and slot, so
// that an event keeps its digest when its queue encoding changes (issue 45), and the named random
// streams whose draws it counts.
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

EventDigest::Entry Simulation::Impl::digest_entry(const EventQueue::Event& e) const {
  EventDigest::Entry d{e.at, e.seq(), "", e.id()};
  const std::uint32_t id = e.id();
  switch (e.type()) {
    case kOpStart: d.kind = "op_start"; break;  // slot: the closed-loop thread
    case kArrival: d.kind = "arrival"; break;   // slot: the loader
    case kAttemptArrive: d.kind = "attempt_arrive"; break;
    case kCoordDone: d.kind = "coord_done"; break;
    case kReplicaArrive: d.kind = "replica_arrive"; break;
    case kReplicaDone: d.kind = "replica_done"; break;
    case kClientResponse: d.kind = "client_response"; break;
    case kTimer: {
      static constexpr std::array<const char*, kTimers> kNames{"timer.client_timeout", "timer.read_timeout",
                                                               "timer.write_timeout", "timer.cas_timeout"};
      d.kind = id < kTimers ? kNames[id] : "timer.unknown";
      d.slot = 0;
      break;
    }
    case kFault: d.kind = "fault"; break;
    case kDetect: d.kind = "detection"; break;
    case kWindow: d.kind = "window"; break;
    case kDecoded: d.kind = "decoded"; break;
    case kHopDone: d.kind = "hop_done"; break;
    case kMech: {
      const MechEvent& m = mech_events_.peek(id);
      d.slot = m.arg;
      d.kind = listed(m.mech) ? listed(m.mech)->event_name(m.sub) : "mech.unknown";
      break;
    }
    default: d.kind = "unknown"; break;
  }
  return d;
}

void Simulation::Impl::digest_draws(EventDigest& d) const {
  std::vector<std::pair<std::string, const Rng*>> streams{
      {"workload", &gen_.rng()},        {"arrivals", &arrival_rng_}, {"think", &think_rng_},
      {"service", &service_rng_},       {"network", &net_rng_},      {"shard", &shard_rng_},
      {"policy", &policy_rng_},         {"plan", &plan_rng_},        {"driver_cost", &cost_rng_},
      {"read_replicas", &read_replica_rng_}};
  for (std::size_t l = 0; l < loaders_.size(); ++l) {
    const Loader& L = *loaders_[l];
    if (!L.own_policy) continue;  // it draws from the one-client streams
    const std::string k = "#" + std::to_string(l);
    streams.emplace_back("policy" + k, &L.own_policy_rng);
    streams.emplace_back("plan" + k, &L.own_plan_rng);
    streams.emplace_back("arrivals" + k, &L.own_arrival_rng);
    streams.emplace_back("think" + k, &L.own_think_rng);
    streams.emplace_back("driver_cost" + k, &L.own_cost_rng);
  }
  for (const auto& m : mechs_)
    if (m) m->streams(streams);
  d.draws.clear();
  // Streams that never drew are left out, so that a mechanism a scenario does not use (and whose
  // streams therefore do not exist) leaves no trace.
  for (const auto& [name, rng] : streams)
    if (const std::int64_t n = rng->draws_since_seed(); n != 0) d.draws.emplace_back(name, n);
  std::sort(d.draws.begin(), d.draws.end());
}

}  // namespace lbsim
