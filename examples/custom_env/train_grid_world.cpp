// Embedding: a program of one's own that links mnrl, registers an env defined right here, and
// trains it through the same entry point as `mnrl train`, from a config held in memory.
//   train_grid_world [RUN_DIR] [KEY=VALUE ...]    e.g. train_grid_world runs/gw train.total_steps=5000
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/config.h"
#include "envs/registry.h"
#include "experiments/config/experiment_options.h"
#include "experiments/runs/training_run.h"
#include "grid_world.h"

MNRL_REGISTER_ENV("GridWorld-v0", GridWorld);

namespace {

const char* const kConfig = R"(
name: grid_world_embedded
algo: ppo
env: {id: GridWorld-v0, kwargs: {size: 5}, num_envs: 8}
ppo: {n_steps: 64, batch_size: 128, n_epochs: 10, gamma: 0.98, learning_rate: 1.0e-3,
      ent_coef: 0.01}
train: {total_steps: 20000, eval_interval: 5000, eval_episodes: 20}
)";

}  // namespace

int main(int argc, char** argv) {
  mnrl::experiments::TrainingRunSettings settings;
  std::vector<std::string> overrides;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument.find('=') != std::string::npos) {
      overrides.push_back(argument);
    } else {
      settings.run_dir = argument;
    }
  }
  mnrl::experiments::ExperimentOptions options;
  try {
    options = mnrl::experiments::parse_experiment(kConfig, "train_grid_world.cpp", overrides);
  } catch (const mnrl::core::ConfigError& e) {
    std::fprintf(stderr, "config error: %s\n", e.what());
    return 2;
  }
  try {
    const auto run = mnrl::experiments::run_training(options, settings);
    const auto& evaluation = run.training.final_evaluation;
    std::printf("GridWorld-v0: mean return %.3f over %d episodes; run directory %s\n",
                evaluation.mean_return, evaluation.episodes, run.run_dir.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "training failed: %s\n", e.what());
    return 1;
  }
}
