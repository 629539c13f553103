// A load generator for `lbsim serve`'s throughput and lag (docs/performance.md): the Node.js
// driver 4.10.0 with its default policy, prepared reads of random keys of lbsim.kv at LOCAL_ONE.
// With RATE 0 it is a closed loop of CONCURRENCY requests in flight (the most the pair sustains);
// with RATE > 0 it issues RATE requests per second on a fixed schedule (up to CONCURRENCY in
// flight; a request due while all are busy waits). After SECONDS it prints, as JSON, the requests
// completed per second, the failures, and the client's own latency p50 and p99 in ms.
//
//   node nodejs_load.js DRIVER_DIR ADDRESS PORT SECONDS CONCURRENCY RATE
'use strict';
const [driverDir, address, port, seconds, concurrency, rate] = process.argv.slice(2);
const cassandra = require(driverDir);

async function main() {
  const client = new cassandra.Client({
    contactPoints: [address],
    localDataCenter: 'dc1',
    protocolOptions: { port: Number(port), maxVersion: 4 },
    queryOptions: { consistency: cassandra.types.consistencies.localOne, prepare: true },
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1 } },
  });
  await client.connect();
  const query = 'SELECT value FROM lbsim.kv WHERE key = ?';
  const key = Buffer.alloc(8);
  await client.execute(query, [key], { prepare: true });
  const latencies = [];
  let done = 0;
  let failures = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(Number(seconds) * 1e9));
  const period = Number(rate) > 0 ? 1e9 / Number(rate) : 0;
  let issued = 0;
  async function worker() {
    for (;;) {
      let now = process.hrtime.bigint();
      if (now >= end) return;
      if (period > 0) {
        const due = start + BigInt(Math.round(issued * period));
        issued++;
        if (due > now) await new Promise((r) => setTimeout(r, Number(due - now) / 1e6));
        now = process.hrtime.bigint();
        if (now >= end) return;
      }
      const k = Buffer.alloc(8);
      k.writeUInt32BE((Math.random() * 4294967296) >>> 0, 0);
      k.writeUInt32BE((Math.random() * 4294967296) >>> 0, 4);
      const t0 = process.hrtime.bigint();
      try {
        await client.execute(query, [k], { prepare: true });
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        done++;
      } catch (e) {
        failures++;
      }
    }
  }
  await Promise.all(Array.from({ length: Number(concurrency) }, worker));
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const q = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : 0);
  await client.shutdown();
  console.log(JSON.stringify({ requests_per_s: done / wall, done, failures, p50_ms: q(0.5), p99_ms: q(0.99) }));
}
main().catch((e) => { console.error(e); process.exit(1); });
