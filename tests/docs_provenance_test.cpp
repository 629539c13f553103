// configs/README.md: every table that gives defaults has a provenance column, and no cell of it is
// empty (issue 38: every default has a source or is marked "assumed").
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace lbsim {
namespace {

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < row.size(); ++i) {  // skip the leading '|'
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (row[i] == '|') {
      const auto b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
      out.push_back(b == std::string::npos ? "" : cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  return out;
}

TEST(DocsProvenance, EveryDefaultInConfigsReadmeHasANonEmptyProvenance) {
  std::ifstream in(std::string(LBSIM_SOURCE_DIR) + "/configs/README.md");
  ASSERT_TRUE(in) << "configs/README.md";
  std::string line;
  std::vector<std::string> header;
  int tables = 0, rows = 0, assumed = 0, lineno = 0;
  long def = -1, prov = -1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] != '|') {
      header.clear();
      continue;
    }
    const auto c = cells(line);
    if (header.empty()) {
      header = c;
      def = prov = -1;
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (c[i] == "default") def = static_cast<long>(i);
        if (c[i] == "provenance") prov = static_cast<long>(i);
      }
      if (def >= 0) {
        ++tables;
        EXPECT_GE(prov, 0) << "configs/README.md:" << lineno << ": a table with defaults and no provenance column";
      }
      continue;
    }
    if (line.find_first_not_of("|-: ") == std::string::npos || def < 0 || prov < 0) continue;
    ++rows;
    ASSERT_EQ(c.size(), header.size()) << "configs/README.md:" << lineno << ": cells against the header";
    EXPECT_FALSE(c[static_cast<std::size_t>(prov)].empty()) << "configs/README.md:" << lineno << ": empty provenance";
    if (c[static_cast<std::size_t>(prov)].find("assumed") != std::string::npos) ++assumed;
  }
  // The tables of lbsim balance files, cluster, keyspace tablets, network, client, clients,
  // workload, timeouts/retry/speculative, faults, changes and report at least.
  EXPECT_GE(tables, 11);
  EXPECT_GE(rows, 90);
  EXPECT_GT(assumed, 0);  // the unsourced ones say so
}

}  // namespace
}  // namespace lbsim
