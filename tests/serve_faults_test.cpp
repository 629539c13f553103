// A scenario's faults as a real driver sees them through `lbsim serve` (issue 46): the Python
// driver 3.25 (tests/serve/python_timeline.py, TokenAwarePolicy over DCAwareRoundRobinPolicy,
// unshuffled: a key's requests go to its first replica while it is up) sends a read every 2 ms on
// configs/serve.json. The times are the steady clock's (serve.json's started_steady_ns is the
// simulation's time 0), so the driver's log and the fault line up to the microsecond.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "serve_test_util.hpp"
#include "sim/cluster/murmur3.hpp"
#include "sim/serve/cql_wire.hpp"
#include "test_files.hpp"

namespace lbsim {
namespace {

using nlohmann::json;
const std::string kServeFile = std::string(LBSIM_SOURCE_DIR) + "/configs/serve.json";

std::string capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

struct Request {
  double sent_s, done_s;  // since the simulation's start
  NodeId first;           // the key's first replica (the driver's plan's first host)
  NodeId host;            // who answered (kNoNode: it failed)
};

// kill n2 at 3 s for 3 s: the driver sees its connections close at 3 s and the node refuse new
// ones until 6 s. It must stop sending to n2 at once (n2's keys go to their next replica), and take
// n2 back after it returns (its reconnection policy: exponential from 1 s).
TEST(ServePythonDriverFaults, AKilledNodeIsLeftAtOnceAndTakenBackAfterItReturns) {
  if (testing_files::shell("/usr/bin/python3 -c 'import cassandra.cluster' 2>/dev/null") != 0)
    GTEST_SKIP() << "Debian's python3-cassandra is missing: scripts/deps.sh test installs it";
  const Scenario sc =
      load_scenario(kServeFile, {R"(faults.events=[{"at_s": 3, "node": "n2", "kind": "kill", "duration_s": 3}])"});
  serve::ServeOptions opt;
  opt.address = "127.0.9.1";
  opt.port = 19642;
  testing::ServeThread server(sc, "python", opt);
  const std::string out = capture(fmt::format("/usr/bin/python3 '{}/tests/serve/python_timeline.py' {} {} 9 2 11 2>&1",
                                              LBSIM_SOURCE_DIR, opt.address, opt.port));
  const auto& report = server.stop();
  const auto brace = out.find("{\"requests\"");
  ASSERT_NE(brace, std::string::npos) << "the Python client failed:\n" << out;
  const json client = json::parse(out.substr(brace));
  const double origin = report["serve"]["started_steady_ns"].get<double>();
  const std::uint32_t base = *cql::parse_ipv4(opt.address);
  const TokenRing& ring = sc.placement();
  std::vector<Request> reqs;
  for (const auto& r : client["requests"]) {
    const std::string hex = r["key"].get<std::string>();
    cql::Bytes key;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
      key.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    Request q;
    q.sent_s = (r["sent"].get<double>() - origin) / 1e9;
    q.done_s = (r["done"].get<double>() - origin) / 1e9;
    q.first = ring.owner(murmur3_token(key));
    const std::string h = r["host"].get<std::string>();
    q.host = h.empty() ? kNoNode : static_cast<NodeId>(*cql::parse_ipv4(h) - base);
    reqs.push_back(q);
  }
  ASSERT_GT(reqs.size(), 3000u);
  constexpr NodeId n2 = 1;
  int before = 0, during = 0, failed = 0, elsewhere = 0, after = 0;
  double first_elsewhere = std::numeric_limits<double>::infinity(), back = first_elsewhere;
  for (const Request& q : reqs) {
    if (q.host == kNoNode) {
      ++failed;
      continue;
    }
    if (q.first != n2) continue;
    if (q.done_s < 3) before += q.host == n2;
    if (q.sent_s > 3.001 && q.sent_s < 6) during += q.host == n2;
    if (q.sent_s > 3 && q.sent_s < 6 && q.host != n2) {
      ++elsewhere;
      first_elsewhere = std::min(first_elsewhere, q.done_s);
    }
    if (q.sent_s > 6 && q.host == n2) {
      ++after;
      back = std::min(back, q.done_s);
    }
  }
  std::printf("n2's keys: %d answered by n2 before the kill, %d during it, %d elsewhere during it (the first %.1f ms "
              "after the kill), n2 back %.3f s after its return (%d after it); %d failed of %zu\n",
              before, during, elsewhere, (first_elsewhere - 3) * 1e3, back - 6, after, failed, reqs.size());
  ::testing::Test::RecordProperty("first_request_elsewhere_ms", fmt::format("{:.1f}", (first_elsewhere - 3) * 1e3));
  ::testing::Test::RecordProperty("back_after_return_s", fmt::format("{:.3f}", back - 6));
  EXPECT_GT(before, 100);
  EXPECT_EQ(during, 0) << "the driver sent to the killed node";
  EXPECT_GT(elsewhere, 100);
  EXPECT_LT(first_elsewhere - 3, 0.1) << "the driver should leave a node whose sockets closed at once";
  EXPECT_GT(after, 0) << "the driver never took n2 back";
  EXPECT_LT(back - 6, 2.5) << "reconnection: exponential from 1 s, then STATUS_CHANGE UP at 1 s";
  // The requests in flight on n2's connections at the kill may fail; nothing else does.
  EXPECT_LE(failed, 5);
  EXPECT_EQ(report["serve"]["connections"]["closed_by_faults"].get<int>() > 0, true);
  // The driver's own listener saw n2 go down at the kill.
  double down_at = -1;
  for (const auto& c : client["changes"])
    if (c[1].get<std::string>() == cql::ipv4_text(base + n2) && c[2].get<std::string>() == "down" && down_at < 0)
      down_at = (c[0].get<double>() - origin) / 1e9;
  EXPECT_GE(down_at, 3);
  EXPECT_LT(down_at, 3.1);
}

}  // namespace
}  // namespace lbsim
