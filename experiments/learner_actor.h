#pragma once

#include <cstdint>

#include "agents/agent.h"
#include "envs/vector_env.h"
#include "experiments/action_buffers.h"
#include "experiments/metrics.h"

namespace mnrl::experiments {

// An agent acting on its own vector env: the body of the single-learner loop and of each A3C
// worker.
class LearnerActor {
 public:
  LearnerActor(agents::Agent& agent, envs::VectorEnv& envs)
      : agent_(agent), envs_(envs), actions_(envs.spec().action_space, envs.num_envs()) {}

  int num_envs() const { return envs_.num_envs(); }

  // Acts on the current observations, steps every env and lets the agent observe the outcome.
  void step() {
    agent_.act(envs_.observations(), actions_.out());
    envs_.step(actions_.batch());
    agent_.observe({envs_.observations(), envs_.rewards(), envs_.terminated(), envs_.truncated(),
                    envs_.final_observations()});
  }

  // Reports the return and length of each episode that ended at the last step, at `step`.
  void report_episodes(MetricsSink& metrics, std::int64_t step) const {
    for (int i = 0; i < envs_.num_envs(); ++i) {
      if (!envs_.terminated()[i] && !envs_.truncated()[i]) continue;
      metrics.scalar(step, "charts/episodic_return", envs_.episode_returns()[i]);
      metrics.scalar(step, "charts/episodic_length",
                     static_cast<double>(envs_.episode_lengths()[i]));
    }
  }

  // When the agent is ready (a full rollout, or a replay agent's training step), updates it
  // and reports the update's statistics at the progress' step. Returns whether it updated.
  bool update_if_ready(MetricsSink& metrics, const agents::TrainingProgress& progress) {
    if (!agent_.update_ready()) return false;
    update(metrics, progress);
    return true;
  }

  // Updates the agent and reports the update's statistics at the progress' step.
  void update(MetricsSink& metrics, const agents::TrainingProgress& progress) {
    for (const auto& [name, value] : agent_.update(progress)) {
      metrics.scalar(progress.steps_done, name, value);
    }
  }

 private:
  agents::Agent& agent_;
  envs::VectorEnv& envs_;
  ActionBuffers actions_;
};

}  // namespace mnrl::experiments
