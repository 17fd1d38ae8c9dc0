#pragma once

// Tests that compare two runs: reading back what a run wrote, and a run stopped and resumed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "experiments/checkpoints/checkpoint.h"
#include "experiments/runs/training_run.h"

namespace mnrl::experiments {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// metrics.csv without wall times and SPS (which depend on the machine): step,name,value rows.
inline std::string metrics_without_times(const std::filesystem::path& run_dir) {
  std::istringstream in(read_file(run_dir / "metrics.csv"));
  std::string line, out;
  while (std::getline(in, line)) {
    const auto first = line.find(',');
    const auto second = line.find(',', first + 1);
    const std::string row = line.substr(0, first) + line.substr(second);
    if (row.find("charts/SPS") == std::string::npos) out += row + "\n";
  }
  return out;
}

// The run in `whole` copied to `resumed`, stopped at its first checkpoint (later ones removed,
// metrics after it kept: as after a crash) and resumed to the end.
inline TrainingRunResult resume_from_first_checkpoint(const std::filesystem::path& whole,
                                                      const std::filesystem::path& resumed,
                                                      const TrainingRunSettings& settings) {
  std::filesystem::copy(whole, resumed, std::filesystem::copy_options::recursive);
  const auto checkpoints = list_checkpoints(resumed);
  EXPECT_GE(checkpoints.size(), 3u);
  for (std::size_t i = 1; i < checkpoints.size(); ++i) std::filesystem::remove_all(checkpoints[i]);
  return resume_training(resumed, settings, [](const std::string& why) { FAIL() << why; });
}

}  // namespace mnrl::experiments
