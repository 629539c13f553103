// README.md's "Your first answer" walkthrough, run exactly as a newcomer would (issue 34): the
// fenced ```sh blocks of that section, in order, in a temporary folder holding `build/lbsim` (the
// built binary) and `configs/` (the repository's), so that nothing is written to the repository.
// `scripts/dev run ARGS` is what the script runs after its build: `build/lbsim run ARGS --force`.
// Then:
// - every ```text block shows lines the command before it printed (a "..." line skips some);
// - the block after the python command gives each policy's dc1 coordinator max/mean and p99
//   (per line: the policy, optionally its coordinating DCs as ['dc1'], the figure, the p99): they
//   equal the JSON reports' imbalance_by_dc.<dc> and latency_ms.p99, and the policies' p99 order
//   is the README's;
// - the HTML report the walkthrough makes exists, names the three policies and holds the charts
//   the README lists (per-node bars, latency percentiles, throughput and p99 over time, the sweep).
// The numbers come from the README's text, so the README and this test cannot drift apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "test_files.hpp"
#include "test_scale.hpp"

namespace lbsim {
namespace {

namespace fs = std::filesystem;
using testing_files::shell;
using testing_files::slurp;

struct Block {
  std::string lang;  // "sh", "text", ...
  std::string body;
};

// The fenced blocks between "## Your first answer" and the next "## " heading.
std::vector<Block> walkthrough_blocks(const std::string& readme) {
  const auto start = readme.find("\n## Your first answer\n");
  if (start == std::string::npos) return {};
  const auto end = readme.find("\n## ", start + 1);
  std::istringstream in(readme.substr(start, end == std::string::npos ? std::string::npos : end - start));
  std::vector<Block> out;
  Block* open = nullptr;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      if (open) {
        open = nullptr;
      } else {
        out.push_back({line.substr(3), ""});
        open = &out.back();
      }
    } else if (open) {
      open->body += line + "\n";
    }
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Runs of blanks count as one: the README's tables are the output's, spacing aside.
std::string squeeze(const std::string& s) {
  std::istringstream in(s);
  std::string w, out;
  while (in >> w) out += (out.empty() ? "" : " ") + w;
  return out;
}

TEST(FirstAnswer, TheReadmeWalkthroughGivesTheAnswerItPrints) {
  LBSIM_OPTIMIZED_SUITE_ONLY();
  const std::vector<Block> blocks = walkthrough_blocks(slurp(fs::path(LBSIM_SOURCE_DIR) / "README.md"));
  ASSERT_GE(blocks.size(), 4u) << "README.md has no \"## Your first answer\" section with fenced blocks";

  const fs::path dir = fs::temp_directory_path() / ("lbsim-first-answer-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "build");
  fs::create_symlink(LBSIM_BINARY, dir / "build" / "lbsim");
  fs::create_directory_symlink(fs::path(LBSIM_SOURCE_DIR) / "configs", dir / "configs");

  // Each sh block in order; each text block against the stdout of the sh block before it.
  std::string last_out, python_out, python_text;
  int commands = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const Block& blk = blocks[b];
    if (blk.lang == "sh") {
      std::string cmd = blk.body;
      for (auto p = cmd.find("scripts/dev run "); p != std::string::npos; p = cmd.find("scripts/dev run ", p)) {
        const auto eol = cmd.find('\n', p);
        cmd.replace(p, eol - p, "build/lbsim run " + cmd.substr(p + 16, eol - p - 16) + " --force");
        p = cmd.find('\n', p);
      }
      const fs::path out = dir / ("block" + std::to_string(b) + ".out"), err = dir / ("block" + std::to_string(b) + ".err");
      std::ofstream(dir / "block.sh") << cmd;
      ASSERT_EQ(shell("cd '" + dir.string() + "' && bash block.sh >'" + out.string() + "' 2>'" + err.string() + "'"), 0)
          << "README block failed:\n" << cmd << "\n" << slurp(err);
      last_out = slurp(out);
      ++commands;
      if (cmd.find("python3") != std::string::npos) {
        // The reports it read: `--seeds 5 --force` replaces them next.
        python_out = last_out;
        fs::create_directories(dir / "first-run");
        for (const auto& e : fs::directory_iterator(dir / "results" / "first-answer"))
          if (e.path().extension() == ".json") fs::copy_file(e.path(), dir / "first-run" / e.path().filename());
      }
    } else if (blk.lang == "text") {
      ASSERT_GT(commands, 0) << "a text block before any command";
      std::vector<std::string> printed;
      for (const auto& l : lines_of(last_out)) printed.push_back(squeeze(l));
      for (const auto& l : lines_of(blk.body)) {
        if (squeeze(l) == "..." || squeeze(l).empty()) continue;
        EXPECT_TRUE(std::find(printed.begin(), printed.end(), squeeze(l)) != printed.end())
            << "README line not printed by its command:\n  " << l << "\noutput:\n" << last_out;
      }
      if (!python_out.empty() && python_text.empty() && last_out == python_out) python_text = blk.body;
    }
  }
  EXPECT_GE(commands, 5);

  // The answer: dc1's coordinator max/mean and p99 per policy, as the README prints them.
  ASSERT_FALSE(python_text.empty()) << "no text block after the python command";
  std::vector<std::pair<double, std::string>> readme_p99, report_p99;
  for (const auto& l : lines_of(python_text)) {
    // "policy [DCs] figure p99": the policy first, the two numbers last, and the coordinating DC
    // when the line names it ("['dc1']"; dc1, the client's, otherwise).
    std::istringstream in(l);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (words.size() < 3) continue;
    const std::string policy = words.front();
    const double imbalance = std::stod(words[words.size() - 2]), p99 = std::stod(words.back());
    std::string dc = "dc1";
    if (words.size() > 3 && words[1].size() > 4 && words[1].rfind("['", 0) == 0)
      dc = words[1].substr(2, words[1].find('\'', 2) - 2);
    const auto report = nlohmann::json::parse(slurp(dir / "first-run" / (policy + ".json")));
    EXPECT_DOUBLE_EQ(report["imbalance_by_dc"][dc]["coordinator"]["max_over_mean"].get<double>(), imbalance) << policy;
    EXPECT_DOUBLE_EQ(report["latency_ms"]["p99"].get<double>(), p99) << policy;
    readme_p99.emplace_back(p99, policy);
    report_p99.emplace_back(report["latency_ms"]["p99"].get<double>(), policy);
  }
  ASSERT_EQ(readme_p99.size(), 3u) << python_text;
  std::sort(readme_p99.begin(), readme_p99.end());
  std::sort(report_p99.begin(), report_p99.end());
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(readme_p99[i].second, report_p99[i].second) << "p99 order, rank " << i;

  // The HTML report the walkthrough makes, with the charts it promises.
  const std::string html = slurp(dir / "first-answer.html");
  ASSERT_FALSE(html.empty()) << "first-answer.html was not written";
  for (const char* p : {"random", "neutral", "topological"}) EXPECT_NE(html.find(p), std::string::npos) << p;
  for (const char* fig : {"fig-coordinator-load", "fig-replica-load", "fig-latency-percentiles", "fig-throughput-time",
                          "fig-p99-time", "fig-sweep-1-latency_ms-p99", "fig-sweep-1-p99-vs-throughput"}) {
    const auto at = html.find(std::string("id=\"") + fig + "\"");
    ASSERT_NE(at, std::string::npos) << "no chart " << fig;
    const auto end = html.find("</figure>", at);
    EXPECT_NE(html.substr(at, end - at).find("<svg class=\"chart\""), std::string::npos) << fig << " has no chart";
  }
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace lbsim
