#!/usr/bin/env node
// The live oracle for lbsim's Node.js policies (tests/policy_nodejs_test.cpp): runs the real
// cassandra-driver 4.10.0 policy and metadata code on a described cluster, without any server.
//
//   node lbsim_oracle.js <input.json>      prints one JSON object on stdout
//
// Input:
//   driver       path of the installed package (.../node_modules/cassandra-driver)
//   nodes        [{id, dc, rack, tokens: ["<int64 as decimal string>", ...]}], lbsim node order
//   replication  {class: "NetworkTopologyStrategy" | "SimpleStrategy", options: {dc1: "3"} |
//                {replication_factor: "3"}}
//   cases        a list of
//     {kind: "replicas", tokens: [...]}: Metadata.getReplicas("ks", token) for each token, as node
//       indexes; the map comes from the driver's own Metadata.buildTokens and keyspace mapper.
//     {kind: "plans", policy, random, replicas_from, requests}: one policy instance, one plan per
//       request, consumed as RequestHandler.getNextConnection does (hosts the policy calls IGNORED
//       or that are down are skipped), `take` hosts at most (all when absent); a host yielded
//       a second time is skipped too, as lbsim plans never repeat a host.
//       policy: {type: "DCAwareRoundRobin", local_dc} | {type: "TokenAware", child} |
//               {type: "Default", local_dc, filter?: [ids]} | {type: "AllowList", hosts: [ids], child}
//       random: {mode: "native"} or {mode: "replay", seed: "<uint64>"}: Math.random replays lbsim's
//         Rng(seed) stream (xoshiro256** seeded by splitmix64), value = (next_u64 >> 11) / 2^53, so
//         floor(Math.random() * n) equals lbsim's Rng::below(n) draw for draw.
//       replicas_from: "driver" (the driver's map) or "request" (each routed request lists them).
//       requests: [{token: "<int64>" | null (no routing key), replicas?: [idx], now_ms, take?,
//                   set?: [{host, up?, in_flight?, responses?, up_since_ms? (null clears)}]}]
//       `set` changes host state before the plan is made: isUp(), getInFlight(),
//       getResponseCount() and isUpSince of the fake hosts the policies read.
// Output: {cases: [{replicas: [[idx...]...]} | {plans: [[idx...]...]}]}
'use strict';

const fs = require('fs');
const path = require('path');

const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const D = input.driver;
const { HostMap } = require(path.join(D, 'lib/host.js'));
const Metadata = require(path.join(D, 'lib/metadata/index.js'));
const clientOptions = require(path.join(D, 'lib/client-options.js'));
const lb = require(path.join(D, 'lib/policies/load-balancing.js'));
const types = require(path.join(D, 'lib/types'));

