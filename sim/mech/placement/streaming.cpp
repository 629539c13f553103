// The streaming stage of a tablet migration (issue 35; tablets.hpp): which replicas send, how
// fast, and the CPU it costs.
// - Streams. A migration streams its tablet from the leaving replica to the pending one. A
//   leaving replica on a dead node (removenode) is rebuilt from every live replica of the tablet:
//   one stream from each. Before ScyllaDB's repair-based rebuild (PlacementRules::rebuild_repair) each
//   sends the whole tablet (scylladb/scylladb service/storage_service.cc stream_tablet at
//   scylla-2025.1.0: a range_streamer source per read_from replica); with it (rebuild_v2, stage
//   rebuild_repair) each live replica reads its whole copy and the new replica receives the tablet
//   once, a 1/k share from each of the k (locator/tablets.cc get_migration_streaming_info: read_from
//   the live replicas, written_to them and the pending one).
// - Without a streaming cost (PlacementSpec::stream_cost() false) the streaming lasts
//   the tablet's size (tablet_mb(): the table's over the current count) / stream_mb_s, whatever
//   the streams, and costs nothing else; its data counts as moving evenly over that time.
// - With one, each stream moves in chunks. A chunk's pace is its size over the stream's rate: the
//   max-min fair share of every node's bandwidth (changes.migration.node_stream_mb_s, sent and
//   received together, as ScyllaDB's stream_io_throughput_mb_per_sec throttles a node's streaming
//   I/O), capped by stream_mb_s; rates are recomputed whenever a stream starts or ends. A chunk also
//   puts CPU work (cpu_send_us_per_mb, cpu_receive_us_per_mb) in the FIFO queues of the sending and
//   the receiving tablet shard, where requests wait behind it; the next chunk goes once the pace
//   allows and both shards have processed the chunk, so a stream whose shard is busy slows down.
//   A chunk holds at most 0.5 ms of CPU on either side, ScyllaDB's Seastar task quota
//   (scylladb/scylladb main.cc sets reactor_opts.task_quota_ms to 0.5 in release builds), after
//   which a streaming task yields to queued requests: the closest a FIFO queue comes to Seastar's
//   preemption. ScyllaDB gives
//   streaming its own scheduling group (200 shares against the statements' 1000: main.cc); lbsim's
//   FIFO queues have no shares, so a stream takes all the CPU requests leave and at most one chunk
//   at a time.
// Nothing here runs in a run without topology changes; without a streaming cost no event is added.
#include <algorithm>
#include <limits>

#include "sim/engine/sim_impl.hpp"
#include "sim/mech/placement/tablets.hpp"

