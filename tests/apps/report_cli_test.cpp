// mnrl report: configs compared over their seeds (IQM, bootstrap CIs, probability of
// improvement), its figures checked against numpy and its images against what they must show.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_fixture.h"

namespace {
using namespace mnrl_cli_test;

void write_report_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A finished run's files as `mnrl train` writes them, with the given evaluations (at steps
// 1000, 2000, ...) and final evaluation.
void write_run(const fs::path& dir, const std::string& name, int seed,
               const std::vector<double>& evaluations, double final_return) {
  fs::create_directories(dir);
  write_report_file(dir / "config.yaml", "name: " + name + "\nalgo: ppo\nseed: " +
                                             std::to_string(seed) + "\n");
  std::string metrics = "step,wall_time,name,value\n";
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const std::string step = std::to_string(1000 * (i + 1));
    metrics += step + ",0.5,charts/episodic_return,10\n";
    metrics += step + ",0.5,eval/mean_return," + std::to_string(evaluations[i]) + "\n";
  }
  write_report_file(dir / "metrics.csv", metrics);
  write_report_file(dir / "summary.yaml",
                    "steps: 5000\ninterrupted: false\ntraining_complete: true\n"
                    "final_evaluation:\n  episodes: 10\n  mean_return: " +
                        std::to_string(final_return) + "\n  std_return: 1\n");
}

bool numpy_available() {
  return std::system("/usr/bin/python3 -c 'import numpy' > /dev/null 2>&1") == 0;
}

using ReportCliTest = CliTest;

// On fixed returns (ties, outliers, 4 to 6 seeds): the IQM as scipy's trim_mean(0.25), the
// intervals as a percentile bootstrap, P(X > Y) as rliable, recomputed with numpy.
TEST_F(ReportCliTest, FiguresAgreeWithAnIndependentComputation) {
  const std::vector<std::pair<std::string, std::vector<double>>> finals{
      {"A", {120, 95.5, 200, 200, 31}},
      {"B", {150, 150, 80, 210}},
      {"C", {-40, 12, 250, 251, 12, 180}}};
  std::string inputs;
  for (const auto& [label, scores] : finals) {
    for (std::size_t seed = 0; seed < scores.size(); ++seed) {
      const fs::path dir = dir_ / (label + std::to_string(seed));
      const double s = scores[seed];
      write_run(dir, label, static_cast<int>(seed), {s / 4, s / 3 + seed, s / 2, s}, s);
      inputs += " " + label + "=" + dir.string();
    }
  }
  const auto r = run("report" + inputs + " -o report");
  expect_outcome(r, 0, "wrote report/report.md");
  // A by hand: 31 and 200 cut, the mean of 95.5, 120, 200.
  EXPECT_NE(read_file(dir_ / "report" / "scores.csv").find("\nA,5,5,129.3,"), std::string::npos)
      << read_file(dir_ / "report" / "scores.csv");
  EXPECT_NE(read_file(dir_ / "report" / "scores.csv").find(",138.5,"), std::string::npos);
  if (!numpy_available()) GTEST_SKIP() << "/usr/bin/python3 cannot import numpy (python3-numpy)";
  const auto check = run_shell("/usr/bin/python3 '" MNRL_SOURCE_DIR
                               "/tests/apps/report_statistics_check.py' report" +
                               inputs);
  expect_outcome(check, 0, "the report agrees with numpy on 3 configs and 3 pairs");
}

// From real studies: every table and image, each image a PNG worth looking at that names the
// configs it shows (its tEXt chunks).
TEST_F(ReportCliTest, StudiesGiveTablesAndImagesNamingTheConfigs) {
  for (const char* lr : {"0.0003", "0.003"}) {
    const auto trained = run("train " MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml --seeds 1-2 "
                             "--jobs 2 --set train.total_steps=3000 --set train.eval_interval=1000 "
                             "--set train.eval_episodes=2 --set ppo.learning_rate=" +
                             std::string(lr) + " --run-dir lr" + lr);
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
  }
  const auto r = run("report shipped=lr0.0003 fast=lr0.003 -o out/report");
  expect_outcome(r, 0, "learning_curves.png");
  const fs::path out = dir_ / "out" / "report";
  for (const char* png : {"learning_curves.png", "final_scores.png", "improvement.png"}) {
    const std::string image = read_file(out / png);
    ASSERT_GT(image.size(), 10000u) << png;
    EXPECT_EQ(image.substr(0, 8), "\x89PNG\r\n\x1a\n") << png;
    EXPECT_EQ(image.substr(16, 4), std::string("\0\0\x03\x84", 4)) << png << ": 900 wide";
    const std::size_t text = image.find("tEXtDescription");
    ASSERT_NE(text, std::string::npos) << png;
    EXPECT_NE(image.find("shipped\nfast\n", text), std::string::npos) << png;
  }
  const std::string markdown = read_file(out / "report.md");
  for (const char* part : {"| shipped | 2 of 2 |", "| fast | 2 of 2 |", "| shipped | fast |",
                           "![learning curves](learning_curves.png)"}) {
    EXPECT_NE(markdown.find(part), std::string::npos) << part << " in\n" << markdown;
  }
  EXPECT_NE(read_file(out / "runs.csv").find("shipped,1,"), std::string::npos);
}

// Inputs that are not runs or studies: exit 2 naming them, no report written.
TEST_F(ReportCliTest, BadInputsWriteNothing) {
  expect_outcome(run("report missing -o report"), 2, "'missing' is not a directory");
  fs::create_directories(dir_ / "empty");
  expect_outcome(run("report empty -o report"), 2, "empty/config.yaml");
  write_run(dir_ / "run", "A", 1, {1, 2}, 2);
  expect_outcome(run("report run --metric charts/nothing -o report"), 2,
                 "has no 'charts/nothing'");
  write_report_file(dir_ / "file", "x");
  expect_outcome(run("report run -o file"), 2, "-o file: exists and is not a directory");
  EXPECT_FALSE(fs::exists(dir_ / "report"));
}

}  // namespace
