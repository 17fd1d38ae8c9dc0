#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/state_stream.h"
#include "core/typed_ptr.h"
#include "nn/observation_scale.h"

namespace mnrl::agents {

// Where to write the actions chosen for a batch of observations: `indices` (one per row) for
// a discrete action space, or `values` (action_size floats per row) for a continuous one.
struct ActionsOut {
  std::int64_t* indices = nullptr;
  float* values = nullptr;
};

// The outcome of one vector-env step, one row per env (see envs::VectorEnv for the meaning).
struct StepOutcome {
  core::ConstTypedPtr next_observations;  // after auto-reset
  const float* rewards = nullptr;
  const std::uint8_t* terminated = nullptr;
  const std::uint8_t* truncated = nullptr;
  core::ConstTypedPtr final_observations;  // rows valid where terminated or truncated
};

// How far training has come, for schedules: progress_remaining goes 1 -> 0 (SB3's convention).
struct TrainingProgress {
  std::int64_t steps_done = 0;
  std::int64_t total_steps = 1;
  double remaining() const {
    return 1.0 - static_cast<double>(steps_done) / static_cast<double>(total_steps);
  }
};

// Called by an agent's update() after each backward pass, before the gradients are clipped and
// applied: data-parallel training averages them over the ranks here.
using GradientHook = std::function<void()>;
// The same for an agent that steps its networks one after another: called with the range
// [offset, offset + count) of its flat gradient buffer that the backward pass wrote.
using GradientRangeHook = std::function<void(std::int64_t offset, std::int64_t count)>;

// Name/value pairs with CleanRL's metric names ("losses/policy_loss", ...).
using Statistics = std::vector<std::pair<std::string, double>>;

// A learning agent over batches of plain observations [batch, observation_size], float32 or
// uint8 as the observation space says (an agent converts a uint8 batch to floats only where it
// reaches a network, and may store it as bytes). Torch-free by design: the training loop and
// the envs never see tensors.
class Agent {
 public:
  virtual ~Agent() = default;

  // Training: samples actions for the training envs (batch = their number) and remembers
  // what the next observe() needs.
  virtual void act(core::ConstTypedPtr observations, const ActionsOut& out) = 0;
  // Training: the outcome of the step taken with the last act()'s actions.
  virtual void observe(const StepOutcome& outcome) = 0;
  // True when enough has been observed for update().
  virtual bool update_ready() const = 0;
  // Learns from what was observed; returns the update's statistics.
  virtual Statistics update(const TrainingProgress& progress) = 0;

  // Evaluation: the policy's most likely actions for any batch size; changes no state (but
  // the evaluation memory below).
  virtual void act_greedy(core::ConstTypedPtr observations, std::int64_t batch,
                          const ActionsOut& out) = 0;
  // Evaluation with the policy's randomness (a sample of the action distribution; DQN: random
  // with probability exploration_final_eps), for `mnrl eval --stochastic`. Draws from the
  // agent's random streams (LibTorch's generator, DQN's exploration RNG), so not for use
  // between training steps.
  virtual void act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                              const ActionsOut& out) = 0;

  // Policies with memory (recurrent) carry one per row from one act_greedy()/act_stochastic()
  // call to the next (apart from the training envs'); an evaluation clears it where episodes
  // begin: reset_evaluation_memory() before its first step, evaluation_episodes_ended() after
  // each step with the envs' flags. Memoryless agents ignore both.
  virtual void reset_evaluation_memory() {}
  virtual void evaluation_episodes_ended(const std::uint8_t* /*terminated*/,
                                         const std::uint8_t* /*truncated*/,
                                         std::int64_t /*batch*/) {}

  // Checkpoints, between observe() and the next act(): everything act(), observe() and
  // update() depend on (networks, optimizer state, a rollout in progress, counters,
  // exploration RNGs), except a replay buffer. load_state() needs an agent built from the
  // same options and throws core::StateError for a state of another agent or configuration.
  virtual void save_state(core::StateWriter& out) const = 0;
  virtual void load_state(core::StateReader& in) = 0;

  // Off-policy agents keep their replay buffer's transitions in a state of their own (large,
  // and optional in a checkpoint). load_replay() throws core::StateError for an unusable one.
  virtual bool has_replay() const { return false; }
  virtual void save_replay(core::StateWriter& /*out*/) const {}
  virtual void load_replay(core::StateReader& /*in*/) {}

  // The greedy policy, act_greedy()'s actions, as a serialized TorchScript module
  // (nn/policy_export.h) that takes observations before `scale` (the training envs'
  // normalization, folded in when given): what `mnrl export` writes. An agent that cannot
  // throws std::runtime_error.
  virtual std::string export_greedy_policy(
      const std::optional<nn::ObservationScale>& /*scale*/) const {
    throw std::runtime_error("this agent cannot export its policy");
  }
};

}  // namespace mnrl::agents
