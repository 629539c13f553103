// An opt-in digest of a run's event sequence (issue 45): a 64-bit hash over (time, key) of every
// event popped, where the key holds the event's sequence number, kind and slot id, with the
// running hash kept every kCheckpointEvery events. Two builds that give the same reports but pop
// another sequence of events (a refactoring that reorders work) differ here; the first checkpoint
// that differs brackets the first diverging event within kCheckpointEvery events, and `traced`
// (events in [trace_from, trace_to)) names it. It is outside the stable report and costs a run
// without it nothing: the event loop is compiled twice (Simulation::Impl::event_loop<bool>).
//
// The hash is a multiply-xorshift mix (the finaliser of SplitMix64, Steele et al., "Fast splittable
// pseudorandom number generators", OOPSLA 2014), written here because it is four lines: it only
// needs to make distinct sequences collide rarely, not to resist an adversary.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/engine/event_queue.hpp"

namespace lbsim {

struct EventDigest {
  static constexpr std::uint64_t kCheckpointEvery = 4096;

  std::uint64_t events = 0;
  std::uint64_t hash = 0x6a09e667f3bcc908ULL;  // any fixed start
  std::vector<std::uint64_t> checkpoints;      // the hash after event k * kCheckpointEvery
  // Events whose index (0-based, in pop order) is in [trace_from, trace_to) are copied here.
  std::uint64_t trace_from = std::numeric_limits<std::uint64_t>::max(), trace_to = 0;
  std::vector<EventQueue::Event> traced;

  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  void add(const EventQueue::Event& e) {
    if (events >= trace_from && events < trace_to) traced.push_back(e);
    hash = mix(hash ^ static_cast<std::uint64_t>(e.at));
    hash = mix(hash ^ e.key);
    if (++events % kCheckpointEvery == 0) checkpoints.push_back(hash);
  }

  // "events hash c1 c2 ...": the committed form of a digest (hexadecimal hashes).
  std::string line() const {
    std::string s = fmt::format("{} {:016x}", events, hash);
    for (std::uint64_t c : checkpoints) s += fmt::format(" {:016x}", c);
    return s;
  }
};

// The events of two digests in `line()` form are the same up to the returned index at least, and
// differ within kCheckpointEvery events after it; nullopt when the lines are equal.
inline std::optional<std::uint64_t> first_divergence(const std::string& a, const std::string& b) {
  if (a == b) return std::nullopt;
  // Fields: events, final hash, then the checkpoints; compare the checkpoints in order.
  auto fields = [](const std::string& s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
      const std::size_t j = s.find(' ', i);
      out.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
      if (j == std::string::npos) break;
      i = j + 1;
    }
    return out;
  };
  const auto fa = fields(a), fb = fields(b);
  std::uint64_t k = 0;
  for (std::size_t i = 2; i < fa.size() && i < fb.size() && fa[i] == fb[i]; ++i) ++k;
  return k * EventDigest::kCheckpointEvery;
}

// "t=1234567 ns seq=42 kind=3 id=17": one event, for naming where two builds part.
inline std::string describe_event(const EventQueue::Event& e) {
  return fmt::format("t={} ns seq={} kind={} id={}", e.at, e.key >> 28, e.type(), e.id());
}

}  // namespace lbsim
