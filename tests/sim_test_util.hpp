// Helpers for the simulation tests: small scenarios built in memory, patched with apply_set.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "sim/config/scenario.hpp"
#include "sim/engine/simulation.hpp"

namespace lbsim::testing {

// One node, one shard, RF 1, exponential service of `service_us`, no network, no client cost,
// open-loop Poisson writes at `rate`: an M/M/1 queue (M/M/c with "discipline": "shared").
inline jsonin::Json queue_doc(double rate, double service_us, std::uint64_t ops) {
  return jsonin::Json::parse(R"({
    "name": "queue", "seed": 7,
    "cluster": {"nodes": [{"id": "a", "dc": "dc1", "rack": "r1"}], "num_tokens": 1, "shards": 1,
                "service": {"coordinator": 0, "read": {"dist": "exponential", "mean_us": )" +
                             std::to_string(service_us) + R"(},
                            "write": {"dist": "exponential", "mean_us": )" + std::to_string(service_us) + R"(}}},
    "keyspace": {"class": "SimpleStrategy", "rf": 1},
    "network": {"same_rack": 0, "same_dc": 0, "cross_dc": 0},
    "client": {"dc": "dc1", "rate_ops_s": )" + std::to_string(rate) + R"(, "cores": 0, "driver_cost": 0,
               "plan_ns": 0, "plan_host_ns": 0, "thread_local_draw_ns": 0, "shared_draw_ns": 0,
               "line_transfer_ns": 0, "max_in_flight": 1000000},
    "workload": {"ops": )" + std::to_string(ops) + R"(, "warmup_ops": 20000, "mix": {"write": 1},
                 "consistency": {"write": "ONE"}},
    "policies": [{"name": "rr", "policy": {"type": "RoundRobin"}}]
  })");
}

// A small 1-DC cluster (3 racks, `nodes` nodes, RF 3, 16 tokens) under a closed loop.
inline jsonin::Json cluster_doc(int nodes = 6, int threads = 32, std::uint64_t ops = 20000) {
  return jsonin::Json::parse(R"({
    "name": "small", "seed": 11,
    "cluster": {"datacenters": [{"name": "dc1", "racks": 3, "nodes": )" + std::to_string(nodes) + R"(}],
                "num_tokens": 16, "shards": 2,
                "service": {"coordinator": {"dist": "exponential", "mean_us": 20},
                            "read": {"dist": "exponential", "mean_us": 100},
                            "write": {"dist": "exponential", "mean_us": 50}}},
    "keyspace": {"class": "NetworkTopologyStrategy", "rf": {"dc1": 3}},
    "client": {"dc": "dc1", "threads": )" + std::to_string(threads) + R"(, "cores": 4},
    "workload": {"ops": )" + std::to_string(ops) + R"(, "warmup_ops": 1000, "mix": {"read": 1, "write": 1},
                 "keys": {"count": 100000}},
    "policies": [
      {"name": "ta", "policy": {"type": "TokenAware", "ordering": "RANDOM", "shuffle_rng": "thread_local",
                                "child": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}},
      {"name": "rr", "policy": {"type": "DCAwareRoundRobin", "local_dc": "dc1"}}
    ]
  })");
}

// M/M/1+D: Poisson arrivals (lambda), exponential service (mu), FIFO, and a deterministic
// deadline T: work that would start after T is shed unexecuted; an operation succeeds when its
// wait plus service is at most T. The virtual waiting time V has an atom p0 at 0 and density
// lambda p0 e^((lambda - mu) v) on (0, T], lambda p0 e^(lambda T - mu v) above (level crossing);
// an arrival sees V (PASTA) and succeeds when V + S <= T. With a = lambda - mu and
// G = (e^(aT) - 1) / a the integrals reduce to
//   P(success) = (1 + lambda G - e^(aT)) / (1 + lambda G + lambda/mu e^(aT)),
// evaluated divided by e^(aT) when a > 0 so that large T does not overflow.
// Returns successes per unit time.
inline double mm1d_goodput(double lambda, double mu, double t) {
  const double a = lambda - mu;
  double p = 0;
  if (a > 0) {
    const double x = std::exp(-a * t);            // e^(-aT)
    const double g = -std::expm1(-a * t) / a;     // G e^(-aT)
    p = (x + lambda * g - 1) / (x + lambda * g + lambda / mu);
  } else {
    const double e = std::exp(a * t);
    const double g = std::abs(a) < 1e-12 ? t : std::expm1(a * t) / a;
    p = (1 + lambda * g - e) / (1 + lambda * g + lambda / mu * e);
  }
  return lambda * p;
}

inline Scenario build(jsonin::Json doc, const std::vector<std::string>& sets = {}) {
  for (const auto& s : sets) apply_set(doc, s);
  return scenario_from_json(std::move(doc), "test", ".");
}

inline RunResult run_first(const Scenario& sc, const std::string& policy = "") {
  const PolicyEntry* e = policy.empty() ? &sc.policies.front() : sc.find_policy(policy);
  return run_simulation(sc, *e, sc.seed);
}

}  // namespace lbsim::testing
