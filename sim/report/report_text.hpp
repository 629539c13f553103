// Human-readable output of runs: the cassandra-stress "Results:" block, the per-node table,
// imbalance, client figures, and the side-by-side table of several policies. Text goes to the given
// stream; nothing here touches the file system.
// The block has the layout that StressMetrics.summarise() prints (apache/cassandra
// tools/stress/src/org/apache/cassandra/stress/report/StressMetrics.java, and the scylladb/
// cassandra-stress fork), without the GC lines, which have no meaning here; a sample is
// tests/data/cassandra-stress-results-block.txt, and tests/reference_data_test.cpp checks the
// layout against it.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "sim/metrics/run_result.hpp"

namespace lbsim {

// 28232.4 -> "28,232" (decimals = 0) or "1,234.5" (decimals = 1).
std::string grouped(double v, int decimals = 0);

void print_results_block(std::ostream& out, const RunResult& r);
void print_node_table(std::ostream& out, const RunResult& r);
void print_run(std::ostream& out, const RunResult& r);  // header, results block, nodes, imbalance, client
void print_side_by_side(std::ostream& out, const std::vector<RunResult>& runs);

}  // namespace lbsim
