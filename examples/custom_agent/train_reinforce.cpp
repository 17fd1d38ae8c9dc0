// Trains REINFORCE, an algorithm registered right here (reinforce.cpp, with its own topology in
// reinforce_actors.cpp), with mnrl's loop from a YAML experiment file, as `mnrl train` does:
// run directory, metrics, evaluations, checkpoints; under mpirun, a learner and actor ranks,
// a failure on any rank ending them all. `mnrl config keys reinforce` does not know the
// section; this program's does.
//   train_reinforce CONFIG [RUN_DIR] [KEY=VALUE ...]
//   e.g. train_reinforce reinforce_cartpole.yaml runs/rf train.total_steps=20000
//        mpirun -np 3 train_reinforce reinforce_cartpole.yaml runs/rf3
#include <cstdio>
#include <string>

#include "experiments/runs/train_job.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: train_reinforce CONFIG [RUN_DIR] [KEY=VALUE ...]\n");
    return 2;
  }
  mnrl::experiments::TrainJobRequest request;
  request.config = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string argument = argv[i];
    (argument.find('=') != std::string::npos ? request.overrides.push_back(argument)
                                             : void(request.settings.run_dir = argument));
  }
  // Errors are printed by the job ("mnrl train (rank R of N): ..."), with exit 2 for bad input.
  const mnrl::experiments::TrainJobOutcome outcome = mnrl::experiments::run_train_job(request);
  if (outcome.run && outcome.rank == 0) {
    const auto& evaluation = outcome.run->training.final_evaluation;
    std::printf("train_reinforce: mean return %.2f over %d episodes; run directory %s\n",
                evaluation.mean_return, evaluation.episodes, outcome.run->run_dir.c_str());
  }
  return outcome.exit_code;
}
