// An opt-in digest of a run's event sequence (issue 45): a 64-bit hash over (time, sequence number,
// logical kind, slot) of every event popped, with the running hash kept every kCheckpointEvery
// events, plus each named random stream's draw count at the end of the run. Two builds that give
// the same reports but pop another sequence of events (a refactoring that reorders work) differ
// here; the first checkpoint that differs brackets the first diverging event within
// kCheckpointEvery events, and `traced` (events in [trace_from, trace_to)) names it.
//
// The kind is the event's logical name ("op_start", "snitch.update", "placement.resize_tick"),
// not the queue's type bits, and the slot is the logical argument (a request slot, a node, a
// decision number): an event that moves to another queue type or id encoding, pushed at the same
// call site, keeps its digest. It is outside the stable report and costs a run without it nothing:
// the event loop is compiled twice (Simulation::Impl::event_loop<bool>).
//
// The hash is a multiply-xorshift mix (the finaliser of SplitMix64, Steele et al., "Fast splittable
// pseudorandom number generators", OOPSLA 2014), written here because it is four lines: it only
// needs to make distinct sequences collide rarely, not to resist an adversary.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/core/rng.hpp"
#include "sim/core/time.hpp"

namespace lbsim {

struct EventDigest {
  static constexpr std::uint64_t kCheckpointEvery = 4096;

  // One popped event as the digest sees it; `kind` points at a string literal.
  struct Entry {
    SimTime at = 0;
    std::uint64_t seq = 0;
    std::string_view kind;
    std::uint32_t slot = 0;
  };

  std::uint64_t events = 0;
  std::uint64_t hash = 0x6a09e667f3bcc908ULL;  // any fixed start
  std::vector<std::uint64_t> checkpoints;      // the hash after event k * kCheckpointEvery
  // Events whose index (0-based, in pop order) is in [trace_from, trace_to) are copied here.
  std::uint64_t trace_from = std::numeric_limits<std::uint64_t>::max(), trace_to = 0;
  std::vector<Entry> traced;
  // Each named stream's draws at the end of the run (Rng::draws_since_seed), in name order; streams
  // that never drew are not listed.
  std::vector<std::pair<std::string, std::int64_t>> draws;

  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  void add(const Entry& e) {
    if (events >= trace_from && events < trace_to) traced.push_back(e);
    hash = mix(hash ^ static_cast<std::uint64_t>(e.at));
    hash = mix(hash ^ e.seq);
    hash = mix(hash ^ stream_hash(e.kind));
    hash = mix(hash ^ e.slot);
    if (++events % kCheckpointEvery == 0) checkpoints.push_back(hash);
  }

  // "events hash c1 c2 ...": the committed form of a digest's events (hexadecimal hashes).
  std::string line() const {
    std::string s = fmt::format("{} {:016x}", events, hash);
    for (std::uint64_t c : checkpoints) s += fmt::format(" {:016x}", c);
    return s;
  }
  // "name=count name=count ...": the committed form of the streams' draws.
  std::string draws_line() const {
    std::string s;
    for (const auto& [name, n] : draws) s += fmt::format("{}{}={}", s.empty() ? "" : " ", name, n);
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

// The first stream whose count differs between two `draws_line()`s, as "name: was A, now B"
// ("" when they agree).
inline std::string first_draws_difference(const std::string& was, const std::string& now) {
  auto parse = [](const std::string& s) {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t i = 0;
    while (i < s.size()) {
      std::size_t j = s.find(' ', i);
      if (j == std::string::npos) j = s.size();
      const std::string f = s.substr(i, j - i);
      const std::size_t eq = f.find('=');
      out.emplace_back(f.substr(0, eq), eq == std::string::npos ? "" : f.substr(eq + 1));
      i = j + 1;
    }
    return out;
  };
  const auto a = parse(was), b = parse(now);
  for (const auto& [name, n] : b) {
    std::string old = "absent";
    for (const auto& [name2, n2] : a)
      if (name2 == name) old = n2;
    if (old != n) return fmt::format("{}: was {}, now {}", name, old, n);
  }
  for (const auto& [name, n] : a) {
    bool found = false;
    for (const auto& [name2, n2] : b) found = found || name2 == name;
    if (!found) return fmt::format("{}: was {}, now absent", name, n);
  }
  return "";
}

// "t=1234567 ns seq=42 kind=op_start slot=17": one event, for naming where two builds part.
inline std::string describe_event(const EventDigest::Entry& e) {
  return fmt::format("t={} ns seq={} kind={} slot={}", e.at, e.seq, e.kind, e.slot);
}

}  // namespace lbsim
