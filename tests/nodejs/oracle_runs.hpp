// Request sequences run through a policy in a testing::Harness and, described as JSON, through
// tests/nodejs/lbsim_oracle.js: the step model the Node.js oracle tests share.
#pragma once
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/nodejs/oracle.hpp"
#include "tests/policy_test_util.hpp"

namespace lbsim::policy::nodejs_test {

using testing::Harness;

// Declares `env` and skips the test, saying why, when the driver package or `node` is missing.
#define LBSIM_NEEDS_NODEJS_DRIVER(env)      \
  const OracleEnv env = oracle_env();       \
  if (!env.skip_reason.empty()) GTEST_SKIP() << env.skip_reason

// The first `take` hosts of a plan (all of it when take < 0): what the driver's request handler
// consumes when the first attempts fail.
inline std::vector<HostId> plan_take(Harness& h, const Request& req, int take) {
  h.arena.reset();
  Plan* p = h.policy().new_plan(req, h.rnd, h.arena);
  std::vector<HostId> out;
  for (HostId x; (take < 0 || static_cast<int>(out.size()) < take) && (x = p->next()) != kNoHost;) out.push_back(x);
  return out;
}

inline std::vector<std::vector<HostId>> as_plans(const nlohmann::json& j) {
  std::vector<std::vector<HostId>> out;
  for (const auto& p : j) out.push_back(p.get<std::vector<HostId>>());
  return out;
}

// One request of a run compared with the driver, and the host changes made before it.
struct HostChange {
  HostId host = 0;
  bool up = true;
  bool health = false;  // also sets in-flight, response count and isUpSince
  std::int32_t in_flight = 0;
  int responses = 0;
  std::optional<std::int64_t> up_since_ms;
};
struct Step {
  std::optional<Token> token;  // none: no routing key
  std::int64_t now_ms = 0;
  int take = -1;  // hosts consumed; -1: the whole plan
  std::vector<HostChange> set;
};

// Random requests over `n` hosts: routed mostly, some hosts toggled down and up; with `health`,
// random in-flight counts, response counts (0-2) and isUpSince (none, or up to 120 s ago).
inline std::vector<Step> random_steps(std::size_t hosts, int n, std::uint64_t seed, bool health) {
  Rng r(seed);
  std::vector<std::uint8_t> up(hosts, 1);
  std::vector<Step> out;
  std::int64_t now = 1'000'000;
  for (int i = 0; i < n; ++i) {
    Step s;
    now += 1 + static_cast<std::int64_t>(r.below(50));
    s.now_ms = now;
    if (r.below(7) != 0) s.token = static_cast<Token>(r.next_u64());
    const int takes[] = {1, 2, 3, -1, -1};
    s.take = takes[r.below(5)];
    const int changes = health ? static_cast<int>(r.below(4)) : (r.below(10) == 0 ? 1 : 0);
    for (int k = 0; k < changes; ++k) {
      HostChange c;
      c.host = static_cast<HostId>(r.below(hosts));
      up[c.host] = health ? (r.below(8) != 0) : !up[c.host];
      c.up = up[c.host] != 0;
      c.health = health;
      c.in_flight = static_cast<std::int32_t>(r.below(16));
      c.responses = static_cast<int>(r.below(3));
      if (r.below(5) >= 2) c.up_since_ms = now - static_cast<std::int64_t>(r.below(120'000));
      s.set.push_back(c);
    }
    out.push_back(s);
  }
  return out;
}

// Runs `steps` on the harness's policy and returns its plans; `requests` gets the script's input.
// The script's hosts report a fixed response count, so before every request lbsim's count is
// set again to the last value given (its 200 ms windows would otherwise age it).
inline std::vector<std::vector<HostId>> run_steps(Harness& h, const std::vector<Step>& steps,
                                                  bool replicas_from_request, nlohmann::json& requests) {
  std::vector<std::vector<HostId>> plans;
  std::map<HostId, HostChange> health;
  requests = nlohmann::json::array();
  for (const Step& s : steps) {
    const SimTime now = s.now_ms * kMs;
    nlohmann::json set = nlohmann::json::array();
    for (const HostChange& c : s.set) {
      if (h.view().is_up(c.host) != c.up) c.up ? h.up(c.host) : h.down(c.host);
      nlohmann::json cj{{"host", c.host}, {"up", c.up}};
      if (c.health) {
        h.view().set_in_flight(c.host, c.in_flight);
        health[c.host] = c;
        cj["in_flight"] = c.in_flight;
        cj["responses"] = c.responses;
        cj["up_since_ms"] = c.up_since_ms ? nlohmann::json(*c.up_since_ms) : nlohmann::json(nullptr);
      }
      set.push_back(cj);
    }
    for (const auto& [host, c] : health) {
      HostState st;
      st.response_count = c.responses;
      st.response_times = {now, now};
      if (c.up_since_ms) st.up_time = *c.up_since_ms * kMs;
      h.policy().restore_state(host, st);
    }
    Request req = s.token ? h.routed(*s.token, ConsistencyLevel::LocalOne, now) : h.unrouted();
    req.now = now;
    plans.push_back(plan_take(h, req, s.take));
    nlohmann::json rj{{"now_ms", s.now_ms}, {"set", set}};
    rj["token"] = s.token ? nlohmann::json(std::to_string(*s.token)) : nlohmann::json(nullptr);
    if (s.take >= 0) rj["take"] = s.take;
    if (s.token && replicas_from_request) rj["replicas"] = std::vector<HostId>(req.replicas.begin(), req.replicas.end());
    requests.push_back(rj);
  }
  return plans;
}

// The script with the driver's own Math.random: `plans` requests for `token` (all hosts up), one
// "set" before the first. Returns the driver's plans.
inline std::vector<std::vector<HostId>> native_plans(const OracleEnv& env, const Topology& t, const Replication& repl,
                                                     const nlohmann::json& policy, const char* replicas_from,
                                                     const nlohmann::json& first_request, int plans) {
  nlohmann::json requests = nlohmann::json::array();
  requests.push_back(first_request);
  nlohmann::json next = first_request;
  next["set"] = nlohmann::json::array();
  for (int i = 1; i < plans; ++i) requests.push_back(next);
  nlohmann::json in = cluster_json(t, repl);
  in["cases"] = nlohmann::json::array({{{"kind", "plans"},
                                         {"policy", policy},
                                         {"random", {{"mode", "native"}}},
                                         {"replicas_from", replicas_from},
                                         {"requests", requests}}});
  return as_plans(run_oracle(env, in)["cases"][0]["plans"]);
}

}  // namespace lbsim::policy::nodejs_test