// ---- lbsim's Rng (sim/core/rng.hpp), for the replayed Math.random -----------------------------
const M64 = (1n << 64n) - 1n;
function splitmix64(state) {
  state.v = (state.v + 0x9e3779b97f4a7c15n) & M64;
  let z = state.v;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
const rotl = (x, k) => ((x << BigInt(k)) | (x >> BigInt(64 - k))) & M64;
class LbsimRng {
  constructor(seed) {
    const st = { v: BigInt.asUintN(64, BigInt(seed)) };
    this.s = [splitmix64(st), splitmix64(st), splitmix64(st), splitmix64(st)];
  }
  nextU64() {
    const s = this.s;
    const result = (rotl((s[1] * 5n) & M64, 7) * 9n) & M64;
    const t = (s[1] << 17n) & M64;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
}
const nativeRandom = Math.random;
const nativeNow = Date.now;

// ---- the cluster --------------------------------------------------------------------------------
const options = clientOptions.extend({ contactPoints: ['127.0.0.1'] });
const metadata = new Metadata(options, null);
metadata.setPartitioner('org.apache.cassandra.dht.Murmur3Partitioner');
const hosts = new HostMap();
const hostList = input.nodes.map((n, i) => {
  const h = {
    address: n.id, datacenter: n.dc, rack: n.rack, tokens: n.tokens, index: i,
    up: true, inFlight: 0, responses: 0, isUpSince: null,
    isUp() { return this.up; },
    getInFlight() { return this.inFlight; },
    getResponseCount() { return this.responses; },
  };
  hosts.set(n.id, h);
  return h;
});
metadata.buildTokens(hosts);
const repl = input.replication;
const strategy = 'org.apache.cassandra.locator.' + repl.class;
metadata.keyspaces.ks = metadata._schemaParser._createKeyspace('ks', true, strategy, repl.options);
const tokenOf = (s) => metadata.tokenizer.parse(s);
const byId = new Map(hostList.map((h) => [h.address, h]));

function buildPolicy(spec) {
  switch (spec.type) {
    case 'DCAwareRoundRobin': return new lb.DCAwareRoundRobinPolicy(spec.local_dc);
    case 'TokenAware': return new lb.TokenAwarePolicy(buildPolicy(spec.child));
    case 'AllowList': return new lb.AllowListPolicy(buildPolicy(spec.child), spec.hosts);
    case 'Default': {
      const o = { localDc: spec.local_dc };
      if (spec.filter) {
        const allowed = new Set(spec.filter);
        o.filter = (h) => allowed.has(h.address);
      }
      return new lb.DefaultLoadBalancingPolicy(o);
    }
    default: throw new Error('unknown policy type ' + spec.type);
  }
}

function runPlans(c) {
  let requestReplicas = null;
  const client = {
    options: { localDataCenter: undefined },
    log() {},
    getReplicas(ks, key) {
      return c.replicas_from === 'request' ? requestReplicas : metadata.getReplicas(ks, key);
    },
  };
  const policy = buildPolicy(c.policy);
  let initError = null;
  policy.init(client, hosts, (err) => { initError = err; });
  if (initError) throw initError;
  let nowMs = 0;
  Date.now = () => nowMs;
  if (c.random.mode === 'replay') {
    const rng = new LbsimRng(c.random.seed);
    Math.random = () => Number(rng.nextU64() >> 11n) / 2 ** 53;
  }
  const plans = [];
  try {
    for (const r of c.requests) {
      for (const s of r.set || []) {
        const h = hostList[s.host];
        if (s.up !== undefined) h.up = s.up;
        if (s.in_flight !== undefined) h.inFlight = s.in_flight;
        if (s.responses !== undefined) h.responses = s.responses;
        if (s.up_since_ms !== undefined) h.isUpSince = s.up_since_ms;
      }
      nowMs = r.now_ms || 0;
      requestReplicas = r.replicas ? r.replicas.map((i) => hostList[i]) : null;
      const routingKey = r.token === null || r.token === undefined ? null : tokenOf(r.token);
      const execOptions = {
        getRoutingKey: () => routingKey,
        getKeyspace: () => 'ks',
        getPreferredHost: () => null,
      };
      let iterator = null;
      policy.newQueryPlan('ks', execOptions, (err, it) => {
        if (err) throw err;
        iterator = it;
      });
      // RequestHandler.getNextConnection: skip IGNORED and down hosts.
      const take = r.take === undefined || r.take === null ? Infinity : r.take;
      const plan = [];
      while (plan.length < take) {
        const item = iterator.next();
        if (item.done) break;
        const h = item.value;
        if (policy.getDistance(h) === types.distance.ignored || !h.isUp()) continue;
        // A host the plan yields again (the replica map can list one twice) is tried again: the
        // RequestHandler keeps no set of tried hosts (lib/request-handler.js getNextConnection).
        plan.push(h.index);
      }
      plans.push(plan);
    }
  } finally {
    Math.random = nativeRandom;
    Date.now = nativeNow;
  }
  return { plans };
}

function runReplicas(c) {
  return {
    replicas: c.tokens.map((t) => {
      const list = metadata.getReplicas('ks', tokenOf(t));
      return list ? list.map((h) => byId.get(h.address).index) : null;
    }),
  };
}

const out = { cases: input.cases.map((c) => (c.kind === 'replicas' ? runReplicas(c) : runPlans(c))) };
process.stdout.write(JSON.stringify(out) + '\n');
