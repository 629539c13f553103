// The client (the load generator and its driver): where it sits, how it offers load, and what
// its CPU spends per operation. Plain data built by the scenario parser; every parameter and its
// default is documented in configs/README.md ("client").
#pragma once
#include <cstdint>
#include <string>

#include "sim/core/time.hpp"
#include "sim/workload/distribution.hpp"

namespace lbsim {

enum class LoadMode : std::uint8_t { Closed, Open };
enum class Arrivals : std::uint8_t { Poisson, Constant };

struct ClientSpec {
  std::string dc;               // the client's datacenter (network locality, CL checks)
  std::string rack;             // optional; "" = no rack (same-DC latency to every local node)
  std::uint32_t dc_index = 0;
  std::int32_t rack_index = -1;  // index into Topology::racks, -1 when none

  LoadMode mode = LoadMode::Closed;
  std::uint32_t threads = 200;   // closed loop: concurrent client threads (cassandra-stress -rate threads=)
  double rate = 0;               // open loop: operations per second
  Arrivals arrivals = Arrivals::Poisson;
  Dist think = Dist::constant(0);  // closed loop: pause between an answer and the next operation
  std::uint32_t max_in_flight = 8192;  // open loop: more outstanding operations fail ClientBusy

  std::uint32_t cores = 8;        // client CPU cores; 0 = unlimited (no CPU model)
  Dist driver_cost = Dist::constant(20000);  // CPU per operation: encode, decode, futures (ns)
  double plan_ns = 200;           // CPU to create a query plan
  double plan_host_ns = 30;       // CPU per host taken from a plan
  double draw_ns = 25;            // CPU of one uncontended random draw (both generator kinds)
  double contention_ns = 100;     // shared generator: extra time per draw per other thread
                                  // contending for its cache line (busy core) at that moment
};

}  // namespace lbsim
