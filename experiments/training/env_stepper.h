#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "agents/agent.h"
#include "envs/vector_env.h"
#include "experiments/training/action_buffers.h"
#include "experiments/metrics/metrics.h"

namespace mnrl::experiments {

// A loss became NaN or infinite: the parameters are ruined from this update on, so the run
// stops before it writes a checkpoint of them (the newest checkpoint is the last good one).
class TrainingDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws TrainingDiverged naming the first loss in `statistics` that is not finite.
// (losses/explained_variance is a diagnostic, undefined when the returns do not vary.)
inline void check_losses_finite(const agents::Statistics& statistics, std::int64_t step) {
  for (const auto& [name, value] : statistics) {
    if (std::isfinite(value) || name.rfind("losses/", 0) != 0 ||
        name == "losses/explained_variance") {
      continue;
    }
    throw TrainingDiverged("training diverged: " + name + " = " + std::to_string(value) +
                           " after the update at step " + std::to_string(step) +
                           "; stopped without a checkpoint of the ruined parameters (lower the "
                           "learning rate, clip gradients or normalize observations)");
  }
}

// Reports an update's statistics at `step`. Throws TrainingDiverged, before reporting, if a
// loss is not finite.
inline void report_update(MetricsSink& metrics, std::int64_t step,
                          const agents::Statistics& statistics) {
  check_losses_finite(statistics, step);
  for (const auto& [name, value] : statistics) metrics.scalar(step, name, value);
}

// An agent acting on its own vector env: the body of the single-learner loop and of each A3C
// worker.
class EnvStepper {
 public:
  EnvStepper(agents::Agent& agent, envs::VectorEnv& envs)
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
    report_update(metrics, progress.steps_done, agent_.update(progress));
    return true;
  }

 private:
  agents::Agent& agent_;
  envs::VectorEnv& envs_;
  ActionBuffers actions_;
};

}  // namespace mnrl::experiments
