// A real driver against `lbsim serve` (tests/serve_drivers_test.cpp): the DataStax Node.js driver
// 4.10.0 (npm cassandra-driver) with its default policy, TokenAwarePolicy over
// DCAwareRoundRobinPolicy (datastax/nodejs-driver lib/policies/index.js, defaultLoadBalancingPolicy).
// It connects to the first node only, then sends N prepared statements (half reads, half writes,
// random 8-byte keys from a seeded generator) with CONCURRENCY in flight, and prints, as JSON: the
// hosts and keyspaces it discovered, the requests each host coordinated (ResultSet.info.queriedHost),
// how many of those were not a replica of the key by the driver's own metadata
// (Metadata.getReplicas), and the failures. IDEMPOTENT "1" marks every statement idempotent
// (QueryOptions isIdempotent; the driver's default is false).
//
//   node nodejs_client.js DRIVER_DIR ADDRESS PORT N SEED CONCURRENCY [IDEMPOTENT]
'use strict';
const [driverDir, address, port, n, seed, concurrency, idempotent] = process.argv.slice(2);
const cassandra = require(driverDir);

// xorshift32: the same keys on every run of a seed.
let state = (Number(seed) >>> 0) || 1;
function next32() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state;
}
function key() {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(next32(), 0);
  b.writeUInt32BE(next32(), 4);
  return b;
}

async function main() {
  const client = new cassandra.Client({
    contactPoints: [address],
    localDataCenter: 'dc1',
    protocolOptions: { port: Number(port), maxVersion: 4 },
    socketOptions: { connectTimeout: 10000, readTimeout: 10000 },
    queryOptions: { consistency: cassandra.types.consistencies.localOne, prepare: true, isIdempotent: idempotent === '1' },
  });
  await client.connect();
  const meta = client.metadata;
  const hosts = client.hosts.values();
  const out = {
    hosts: hosts.map((h) => h.address.split(':')[0]).sort(),
    racks: Object.fromEntries(hosts.map((h) => [h.address.split(':')[0], h.rack])),
    keyspaces: Object.keys(meta.keyspaces).sort(),
  };
  const sent = {};
  let nonReplica = 0;
  let failures = 0;
  const total = Number(n);
  let issued = 0;
  async function worker() {
    while (issued < total) {
      const i = issued++;
      const k = key();
      try {
        const rs = i % 2 === 0
          ? await client.execute('SELECT value FROM lbsim.kv WHERE key = ?', [k], { prepare: true })
          : await client.execute('INSERT INTO lbsim.kv (key, value) VALUES (?, ?)', [k, Buffer.from('v')], { prepare: true });
        const host = rs.info.queriedHost.split(':')[0];
        sent[host] = (sent[host] || 0) + 1;
        const replicas = meta.getReplicas('lbsim', k).map((h) => h.address.split(':')[0]);
        if (!replicas.includes(host)) nonReplica++;
      } catch (e) {
        failures++;
      }
    }
  }
  await Promise.all(Array.from({ length: Number(concurrency) }, worker));
  out.sent = sent;
  out.non_replica = nonReplica;
  out.failures = failures;
  await client.shutdown();
  console.log(JSON.stringify(out));
}
main().catch((e) => { console.error(e); process.exit(1); });