namespace lbsim {

namespace {
constexpr double kChunkCpuUs = 500;   // ScyllaDB's task quota (0.5 ms)
constexpr double kChunkMbNoCpu = 1.0;  // chunk size when streams cost no CPU: pacing granularity only
}  // namespace

void TabletPlacement::stream_node_change(NodeId n, int delta) {
  if (node_streams_[n] > 0) node_stream_time_[n] += core_.now_ - node_stream_since_[n];
  node_streams_[n] = static_cast<std::uint32_t>(static_cast<int>(node_streams_[n]) + delta);
  node_stream_since_[n] = core_.now_;
}

SimTime TabletPlacement::stream_time_at(NodeId n, SimTime t) const {
  return node_stream_time_[n] + (node_streams_[n] > 0 ? t - node_stream_since_[n] : 0);
}

void TabletPlacement::start_streaming(std::uint32_t slot) {
  Migration& m = migs_[slot];
  m.stage = MigStage::Streaming;
  const PlacementSpec& ch = ps_;
  const double size = tablet_mb();  // the current tablet's size: a split halves it
  std::array<TabletReplica, 64> src{};
  std::size_t k = 0;
  const bool rebuild = !core_.nodes_.up(m.m.from.host);
  if (rebuild) {
    for (const TabletReplica& r : tmap_.replicas(m.m.tablet))
      if (!(r == m.m.from) && core_.nodes_.up(r.host) && k < src.size()) src[k++] = r;
  } else {
    src[k++] = m.m.from;
  }
  const bool chunked = ch.stream_cost();
  m.streams_left = 0;
  for (std::size_t i = 0; i < k; ++i) {
    std::uint32_t id;
    if (!free_streams_.empty()) {
      id = free_streams_.back();
      free_streams_.pop_back();
    } else {
      id = static_cast<std::uint32_t>(streams_.size());
      streams_.emplace_back();
    }
    Stream& st = streams_[id];
    st = Stream{};
    st.mig = slot;
    st.src = src[i];
    st.dst = m.m.to;
    // Repair-based rebuild: each source reads its whole copy, the new replica gets 1/k from each.
    const bool repair = rebuild && pr_.rebuild_repair;
    st.net_mb = repair ? size / static_cast<double>(k) : size;
    st.left_mb = st.net_mb;
    const double read_mb = size;
    st.send_us_per_mb = st.net_mb > 0 ? ch.cpu_send_us_per_mb * read_mb / st.net_mb : 0;
    st.recv_us_per_mb = ch.cpu_receive_us_per_mb;
    const double worst = std::max(st.send_us_per_mb, st.recv_us_per_mb);
    st.chunk_mb = worst > 0 ? kChunkCpuUs / worst : kChunkMbNoCpu;
    st.active = true;
    st.chunked = chunked;
    ++m.streams_left;
    stream_node_change(st.src.host, +1);
    if (st.dst.host != st.src.host) stream_node_change(st.dst.host, +1);
  }
  if (!chunked) {
    // The fixed time: on_migration ends the streams (streaming_done); until then their data counts
    // pro rata (streamed_mb), so a window that ends mid-stream reports what moved.
    const SimTime t = static_cast<SimTime>(size / ch.stream_mb_s * 1e9 + 0.5);
    const SimTime now = core_.now_;
    for (std::uint32_t i = 0; i < streams_.size(); ++i)
      if (streams_[i].active && streams_[i].mig == slot) streams_[i].start = now, streams_[i].end = now + t;
    push(core_.now_ + t, kMigration, slot);
    return;
  }
  if (m.streams_left == 0 || size <= 0) {
    // Nothing to send (or no live source): the streaming ends at once.
    for (std::uint32_t i = 0; i < streams_.size(); ++i)
      if (streams_[i].active && streams_[i].mig == slot) streams_[i].left_mb = 0;
    streaming_done(slot);
    return;
  }
  assign_stream_rates();
  for (std::uint32_t i = 0; i < streams_.size(); ++i)
    if (streams_[i].active && streams_[i].mig == slot) on_stream_chunk(i);
}

std::vector<double> TabletPlacement::streamed_mb(bool sent) const {
  std::vector<double> mb = sent ? node_sent_mb_ : node_recv_mb_;
  for (const Stream& st : streams_) {
    if (!st.active || st.chunked || st.end <= st.start) continue;
    const double span = static_cast<double>(st.end - st.start);
    const double f = std::clamp(static_cast<double>(core_.now_ - st.start) / span, 0.0, 1.0);
    mb[sent ? st.src.host : st.dst.host] += f * st.left_mb;
  }
  return mb;
}

void TabletPlacement::assign_stream_rates() {
  const PlacementSpec& ch = ps_;
  const double cap = ch.stream_mb_s;
  std::vector<std::uint32_t> live;
  for (std::uint32_t i = 0; i < streams_.size(); ++i)
    if (streams_[i].active && streams_[i].chunked) live.push_back(i);
  if (ch.node_stream_mb_s <= 0) {
    for (std::uint32_t i : live) streams_[i].rate = cap;
    return;
  }
  // Max-min fair (progressive filling): raise every unfrozen stream's rate together until a node
  // it uses is full or it reaches its own cap; freeze those; repeat.
  const double node_cap = ch.node_stream_mb_s;
  std::vector<NodeId> nodes;
  for (std::uint32_t i : live) {
    nodes.push_back(streams_[i].src.host);
    nodes.push_back(streams_[i].dst.host);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  auto at = [&](NodeId n) { return static_cast<std::size_t>(std::lower_bound(nodes.begin(), nodes.end(), n) - nodes.begin()); };
  std::vector<double> used(nodes.size(), 0);
  std::vector<std::uint8_t> frozen(live.size(), 0);
  for (std::uint32_t i : live) streams_[i].rate = 0;
  constexpr double kEps = 1e-9;
  for (std::size_t left = live.size(); left > 0;) {
    std::vector<std::uint32_t> users(nodes.size(), 0);
    for (std::size_t j = 0; j < live.size(); ++j)
      if (!frozen[j]) {
        const Stream& st = streams_[live[j]];
        ++users[at(st.src.host)];
        if (st.dst.host != st.src.host) ++users[at(st.dst.host)];
      }
    double step = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < live.size(); ++j)
      if (!frozen[j]) step = std::min(step, cap - streams_[live[j]].rate);
    for (std::size_t n = 0; n < nodes.size(); ++n)
      if (users[n] > 0) step = std::min(step, (node_cap - used[n]) / users[n]);
    step = std::max(step, 0.0);
    for (std::size_t j = 0; j < live.size(); ++j)
      if (!frozen[j]) {
        Stream& st = streams_[live[j]];
        st.rate += step;
        used[at(st.src.host)] += step;
        if (st.dst.host != st.src.host) used[at(st.dst.host)] += step;
      }
    for (std::size_t j = 0; j < live.size(); ++j)
      if (!frozen[j]) {
        const Stream& st = streams_[live[j]];
        if (st.rate >= cap - kEps || used[at(st.src.host)] >= node_cap - kEps ||
            used[at(st.dst.host)] >= node_cap - kEps) {
          frozen[j] = 1;
          --left;
        }
      }
  }
}

void TabletPlacement::on_stream_chunk(std::uint32_t id) {
  Stream& st = streams_[id];
  if (st.left_mb <= 0) {  // the last chunk's pace and CPU are over
    end_stream(id);
    return;
  }
  const double c = std::min(st.chunk_mb, st.left_mb);
  SimTime next = core_.now_ + static_cast<SimTime>(c / st.rate * 1e9 + 0.5);
  // The chunk's CPU on both tablet shards, queued behind (and ahead of) requests.
  if (st.send_us_per_mb > 0 && core_.nodes_.up(st.src.host))
    next = std::max(next, core_.nodes_.enqueue(st.src.host, st.src.shard, core_.now_, c * st.send_us_per_mb * 1e3));
  if (st.recv_us_per_mb > 0 && core_.nodes_.up(st.dst.host))
    next = std::max(next, core_.nodes_.enqueue(st.dst.host, st.dst.shard, core_.now_, c * st.recv_us_per_mb * 1e3));
  st.left_mb -= c;
  if (st.left_mb < 1e-9 * st.net_mb) st.left_mb = 0;
  node_sent_mb_[st.src.host] += c;
  node_recv_mb_[st.dst.host] += c;
  push(next, kStreamChunk, id);
}

void TabletPlacement::end_stream(std::uint32_t id) {
  Stream& st = streams_[id];
  st.active = false;
  stream_node_change(st.src.host, -1);
  if (st.dst.host != st.src.host) stream_node_change(st.dst.host, -1);
  free_streams_.push_back(id);
  const std::uint32_t slot = st.mig;
  if (st.chunked) assign_stream_rates();
  if (--migs_[slot].streams_left == 0) streaming_done(slot);
}

void TabletPlacement::streaming_done(std::uint32_t slot) {
  // Streams without chunks (the fixed time) end together now, their data counted at the end.
  for (std::uint32_t i = 0; i < streams_.size(); ++i) {
    Stream& st = streams_[i];
    if (!st.active || st.mig != slot) continue;
    node_sent_mb_[st.src.host] += st.left_mb;
    node_recv_mb_[st.dst.host] += st.left_mb;
    st.left_mb = 0;
    st.active = false;
    stream_node_change(st.src.host, -1);
    if (st.dst.host != st.src.host) stream_node_change(st.dst.host, -1);
    free_streams_.push_back(i);
  }
  Migration& m = migs_[slot];
  m.streams_left = 0;
  m.stage = MigStage::WriteBothReadNew;
  const SimTime latency = ps_.migration_latency;
  if (pr_.stages) {
    push(core_.now_ + latency / 5, kMigration, slot);
    rebalance();  // the migration's slots are free: the balancer may start others now
  } else {
    push(core_.now_ + latency - latency / 2, kMigration, slot);
  }
}

}  // namespace lbsim
