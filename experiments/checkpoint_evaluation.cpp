#include "experiments/checkpoint_evaluation.h"

#include <torch/utils.h>

#include "agents/a3c/a3c_workers.h"
#include "experiments/agent_factory.h"
#include "experiments/experiment_options.h"
#include "experiments/training_checkpoint.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

Checkpoint open_target(const fs::path& target,
                       const std::function<void(const std::string&)>& skipped) {
  std::error_code error;
  if (fs::exists(target / "manifest.yaml", error)) return Checkpoint::open(target);
  if (fs::is_directory(target / "checkpoints", error)) {
    return open_latest_checkpoint(target, skipped);
  }
  if (!fs::is_directory(target, error)) {
    throw CheckpointError("'" + target.string() + "': no such directory");
  }
  throw CheckpointError("'" + target.string() +
                        "' is neither a run directory with checkpoints nor a checkpoint "
                        "(no checkpoints/ and no manifest.yaml)");
}

}  // namespace

CheckpointEvaluation evaluate_checkpoint(const fs::path& target, int episodes,
                                         std::uint64_t seed, bool stochastic,
                                         const std::function<void(const std::string&)>& skipped) {
  const Checkpoint checkpoint = open_target(target, skipped);
  const ExperimentOptions options =
      load_experiment(checkpoint.path_of("config.yaml").string(), {});
  check_checkpoint_matches(checkpoint, options);
  set_compute_threads(options.train.threads);

  auto envs = envs::make_vector_env(options.env, seed);
  const envs::EnvSpec& spec = envs->spec();
  TrainingParts parts;
  parts.envs.push_back(envs.get());
  std::vector<std::unique_ptr<agents::Agent>> agents;
  std::shared_ptr<agents::SharedModel> shared;
  // Async workers: the checkpoint holds the shared model and each worker's agent.
  const bool async_workers = options.algorithm().topology() == agents::Topology::async_workers;
  const agents::AgentSetup setup = agent_setup(options, spec);
  if (async_workers) {
    const auto& a3c = options.hyperparameters<agents::A3cOptions>();
    shared = make_a3c_shared_model(options, spec);
    for (int k = 0; k < a3c.workers; ++k) agents.push_back(agents::make_a3c_worker(a3c, setup, shared));
    parts.shared = shared.get();
  } else {
    agents.push_back(make_agent(options, spec));
  }
  for (auto& agent : agents) parts.agents.push_back(agent.get());
  restore_policy(checkpoint, parts);

  // A3C plays the shared model, as its training evaluations do.
  std::unique_ptr<agents::Agent> a3c_player;
  if (shared) {
    a3c_player =
        agents::make_a3c_player(options.hyperparameters<agents::A3cOptions>(), setup, *shared);
  }
  agents::Agent& player = a3c_player ? *a3c_player : *agents.front();

  torch::manual_seed(seed);  // sampling, with --stochastic
  Evaluator evaluator(options.env, episodes, seed, *envs);
  return {checkpoint.directory(), checkpoint.info(), *evaluator.run(player, stochastic)};
}

}  // namespace mnrl::experiments
