// The Node.js driver 4.10.0 against `lbsim serve` through a fault (tests/serve_faults_test.cpp):
// its default policy (TokenAwarePolicy over DCAwareRoundRobinPolicy, replicas shuffled), a
// prepared read of a random 8-byte key every PERIOD_MS for SECONDS. Prints one JSON document: per
// request its send and completion times (process.hrtime.bigint, CLOCK_MONOTONIC like serve.json's
// started_steady_ns), its key, the host that answered ("" on failure) and the error's name; and
// the driver's own host up/down events with their times.
//
//   node nodejs_timeline.js DRIVER_DIR ADDRESS PORT SECONDS PERIOD_MS SEED [HEARTBEAT_MS READ_TIMEOUT_MS]
//
// HEARTBEAT_MS sets pooling.heartBeatInterval and READ_TIMEOUT_MS socketOptions.readTimeout (the
// defaults: 30,000 and 12,000).
'use strict';
const [driverDir, address, port, seconds, periodMs, seed, heartbeatMs, readTimeoutMs] = process.argv.slice(2);
const cassandra = require(driverDir);

let state = (Number(seed) >>> 0) || 1;
function next32() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state;
}
const now = () => process.hrtime.bigint().toString();

async function main() {
  const client = new cassandra.Client({
    contactPoints: [address],
    localDataCenter: 'dc1',
    protocolOptions: { port: Number(port), maxVersion: 4 },
    queryOptions: { consistency: cassandra.types.consistencies.localOne, prepare: true },
    ...(heartbeatMs ? { pooling: { heartBeatInterval: Number(heartbeatMs) } } : {}),
    ...(readTimeoutMs ? { socketOptions: { readTimeout: Number(readTimeoutMs) } } : {}),
  });
  const changes = [];
  client.on('hostUp', (h) => changes.push([now(), h.address.split(':')[0], 'up']));
  client.on('hostDown', (h) => changes.push([now(), h.address.split(':')[0], 'down']));
  await client.connect();
  const query = 'SELECT value FROM lbsim.kv WHERE key = ?';
  const requests = [];
  const pending = [];
  const start = process.hrtime.bigint();
  const n = Math.floor((Number(seconds) * 1000) / Number(periodMs));
  for (let i = 0; i < n; i++) {
    const due = start + BigInt(Math.round(i * Number(periodMs) * 1e6));
    const wait = Number(due - process.hrtime.bigint()) / 1e6;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const key = Buffer.alloc(8);
    key.writeUInt32BE(next32(), 0);
    key.writeUInt32BE(next32(), 4);
    const entry = { sent: now(), key: key.toString('hex') };
    pending.push(client.execute(query, [key], { prepare: true }).then(
      (rs) => { entry.done = now(); entry.host = rs.info.queriedHost.split(':')[0]; entry.error = ''; requests.push(entry); },
      (e) => { entry.done = now(); entry.host = ''; entry.error = e.name || 'Error'; requests.push(entry); }));
  }
  await Promise.all(pending);
  await client.shutdown();
  // Times as numbers of ns (exact below 2^53 ns, about 104 days of uptime).
  for (const r of requests) { r.sent = Number(r.sent); r.done = Number(r.done); }
  for (const c of changes) c[0] = Number(c[0]);
  console.log(JSON.stringify({ requests, changes, sent: n }));
}
main().catch((e) => { console.error(e); process.exit(1); });
