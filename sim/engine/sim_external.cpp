// Operations from outside the simulation (Simulation::external_*, issue 46): lbsim serve hands
// each request a real driver sent to a node's socket to the model as one attempt at that node,
// and runs the events on its own paced clock.
#include <chrono>

#include "sim/engine/sim_impl.hpp"

namespace lbsim {

namespace {
// The plan of an external operation: its coordinator, once (the real driver chose it and does its
// own retries elsewhere).
class OneHostPlan final : public policy::Plan {
 public:
  explicit OneHostPlan(policy::HostId host) : host_(host) {}
  policy::HostId next() override {
    const policy::HostId h = host_;
    host_ = policy::kNoHost;
    return h;
  }

 private:
  policy::HostId host_;
};

void on_external_end(void* self, std::uint32_t op, bool success, ErrorKind error) {
  auto& s = *static_cast<Simulation::Impl*>(self);
  if (!s.external_done_) return;
  std::shared_ptr<const RoutingHint> hint;
  if (!s.op_hint_.empty())
    if (auto it = s.op_hint_.find(op); it != s.op_hint_.end()) {
      hint = std::move(it->second);
      s.op_hint_.erase(it);
    }
  s.external_done_({s.op_tag_[op], success, error, s.now_ - s.ops_[op].start, s.op_received_[op], s.op_data_[op] != 0,
                    success ? std::move(hint) : nullptr});
}
// The coordinator's answer reaches its driver: what it had counted, for the error's fields.
void on_external_answer(void* self, std::uint32_t cr) {
  auto& s = *static_cast<Simulation::Impl*>(self);
  const auto& c = s.crs_[cr];
  const auto& at = s.attempts_[c.attempt];
  if (at.gen != c.attempt_gen || !at.alive) return;  // late: the operation is not this answer's any more
  s.op_received_[at.op] = c.got;
  s.op_data_[at.op] = c.kind == OpKind::Read && c.phase == 1 ? 1 : 0;
  if (c.payload && c.success && s.hooks_.routing_hint) {
    auto h = std::make_shared<RoutingHint>();
    s.hooks_.routing_hint(cr, *h);
    s.op_hint_[at.op] = std::move(h);
  }
}
void on_external_member(void* self, NodeId n, std::int8_t change) {
  auto& s = *static_cast<Simulation::Impl*>(self);
  if (s.external_topology_) s.external_topology_(n, change);
}
void on_external_closed(void* self, NodeId n) {
  auto& s = *static_cast<Simulation::Impl*>(self);
  if (s.external_topology_) s.external_topology_(n, 0);
}
}  // namespace

void Simulation::Impl::external_begin(Simulation::ExternalDone done, bool connection_shards) {
  external_done_ = std::move(done);
  ops_.add_column(op_tag_, std::uint64_t{0});
  ops_.add_column(op_received_, std::uint8_t{0});
  ops_.add_column(op_data_, std::uint8_t{0});
  hooks_.answer_received.add(this, &on_external_answer);
  if (connection_shards) {
    ops_.add_column(op_shard_, std::int32_t{-1});
    external_shards_ = true;
  }
  hooks_.op_ended.add(this, &on_external_end);
  hooked_ = true;  // the operations' ends are a hook point
  open_window();
  for (const auto& m : mechs_)  // the mechanisms' first events, in the list's order (as run())
    if (m) m->start();
}

void Simulation::Impl::external_submit(const ExternalOp& e) {
  ++issued_;
  const std::uint32_t id = ops_.alloc();
  if (id >= op_extra_.size()) op_extra_.emplace_back(plan_rng_);
  Op& op = ops_[id];
  op.start = now_;
  op.token = e.token;
  op.range = hooks_.op_range ? hooks_.op_range(e.token) : static_cast<std::uint32_t>(ring_.range_index(e.token));
  op.thread = kOpenLoop;
  op.rows = 1;
  op.kind = e.kind;
  op.cl = e.cl;
  op.routed = e.routed;
  ++in_flight_;
  OpExtra& x = begin_op_extra(id, 0, *loaders_[0]);
  op.plan = x.arena.make<OneHostPlan>(e.coordinator);
  op_tag_[id] = e.tag;
  if (external_shards_) op_shard_[id] = e.shard < static_cast<std::int32_t>(shards_) ? e.shard : -1;
  if (!send_attempt<true>(id, true)) finish_op<true>(id, false, ErrorKind::NoHostAvailable);
}

RunResult Simulation::Impl::external_end() {
  if (!window_closed_) close_window();
  external_done_ = nullptr;  // the operations still in flight end with the simulation, unanswered
  return finish_result(q_.next_seq(), 0, true);
}

void Simulation::external_begin(ExternalDone done, bool connection_shards) {
  impl_->external_begin(std::move(done), connection_shards);
}
SimTime Simulation::external_now() const { return impl_->now_; }
SimTime Simulation::external_next() const {
  return impl_->q_.empty() ? Impl::kNever : impl_->q_.next_time();
}
std::uint64_t Simulation::external_advance(SimTime until) { return impl_->external_advance(until); }
void Simulation::external_submit(const ExternalOp& op) { impl_->external_submit(op); }
RunResult Simulation::external_end() { return impl_->external_end(); }
void Simulation::external_on_topology(ExternalTopology f) {
  if (!impl_->external_topology_) {
    impl_->hooks_.member_changed.add(impl_.get(), &on_external_member);
    impl_->hooks_.connections_closed.add(impl_.get(), &on_external_closed);
  }
  impl_->external_topology_ = std::move(f);
}

}  // namespace lbsim
