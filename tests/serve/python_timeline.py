#!/usr/bin/python3
# The Python driver 3.25 against `lbsim serve` through a fault (tests/serve_faults_test.cpp):
# TokenAwarePolicy(DCAwareRoundRobinPolicy("dc1")), as python_client.py, sending a prepared read of
# a random 8-byte key every PERIOD_MS for SECONDS, asynchronously. Prints one JSON document: per
# request its send and completion times (time.monotonic_ns, the clock of serve.json's
# started_steady_ns), its key, the host that answered (or "" on failure) and the error's class
# name; the driver's own host changes (add, remove, up, down) with their times (a
# HostStateListener); and the hosts it knows at the end.
#
#   python_timeline.py ADDRESS PORT SECONDS PERIOD_MS SEED [HEARTBEAT_S [REFRESH_WINDOW_S]]
#
# HEARTBEAT_S sets idle_heartbeat_interval and idle_heartbeat_timeout (0: the defaults);
# REFRESH_WINDOW_S sets topology_event_refresh_window and status_event_refresh_window (how long
# the driver waits after a TOPOLOGY_CHANGE or STATUS_CHANGE event before it reads system.peers).
import json
import logging
import random
import sys
import threading
import time

from cassandra import ConsistencyLevel
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import DCAwareRoundRobinPolicy, HostStateListener, TokenAwarePolicy

logging.basicConfig(level=logging.CRITICAL)
address, port, seconds, period_ms, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
heartbeat = float(sys.argv[6]) if len(sys.argv) > 6 and float(sys.argv[6]) > 0 else None
refresh = float(sys.argv[7]) if len(sys.argv) > 7 else None
rng = random.Random(seed)
profile = ExecutionProfile(load_balancing_policy=TokenAwarePolicy(DCAwareRoundRobinPolicy("dc1")),
                           consistency_level=ConsistencyLevel.LOCAL_ONE, request_timeout=10)
kwargs = {}
if heartbeat is not None:
    kwargs.update({"idle_heartbeat_interval": heartbeat, "idle_heartbeat_timeout": heartbeat})
if refresh is not None:
    kwargs.update({"topology_event_refresh_window": refresh, "status_event_refresh_window": refresh})
cluster = Cluster([address], port=port, protocol_version=4, connect_timeout=10,
                  execution_profiles={EXEC_PROFILE_DEFAULT: profile}, **kwargs)
changes = []


class Listener(HostStateListener):
    def on_add(self, host):
        changes.append([time.monotonic_ns(), host.endpoint.address, "add"])

    def on_remove(self, host):
        changes.append([time.monotonic_ns(), host.endpoint.address, "remove"])

    def on_up(self, host):
        changes.append([time.monotonic_ns(), host.endpoint.address, "up"])

    def on_down(self, host):
        changes.append([time.monotonic_ns(), host.endpoint.address, "down"])


cluster.register_listener(Listener())
session = cluster.connect()
select = session.prepare("SELECT value FROM lbsim.kv WHERE key = ?")
lock = threading.Lock()
requests = []


def record(entry, future, ok, err):
    entry["done"] = time.monotonic_ns()
    entry["host"] = future._current_host.endpoint.address if ok and future._current_host else ""
    entry["error"] = "" if ok else type(err).__name__
    with lock:
        requests.append(entry)


start = time.monotonic()
futures = []
i = 0
while time.monotonic() - start < seconds:
    key = rng.getrandbits(64).to_bytes(8, "big")
    entry = {"sent": time.monotonic_ns(), "key": key.hex()}
    f = session.execute_async(select.bind((key,)))
    f.add_callbacks(lambda _, e=entry, fu=f: record(e, fu, True, None),
                    lambda err, e=entry, fu=f: record(e, fu, False, err))
    futures.append(f)
    i += 1
    time.sleep(max(0.0, start + i * period_ms / 1000.0 - time.monotonic()))
deadline = time.monotonic() + 15
while time.monotonic() < deadline:
    with lock:
        if len(requests) == len(futures):
            break
    time.sleep(0.05)
hosts = sorted(h.endpoint.address for h in cluster.metadata.all_hosts())
cluster.shutdown()
with lock:
    print(json.dumps({"requests": requests, "changes": changes, "sent": len(futures), "hosts": hosts}))
