// The readers of `lbsim fit`: each file's format is recognised from its content, then parsed into
// latency samples and observations (sample.hpp). Malformed input throws ConfigError "FILE:LINE"
// naming the expected format. Formats and their sources:
//   HdrHistogram interval log   hlog_reader.hpp (cassandra-stress, cql-stress, scylla-bench, latte)
//   Prometheus text             a ScyllaDB node's /metrics (port 9180): the latency histograms and
//                               summaries, reactor utilization, scheduler runtime, replica operation
//                               counts, cache counters, cross-shard and outside-replica-set counters
//                               (metric names: scylladb/scylladb service/storage_proxy.cc,
//                               replica/table.cc, replica/database.cc, db/cache_tracker / row_cache.cc;
//                               seastar reactor.cc, scheduling groups)
//   nodetool proxyhistograms    apache/cassandra tools/nodetool/ProxyHistograms.java (0550b3a5b7)
//   nodetool tablehistograms    apache/cassandra tools/nodetool/TableHistograms.java (cfhistograms)
//   nodetool tpstats            apache/cassandra tools/nodetool/stats/TpStatsPrinter.java: pools, then
//                               dropped messages with or without "Latency waiting in queue"
//   nodetool info               its cache lines (Key, Row, Counter, Chunk Cache)
//   JMX histogram arrays        a jmxterm-style dump of a histogram MBean's values() or
//                               getRecentValues() (Cassandra's EstimatedHistogram buckets; layouts.hpp)
#pragma once
#include <string>

#include "sim/fit/sample.hpp"

namespace lbsim::fit {

// The format names parse_text recognises, for messages: hlog, prometheus, proxyhistograms,
// tablehistograms, tpstats, info, jmx.
std::string detect_format(const std::string& text);

// Parses `text` (read from `file`, which names the samples and errors). ConfigError when the format
// is not recognised or a line is malformed.
Parsed parse_text(const std::string& file, const std::string& text);

Parsed parse_prometheus(const std::string& file, const std::string& text);
Parsed parse_nodetool(const std::string& file, const std::string& text, const std::string& format);
Parsed parse_jmx(const std::string& file, const std::string& text);
Parsed parse_hlog(const std::string& file, const std::string& text);

}  // namespace lbsim::fit
