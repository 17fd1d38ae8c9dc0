#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mnrl::apps {

// Exit codes of the mnrl program.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;     // something went wrong while running
constexpr int kExitUsage = 2;       // bad command line or config: nothing was run or written

struct TrainArguments {
  std::string config;
  std::vector<std::string> overrides;  // --set key.path=value, in order
  std::optional<std::int64_t> seed;
  std::string run_dir;
  std::string command_line;
};
int train_command(const TrainArguments& args);

int envs_command();

struct BenchArguments {
  std::string config = "configs/cartpole_ppo.yaml";
  std::vector<std::string> overrides;
  std::int64_t env_steps = 20'000'000;
  bool skip_training = false;
};
int bench_command(const BenchArguments& args);

}  // namespace mnrl::apps
