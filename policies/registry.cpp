#include "policies/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "policies/plan_util.hpp"

namespace lbsim::policy {

std::string_view driver_name(Driver d) {
  switch (d) {
    case Driver::Java3: return "Java driver 3.x (DataStax and ScyllaDB)";
    case Driver::Java4: return "Java driver 4.x";
    case Driver::Python: return "Python driver (scylladb/python-driver, DataStax)";
    case Driver::Rust: return "Rust driver (scylla-rust-driver)";
    case Driver::Go: return "Go driver (scylladb/gocql, gocql)";
    case Driver::NodeJs: return "Node.js driver (DataStax cassandra-driver 4.x)";
  }
  return "?";
}

Registry& Registry::instance() {
  static Registry r;
  return r;
}

bool Registry::add(PolicyInfo info) {
  infos_.push_back(std::move(info));
  return true;
}

const PolicyInfo* Registry::find(const std::string& type) const {
  for (const auto& i : infos_)
    if (i.type == type) return &i;
  return nullptr;
}

std::vector<const PolicyInfo*> Registry::all() const {
  std::vector<const PolicyInfo*> out;
  for (const auto& i : infos_) out.push_back(&i);
  std::sort(out.begin(), out.end(), [](const PolicyInfo* a, const PolicyInfo* b) { return a->type < b->type; });
  return out;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto* i : all()) out.push_back(i->type);
  return out;
}

std::string canonical_type(const std::string& type) {
  const auto& reg = Registry::instance();
  if (reg.find(type)) return type;
  if (type == "BasicLoadBalancingPolicy") return "Basic4x";
  if (type == "DefaultLoadBalancingPolicy") return "Default4x";
  const std::string suffix = "Policy";
  if (type.size() > suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string base = type.substr(0, type.size() - suffix.size());
    if (reg.find(base)) return base;
  }
  return "";
}

jsonin::Json canonical_spec(jsonin::Json spec) {
  if (!spec.is_object()) return spec;
  if (const auto t = spec.find("type"); t != spec.end() && t->is_string()) {
    const std::string c = canonical_type(t->get<std::string>());
    if (!c.empty()) *t = c;
  }
  if (const auto c = spec.find("child"); c != spec.end()) *c = canonical_spec(*c);
  return spec;
}

std::unique_ptr<Policy> make_policy(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx) {
  const auto& reg = Registry::instance();
  if (!spec.is_object())
    jsonin::fail(path, fmt::format("a policy must be an object with a \"type\" (one of {}), got {}",
                                   jsonin::join(reg.names()), jsonin::type_name(spec)));
  const auto t = spec.find("type");
  if (t == spec.end())
    jsonin::fail(jsonin::key_path(path, "type"),
                 "required field is missing; valid: " + jsonin::join(reg.names()));
  const std::string type = jsonin::as_string(*t, jsonin::key_path(path, "type"));
  const PolicyInfo* info = reg.find(canonical_type(type));
  if (info == nullptr)
    jsonin::fail(jsonin::key_path(path, "type"),
                 fmt::format("unknown policy type '{}'; valid: {} (or the drivers' class names, such as "
                             "DCAwareRoundRobinPolicy or DefaultLoadBalancingPolicy)",
                             type, jsonin::join(reg.names())));
  if (info->type != type) return make_policy(canonical_spec(spec), path, ctx);
  return info->make(spec, path, ctx);
}

std::unique_ptr<Policy> make_child_policy(const jsonin::Json& spec, const std::string& path, const BuildContext& ctx,
                                          std::string_view parent) {
  std::string p = path;
  const PolicyInfo* outer = Registry::instance().find(std::string(parent));
  auto token_aware = [](std::string_view t) { return t.size() >= 10 && t.substr(t.size() - 10) == "TokenAware"; };
  for (const jsonin::Json* cur = &spec; cur->is_object();) {
    const auto t = cur->find("type");
    if (t == cur->end() || !t->is_string()) break;
    const std::string type = canonical_type(t->get<std::string>());
    const PolicyInfo* inner = Registry::instance().find(type);
    if (type == "Basic4x" || type == "Default4x")
      jsonin::fail(jsonin::key_path(p, "type"),
                   fmt::format("{} (Java driver 3.x) cannot wrap {} (Java driver 4.x): the 4.x policies are token-aware "
                               "themselves and have no wrappers; use {} alone",
                               parent, type, type));
    if (outer && inner && outer->driver != inner->driver)
      jsonin::fail(jsonin::key_path(p, "type"),
                   fmt::format("{} ({}) cannot wrap {} ({}): a driver's policies wrap only its own; valid here: {}",
                               parent, driver_name(outer->driver), type, driver_name(inner->driver),
                               [&] {
                                 std::vector<std::string> same;
                                 for (const auto* i : Registry::instance().all())
                                   if (i->driver == outer->driver) same.push_back(i->type);
                                 return jsonin::join(same);
                               }()));
    if (token_aware(parent) && token_aware(type))
      jsonin::fail(jsonin::key_path(p, "type"), fmt::format("{} cannot wrap {} (the outer one already puts the "
                                                            "replicas first); keep one {}, outermost",
                                                            parent, type, parent));
    const auto c = cur->find("child");
    if (c == cur->end()) break;
    cur = &*c;
    p = jsonin::key_path(p, "child");
  }
  return make_policy(spec, path, ctx);
}

