// Reads HdrHistogram interval logs (".hlog", log format 1.2/1.3): cassandra-stress and cql-stress
// (`-log hdrfile=`, tags `<OP>-st`, `<OP>-rt`, `<OP>-wt`, nanoseconds: scylladb/cassandra-stress
// StressMetrics.java), scylla-bench (`-hdr-latency-file`, tags `raw`, `co-fixed`,
// `co-fixed-read`/`-write`, unit per `-hdr-latency-units`, nanoseconds by default), latte
// (`--hdrfile`, tags `fn--<function>`, nanoseconds) and lbsim's own `--hlog`/`--export`.
//
// Each line "[Tag=T,]start,length,max,BASE64" holds one interval's histogram in HdrHistogram's V2
// encoding (cookie 0x1c849313; compressed: cookie 0x1c849314, length, zlib of it), base64. The
// histogram header names its own layout (significant digits, lowest discernible value), so any
// writer's layout decodes; the V1 encodings (cookies 0x1c849301/2) are refused. Format facts are
// HdrHistogram's documented encoding (HdrHistogram/HdrHistogram AbstractHistogram.java
// encodeIntoByteBuffer, ZigZagEncoding.java); the code is lbsim's own (the writer is
// sim/metrics/hlog.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lbsim::fit {

// One decoded histogram: non-zero buckets as (lowest value, highest value + 1, count), in the
// log's units, in increasing order.
struct HdrBuckets {
  std::vector<std::int64_t> lo, hi;
  std::vector<std::uint64_t> count;
};

// Decodes one base64 V2 (compressed or not) histogram; throws std::runtime_error with the reason.
HdrBuckets decode_hdr_base64(const std::string& b64);

// Every interval of a log merged per tag ("" for untagged lines). Throws ConfigError
// "FILE:LINE" naming the expected format on a malformed line.
std::map<std::string, HdrBuckets> read_interval_log(const std::string& file, const std::string& text);

}  // namespace lbsim::fit
