#!/usr/bin/python3
"""What the DataStax Python driver computes for an lbsim topology file.

Used by tests/python_driver_test.cpp as an independent oracle: every answer
below comes from the driver's own code (Debian's python3-cassandra, 3.25 on
Debian 12), none from lbsim:

  routing key of a composite key   cassandra.query.Statement.routing_key setter
  token of a routing key           cassandra.metadata.Murmur3Token.from_key
  ring and replica map             cassandra.metadata.Metadata.rebuild_token_map,
                                   KeyspaceMetadata -> ReplicationStrategy.create,
                                   TokenMap.get_replicas
  (datastax/python-driver, cassandra/metadata.py and cassandra/query.py)

Usage: ring_answers.py TOPOLOGY.json > ANSWERS.json

The input is lbsim's topology file (sim/config/topology_file.hpp): "nodes"
with id, dc, rack and tokens; "keyspace" with class and rf; optional "keys"
(hex strings, or lists of hex components) and "tokens" (decimal strings).

The output has, in input order, "keys": [{"routing_key", "token",
"replicas"}] and "tokens": [{"replicas"}], replicas as node ids in the
driver's order, plus "dc_order": the datacenters in the order the driver
groups NetworkTopologyStrategy replicas (the order in which they first own a
token on the sorted ring), and "driver": the driver's version.

Exit status 3 when the driver cannot be imported.
"""

import json
import sys

try:
    import cassandra
    from cassandra.connection import DefaultEndPoint
    from cassandra.metadata import KeyspaceMetadata, Metadata, Murmur3Token
    from cassandra.policies import SimpleConvictionPolicy
    from cassandra.pool import Host
    from cassandra.query import SimpleStatement
except ImportError as exc:
    sys.stderr.write("ring_answers.py: the DataStax Python driver is missing (%s); "
                     "install Debian's python3-cassandra and run this with /usr/bin/python3\n" % exc)
    sys.exit(3)

KEYSPACE = "lbsim_check"


def strategy_options(keyspace):
    cls = keyspace["class"].rsplit(".", 1)[-1]
    rf = keyspace["rf"]
    if cls == "SimpleStrategy":
        return cls, {"replication_factor": str(rf)}
    return cls, {dc: str(n) for dc, n in rf.items()}


def main(path):
    with open(path) as f:
        doc = json.load(f)

    # One Host per node; the driver keys its maps by Host, so the address only
    # has to be unique.
    host_tokens = {}
    id_of = {}
    for i, node in enumerate(doc["nodes"]):
        host = Host(DefaultEndPoint("127.1.%d.%d" % (i // 250, i % 250 + 1)),
                    SimpleConvictionPolicy, datacenter=node["dc"], rack=node["rack"])
        host_tokens[host] = [str(t) for t in node["tokens"]]
        id_of[host] = node["id"]

    metadata = Metadata()
    metadata.rebuild_token_map("org.apache.cassandra.dht.Murmur3Partitioner", host_tokens)
    cls, options = strategy_options(doc["keyspace"])
    metadata.keyspaces[KEYSPACE] = KeyspaceMetadata(KEYSPACE, True, cls, options)
    token_map = metadata.token_map

    dc_order = []
    for token in token_map.ring:
        dc = token_map.token_to_host_owner[token].datacenter
        if dc not in dc_order:
            dc_order.append(dc)

    keys = []
    for key in doc.get("keys", []):
        statement = SimpleStatement("")
        if isinstance(key, list):
            statement.routing_key = [bytes.fromhex(part) for part in key]
        else:
            statement.routing_key = bytes.fromhex(key)
        routing_key = statement.routing_key
        keys.append({
            "routing_key": routing_key.hex(),
            "token": str(Murmur3Token.from_key(routing_key).value),
            "replicas": [id_of[h] for h in metadata.get_replicas(KEYSPACE, routing_key)],
        })

    tokens = []
    for t in doc.get("tokens", []):
        replicas = token_map.get_replicas(KEYSPACE, Murmur3Token(int(t)))
        tokens.append({"replicas": [id_of[h] for h in replicas]})

    json.dump({"driver": cassandra.__version__, "dc_order": dc_order, "keys": keys,
               "tokens": tokens}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: ring_answers.py TOPOLOGY.json\n")
        sys.exit(2)
    main(sys.argv[1])