// ---- plan_util.hpp helpers -------------------------------------------------------------------

std::optional<std::string> dc_param(const jsonin::Object& o, std::string_view key, const BuildContext& ctx) {
  if (!o.has(key)) return std::nullopt;
  std::string dc = o.str(key);
  if (ctx.topology != nullptr && !ctx.topology->dc_index(dc))
    jsonin::fail(o.path_of(key), fmt::format("unknown datacenter '{}'; valid: {}", dc, jsonin::join(ctx.topology->dcs)));
  return dc;
}

std::optional<std::string> rack_param(const jsonin::Object& o, std::string_view key, const std::optional<std::string>& dc,
                                      const BuildContext& ctx) {
  if (!o.has(key)) return std::nullopt;
  std::string rack = o.str(key);
  if (ctx.topology != nullptr) {
    const Topology& t = *ctx.topology;
    const std::uint32_t d = resolve_dc(t, dc);
    std::vector<std::string> valid;
    for (std::size_t r = 0; r < t.racks.size(); ++r)
      if (t.rack_dc[r] == d) {
        if (t.racks[r] == rack) return rack;
        valid.push_back(t.racks[r]);
      }
    jsonin::fail(o.path_of(key), fmt::format("unknown rack '{}' in datacenter '{}'; valid: {}", rack,
                                             d < t.dcs.size() ? t.dcs[d] : std::string("?"), jsonin::join(valid)));
  }
  return rack;
}

SimTime ms_param(const jsonin::Object& o, std::string_view key, double dflt_ms, bool allow_zero) {
  const double ms = o.number(key, 0.0, 1e9, dflt_ms);
  if (!allow_zero && ms <= 0) jsonin::fail(o.path_of(key), fmt::format("must be > 0 ms, got {}", ms));
  return from_ms(ms);
}

// "contact_points": a non-empty array of distinct node ids (checked against the topology when known).
std::vector<std::string> contact_points_param(const jsonin::Object& o, const BuildContext& ctx) {
  std::vector<std::string> out;
  if (!o.has("contact_points")) return out;
  const std::string path = o.path_of("contact_points");
  const jsonin::Json& arr = jsonin::as_array(o.at("contact_points"), path);
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string p = jsonin::index_path(path, i);
    std::string id = jsonin::as_string(arr[i], p);
    if (ctx.topology != nullptr && !ctx.topology->node_index(id)) {
      std::vector<std::string> ids;
      for (const NodeSpec& n : ctx.topology->nodes) ids.push_back(n.id);
      jsonin::fail(p, fmt::format("unknown node '{}'; valid: {}", id, jsonin::join(ids)));
    }
    if (std::find(out.begin(), out.end(), id) != out.end())
      jsonin::fail(p, fmt::format("node '{}' is listed twice (the driver resolves each contact point once)", id));
    out.push_back(std::move(id));
  }
  return out;
}

std::uint32_t resolve_dc(const Topology& topo, const std::optional<std::string>& name) {
  if (!name) return topo.size() == 0 ? kNoDc : topo.node_dc[0];
  const auto d = topo.dc_index(*name);
  return d ? *d : kNoDc;
}

std::unique_ptr<Policy> make_required_child(const jsonin::Object& o, const BuildContext& ctx, std::string_view parent) {
  if (!o.has("child"))
    jsonin::fail(o.path_of("child"), "required field is missing (the wrapped policy, e.g. {\"type\": \"DCAwareRoundRobin\"})");
  return make_child_policy(o.at("child"), o.path_of("child"), ctx, parent);
}

}  // namespace lbsim::policy
