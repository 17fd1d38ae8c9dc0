#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/action_bounds.h"
#include "agents/agent.h"
#include "agents/agent_setup.h"
#include "agents/off_policy/off_policy_options.h"
#include "core/rng.h"
#include "core/state_fields.h"
#include "nn/continuous_actor.h"
#include "nn/continuous_actor_pass.h"
#include "nn/flat_parameters.h"
#include "replay/replay.h"

namespace mnrl::agents {

// How an off-policy agent computes its gradient steps: by the hand-written passes (on the CPU,
// where they are fastest), or through LibTorch's autograd (on any device: what a GPU uses).
enum class GradientPath { by_hand, autograd };

// What SAC, TD3 and DDPG share (SB3's OffPolicyAlgorithm for Box actions): the actor works in
// [-1, 1] and the env's bounds are mapped onto it (low + (a + 1) / 2 (high - low)); replay
// stores the [-1, 1] actions; the first learning_starts env steps act uniformly at random;
// every train_freq vector steps past them, update() takes gradient_steps steps on batches of
// the replay; evaluation takes the deterministic action tanh(mean). Subclasses supply the
// exploration policy and the gradient step.
class ContinuousOffPolicyAgent : public Agent {
 public:
  void act(core::ConstTypedPtr observations, const ActionsOut& out) final;
  void observe(const StepOutcome& outcome) final;
  bool update_ready() const final;
  // The mean of each statistic over the update's gradient steps that reported it, and the
  // learning rate, from the updates that cross a multiple of kStatisticsInterval env steps
  // (none from the others): CleanRL's cadence, which keeps an update per env step from writing
  // 10 metrics per step.
  Statistics update(const TrainingProgress& progress) final;
  static constexpr std::int64_t kStatisticsInterval = 100;
  void act_greedy(core::ConstTypedPtr observations, std::int64_t batch,
                  const ActionsOut& out) final;
  void act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                      const ActionsOut& out) final;
  // The subclass's learner state, the replay's pending n-step returns, counters and RNGs.
  // Loaded without a replay, updates wait until it again holds min(learning_starts,
  // buffer_size) transitions, as at the start of a run.
  void save_state(core::StateWriter& out) const final;
  void load_state(core::StateReader& in) final;
  bool has_replay() const final { return true; }
  void save_replay(core::StateWriter& out) const final;
  void load_replay(core::StateReader& in) final;
  // The deterministic policy, mapped onto the bounds.
  std::string export_greedy_policy(const std::optional<nn::ObservationScale>& scale) const final;

  void set_gradient_hook(GradientRangeHook hook) { average_gradients_ = std::move(hook); }
  void set_cuda_graphs(CudaGraphs mode) { cuda_graphs_ = mode; }
  // Every optimizer's step size now (lr_schedule sets them at each update).
  virtual std::vector<double> learning_rates() const = 0;

 protected:
  // `tag` names the subclass's state in checkpoints. `actor`: the one trained (on any
  // device). With `explore_at_warmup`, explore() acts before learning_starts too (instead of
  // uniform actions).
  ContinuousOffPolicyAgent(std::string tag, const OffPolicyOptions& options, ActionBounds bounds,
                           nn::ContinuousActor actor, std::unique_ptr<replay::Replay> replay,
                           std::uint64_t seed, bool explore_at_warmup = false);

  // Exploration actions in [-1, 1] [num_envs, action_size] for `observations` [num_envs, ...].
  virtual void explore(const float* observations, float* actions) = 0;
  // The policy's own randomness for any batch (mnrl eval --stochastic), in [-1, 1].
  virtual void sample_actions(const float* observations, std::int64_t batch, float* actions) = 0;
  // An episode of env `env` ended (terminated or truncated) with the last observe().
  virtual void episode_ended(std::int64_t /*env*/) {}
  // One gradient step on `batch`; its statistics (CleanRL's names).
  virtual Statistics gradient_step(const replay::TransitionBatch& batch) = 0;
  // Called after each update's gradient steps: the means of statistics the steps kept on the
  // device instead of returning them.
  virtual Statistics device_means() { return {}; }
  // The step size of every optimizer, set before each update (lr_schedule).
  virtual void set_learning_rate(double learning_rate) = 0;
  virtual void save_learner(core::StateWriter& out) const = 0;
  virtual void load_learner(core::StateReader& in) = 0;

  // tanh(mean) of the actor for any batch size, in [-1, 1].
  const float* deterministic_actions(const float* observations, std::int64_t batch);
  // A pass over the actor for `batch` rows, kept while the batch size stays the same.
  nn::ContinuousActorPass& actor_pass_for(std::int64_t batch);
  // `batch` observations as the networks' floats (uint8 ones converted into input_floats_).
  const float* network_input(core::ConstTypedPtr observations, std::int64_t batch);
  // Averages the gradients of `range` of the flat buffer over a data-parallel job's ranks.
  void average_gradients(std::int64_t offset, std::int64_t count) {
    if (average_gradients_) average_gradients_(offset, count);
  }
  const GradientRangeHook& gradient_hook() const { return average_gradients_; }
  CudaGraphs cuda_graphs() const { return cuda_graphs_; }
  // Whether autograd steps run as CUDA graphs (train.cuda_graphs; says why not once under
  // auto, throws under on).
  bool cuda_graphs_chosen() const;

  const OffPolicyOptions& options() const { return options_; }
  std::int64_t num_envs() const { return num_envs_; }
  // Vector-env steps observed so far.
  std::int64_t vector_steps() const { return vector_steps_; }
  std::int64_t action_size() const { return action_size_; }
  const nn::ContinuousActor& actor() const { return actor_; }
  // Draws for exploration and for evaluation's --stochastic.
  core::Rng& exploration_rng() { return exploration_rng_; }

 private:
  // [-1, 1] actions to the env's bounds, into out.values.
  void to_bounds(const float* actions, std::int64_t rows, const ActionsOut& out) const;
  // The acting copy's parameters set to the trained actor's (where they are two).
  void refresh_acting_actor();

  std::string tag_;
  OffPolicyOptions options_;
  ActionBounds bounds_;
  nn::ContinuousActor trained_actor_;
  nn::ContinuousActor actor_;  // acts: trained_actor_, or its copy on the CPU
  std::unique_ptr<nn::FlatParameters> acting_parameters_;  // the copy's
  struct LearnerState;
  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields);  // in the .cpp: save_state() and load_state() use it

  std::unique_ptr<replay::Replay> replay_;
  std::int64_t num_envs_, observation_size_, action_size_;
  core::Rng exploration_rng_, replay_rng_;
  std::unique_ptr<nn::ContinuousActorPass> actor_pass_;  // rebuilt when the batch size changes
  replay::TransitionBatch batch_;
  // Of the last act(), for observe(): the observations as the envs gave them.
  core::TypedRows last_observations_;
  std::vector<float> last_actions_;
  std::vector<float> input_floats_;  // a uint8 batch converted for the networks
  std::vector<float> scratch_actions_;
  std::int64_t env_steps_ = 0, vector_steps_ = 0;
  std::int64_t min_replay_size_;  // update_ready() needs this many transitions stored
  bool explore_at_warmup_;
  GradientRangeHook average_gradients_;
  CudaGraphs cuda_graphs_ = CudaGraphs::off;
};

}  // namespace mnrl::agents
