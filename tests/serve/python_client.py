#!/usr/bin/python3
# A real driver against `lbsim serve` (tests/serve_drivers_test.cpp): the DataStax Python driver
# 3.25 (Debian's python3-cassandra) with its token-aware default, TokenAwarePolicy over
# DCAwareRoundRobinPolicy (datastax/python-driver cassandra/cluster.py, Cluster's default
# load_balancing_policy). It connects to the first node only, so that the rest comes from
# discovery, then sends N prepared statements (half reads, half writes, random 8-byte keys) and
# prints, as JSON: the hosts and keyspaces it discovered, the requests each host coordinated
# (ResponseFuture's host: the one that answered), how many of those hosts were not a replica of
# the key by the driver's own token map (Metadata.get_replicas), the failures, and the rate it
# sustained.
#
#   python_client.py ADDRESS PORT N SEED
import json
import logging
import random
import sys
import time

from cassandra import ConsistencyLevel
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import DCAwareRoundRobinPolicy, TokenAwarePolicy

logging.basicConfig(level=logging.ERROR)
address, port, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
profile = ExecutionProfile(load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy("dc1")),
                           consistency_level=ConsistencyLevel.LOCAL_ONE, request_timeout=10)
cluster = Cluster([address], port=port, protocol_version=4, connect_timeout=10,
                  execution_profiles={EXEC_PROFILE_DEFAULT: profile})
session = cluster.connect()
meta = cluster.metadata
out = {
    "hosts": sorted(h.endpoint.address for h in meta.all_hosts()),
    "racks": {h.endpoint.address: h.rack for h in meta.all_hosts()},
    "keyspaces": sorted(meta.keyspaces),
    "tables": sorted(meta.keyspaces["lbsim"].tables) if "lbsim" in meta.keyspaces else [],
}
select = session.prepare("SELECT value FROM lbsim.kv WHERE key = ?")
insert = session.prepare("INSERT INTO lbsim.kv (key, value) VALUES (?, ?)")
sent = {}
non_replica = 0
failures = 0
window = []


def drain():
    global non_replica, failures
    for future, key in window:
        try:
            future.result()
        except Exception:  # noqa: BLE001 - counted, and the run goes on
            failures += 1
            continue
        host = future._current_host  # the host whose answer completed the request
        sent[host.endpoint.address] = sent.get(host.endpoint.address, 0) + 1
        if host not in meta.get_replicas("lbsim", key):
            non_replica += 1
    window.clear()


started = time.monotonic()
for i in range(n):
    key = rng.getrandbits(64).to_bytes(8, "big")
    bound = select.bind((key,)) if i % 2 == 0 else insert.bind((key, b"v"))
    window.append((session.execute_async(bound), key))
    if len(window) >= 64:
        drain()
drain()
out.update({"sent": sent, "non_replica": non_replica, "failures": failures,
            "requests_per_s": n / (time.monotonic() - started)})
cluster.shutdown()
print(json.dumps(out))
