// Human-readable output of runs: the cassandra-stress "Results:" block (the layout of
// ../shared/reference/cassandra-stress-results-block.txt, without the GC lines, which have no
// meaning here), the per-node table, imbalance, client figures, and the side-by-side table of
// several policies. Text goes to the given stream; nothing here touches the file system.
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
