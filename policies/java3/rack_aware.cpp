// RackAwareRoundRobin: semantics of the Scylla fork's 3.x RackAwareRoundRobinPolicy
// (scylladb/java-driver PR #227): DCAwareRoundRobin with the local DC split into the local rack
// (first) and the other racks; one index shared by all lists. See dc_round_robin.hpp.
//
// distance() of a local-DC host in another rack is LOCAL in the released 3.x drivers before
// scylladb/java-driver PR #588 (2025-08-19), so TokenAware RANDOM/TOPOLOGICAL may put remote-rack
// replicas first (issue #369); PR #588 made it REMOTE. "remote_rack_distance" picks either;
// the default is "LOCAL", the pre-fix behaviour.
#include "policies/java3/dc_round_robin.hpp"
#include "policies/registry.hpp"

namespace lbsim::policy {
namespace {

std::unique_ptr<Policy> make_rack_aware(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  jsonin::Object o(spec, path,
                   {"type", "local_dc", "local_rack", "used_hosts_per_remote_dc", "allow_remote_dcs_for_local_cl",
                    "remote_rack_distance", "contact_points"});
  DcRoundRobinOptions opts;
  opts.rack_aware = true;
  opts.local_dc = dc_param(o, "local_dc", ctx);
  opts.local_rack = rack_param(o, "local_rack", opts.local_dc, ctx);
  opts.contact_points = contact_points_param(o, ctx);
  opts.used_hosts_per_remote_dc = static_cast<int>(o.integer("used_hosts_per_remote_dc", 0, 1000000, 0));
  opts.allow_remote_dcs_for_local_cl = o.boolean("allow_remote_dcs_for_local_cl", false);
  opts.remote_rack_distance = o.choice<Distance>("remote_rack_distance",
                                                 {{"LOCAL", Distance::Local}, {"REMOTE", Distance::Remote}},
                                                 Distance::Local);
  return make_dc_round_robin(opts);
}

}  // namespace

LBSIM_REGISTER_POLICY(RackAwareRoundRobin, Driver::Java3,
                      "Scylla Java 3.x RackAwareRoundRobinPolicy: local-rack hosts, then other racks of the local DC, "
                      "then remote DCs, one shared index; remote racks are LOCAL by distance() unless "
                      "remote_rack_distance is REMOTE (PR #588)",
                      (std::vector<ParamInfo>{
                          {"local_dc", "a datacenter of the topology", "the DC of the first reachable contact point, else of the first host"},
                          {"local_rack", "a rack of local_dc", "the rack of the first reachable contact point, else of the first host"},
                          {"used_hosts_per_remote_dc", "0..1000000", "0"},
                          {"allow_remote_dcs_for_local_cl", "true | false", "false"},
                          {"remote_rack_distance", "LOCAL | REMOTE", "LOCAL"},
                          {"contact_points", "an array of node ids",
                           "none (init() over every up host, a uniform start)"}}),
                      make_rack_aware)

}  // namespace lbsim::policy
