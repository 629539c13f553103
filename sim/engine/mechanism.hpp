// The interface of an engine mechanism (issue 45): an optional part of the model (the dynamic
// snitch, HWLB, the cache, detection, ...) that lives in its own folder under sim/mech/ and
// reaches the request path only through the hook points and strategies of sim/engine/hooks.hpp.
//
// Life of a mechanism, in the order of the explicit list sim/mech/mechanisms.inc (that order, not
// the linker's, decides the sequence of events and draws; hence no self-registration):
// - its factory, make_<name>(core), returns nullptr when the scenario does not use it; otherwise
//   its constructor sizes its state and subscribes to hooks; no draw, and no event unless its first
//   events precede the run's (the placement's topology changes and the drivers' detection timers:
//   they were pushed while the engine was built, before the measurement window's). It is made
//   after the drivers' policies and the loaders exist, or, listed as
//   LBSIM_MECHANISM_BEFORE_POLICIES, before the policies' init (the placement: the nodes that join
//   later are unknown to the drivers from the start);
// - start(): in run(), after the measurement window's events are scheduled: its first events;
// - on_event(sub, arg): each of its kMech events (Core::push_mech), in time order;
// - window_open() / window_close(): the measurement window's edges, right after the core took its
//   node snapshots (snap_start_ / snap_end_), which a mechanism may correct (the cache's disks);
// - collect(): its part of the run's result, after the core's (the nodes' rows exist): a typed
//   field of RunResult that other commands read (compare, aggregate, HTML), or a report section of
//   its own in RunResult::mechanism_sections, JSON and text, which needs no shared file;
// - streams(): its named random streams, for the event digest's draw counts.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/rng.hpp"

namespace lbsim {

struct RunResult;

class Mechanism {
 public:
  virtual ~Mechanism() = default;
  virtual void start() {}
  virtual void on_event(std::uint16_t sub, std::uint32_t arg) = 0;
  // The event digest's name of its sub-kind (a string literal, e.g. "snitch.update").
  virtual const char* event_name(std::uint16_t sub) const = 0;
  virtual void window_open() {}
  virtual void window_close() {}
  virtual void collect(RunResult&) const {}
  virtual void streams(std::vector<std::pair<std::string, const Rng*>>&) const {}
};

}  // namespace lbsim
