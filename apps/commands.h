#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/exit_codes.h"

namespace mnrl::apps {

using core::kExitFailure;
using core::kExitOk;
using core::kExitUsage;

int envs_command();

struct EvalArguments {
  std::string target;  // a run directory (its newest usable checkpoint) or a checkpoint
  int episodes = 10;
  std::uint64_t seed = 0;
  bool stochastic = false;
  std::string video;  // a GIF of the episodes, if set
  int video_fps = 25;
  std::vector<std::string> plugins;
};
// Prints mean ± std of the return and length; exit 2 when the target cannot be used.
int eval_command(const EvalArguments& args);

struct ExportArguments {
  std::string target;  // a run directory (its newest usable checkpoint) or a checkpoint
  std::string output = "policy.pt";
  std::vector<std::string> plugins;
};
// Writes the greedy policy as TorchScript; exit 2 when the target cannot be used.
int export_command(const ExportArguments& args);

struct PlotArguments {
  std::vector<std::string> run_dirs;
  std::string output = "curve.png";
  std::string metric = "charts/episodic_return";
  int width = 800;
  int height = 500;
  int smoothing = 0;  // moving-average window in points; 0 = chosen from the data
};
// Draws one smoothed line per run with gnuplot; exit 2 for a run without the metric.
int plot_command(const PlotArguments& args);

struct CheckEnvArguments {
  std::string id;
  std::int64_t steps = 1000;  // random-action steps per rollout
  std::uint64_t seed = 0;
  std::vector<std::string> kwargs;  // --kwarg KEY=VALUE
  std::vector<std::string> plugins;
};
// Exit 0 when the env keeps the Env contract, 1 when a check fails, 2 for an unknown id.
int check_env_command(const CheckEnvArguments& args);

struct BenchArguments {
  std::string config = "cartpole_ppo";  // a path, or a bundled config's name
  std::vector<std::string> overrides;
  std::int64_t env_steps = 20'000'000;
  double learner_seconds = 3.0;
  bool skip_training = false;
  std::vector<std::string> plugins;
};
int bench_command(const BenchArguments& args);

struct BenchEnvArguments {
  std::string id;
  int num_envs = 8;
  int threads = 2;
  std::int64_t steps = 5'000'000;
  std::vector<std::string> kwargs;  // --kwarg KEY=VALUE
  std::vector<std::string> plugins;
};
// Prints steps/s of one env, a serial vector env and (threads > 1) a threaded one.
int bench_env_command(const BenchEnvArguments& args);

}  // namespace mnrl::apps
