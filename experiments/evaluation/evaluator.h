#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "agents/agent.h"
#include "envs/env_options.h"
#include "envs/vector_env.h"
#include "experiments/metrics/metrics.h"
#include "experiments/training/action_buffers.h"

namespace mnrl::experiments {

class EpisodeVideo;

struct EvaluationResult {
  double mean_return = 0.0;
  double std_return = 0.0;  // population std over the episodes
  double mean_length = 0.0;
  int episodes = 0;
};

// Plays `episodes` episodes with the agent's greedy actions on env instances of its own (one
// per episode, stepped as one batch), separate from the training envs but with their wrappers
// and observation statistics (see make_evaluation_vector_env). Seeded once; each evaluation
// continues the same env RNG streams, so successive evaluations see new starts.
class Evaluator {
 public:
  Evaluator(const envs::EnvOptions& env, int episodes, std::uint64_t seed,
            const envs::VectorEnv& training);

  // With `stochastic`, actions come from Agent::act_stochastic instead of act_greedy; with a
  // `video`, every step is captured into it (the caller finishes it).
  // Returns nullopt when a stop was requested (core::stop_requested) before it finished: a
  // long evaluation never delays Ctrl-C or SIGTERM by more than one batch step.
  std::optional<EvaluationResult> run(agents::Agent& agent, bool stochastic = false,
                                      EpisodeVideo* video = nullptr);

  // For checkpoints: the evaluation envs' RNG streams (and statistics), so that evaluations
  // after a resume see the starts they would have seen.
  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in);

 private:
  std::unique_ptr<envs::VectorEnv> envs_;
  ActionBuffers actions_;
  bool started_ = false;  // run() has reset the envs at least once
};

// Reports an evaluation as eval/mean_return, eval/std_return and eval/mean_length at `step`.
void record_evaluation(MetricsSink& metrics, std::int64_t step, const EvaluationResult& result);

// Evaluates `agent` and records the result at `step`, also into `*result` if given. Returns
// false, recording nothing, when a stop request cut the evaluation short.
bool evaluate_and_record(Evaluator& evaluator, agents::Agent& agent, MetricsSink& metrics,
                         std::int64_t step, EvaluationResult* result = nullptr);

}  // namespace mnrl::experiments
