// Trains REINFORCE, an algorithm registered right here (reinforce.cpp), with mnrl's loop from a
// YAML experiment file, as `mnrl train` would: run directory, metrics, evaluations,
// checkpoints. `mnrl config keys reinforce` does not know the section; this program's does.
//   train_reinforce CONFIG [RUN_DIR] [KEY=VALUE ...]
//   e.g. train_reinforce reinforce_cartpole.yaml runs/rf train.total_steps=20000
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/config.h"
#include "experiments/config/experiment_options.h"
#include "experiments/runs/training_run.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: train_reinforce CONFIG [RUN_DIR] [KEY=VALUE ...]\n");
    return 2;
  }
  mnrl::experiments::TrainingRunSettings settings;
  std::vector<std::string> overrides;
  for (int i = 2; i < argc; ++i) {
    const std::string argument = argv[i];
    (argument.find('=') != std::string::npos ? overrides.push_back(argument)
                                             : void(settings.run_dir = argument));
  }
  mnrl::experiments::ExperimentOptions options;
  try {
    options = mnrl::experiments::load_experiment(argv[1], overrides);
  } catch (const mnrl::core::ConfigError& e) {
    std::fprintf(stderr, "config error: %s\n", e.what());
    return 2;
  }
  try {
    const auto run = mnrl::experiments::run_training(options, settings);
    const auto& evaluation = run.training.final_evaluation;
    std::printf("%s with %s: mean return %.2f over %d episodes; run directory %s\n",
                options.env.id.c_str(), options.algo.c_str(), evaluation.mean_return,
                evaluation.episodes, run.run_dir.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "training failed: %s\n", e.what());
    return 1;
  }
}
