#pragma once

#include <cstdint>

#include "agents/actor_critic_loss.h"
#include "nn/actor_critic_pass.h"

namespace mnrl::agents {

inline constexpr float kHalfLog2Pi = 0.91893853320467274178f;  // 0.5 * log(2 pi)

// The rows of one (mini)batch of a finished rollout, row-major as the rollout buffer holds them.
struct RolloutRows {
  std::int64_t count = 0;
  const float* observations = nullptr;  // [count, observation_size]
  const float* actions = nullptr;       // [count] indices as floats, or [count, action_size]
  const float* log_probs = nullptr;     // [count] at collection time
  const float* values = nullptr;        // [count] at collection time
  const float* advantages = nullptr;    // [count]
  const float* returns = nullptr;       // [count]
  // A recurrent model's rows are sequences laid out [step][sequence]: every row's episode-start
  // flag [count], and the memory before each sequence's first step [sequences, state_size].
  const float* episode_starts = nullptr;
  const float* memory = nullptr;
};

// The parts of the loss on one (mini)batch, and PPO's diagnostics (as CleanRL computes them).
struct LossValues {
  double policy_loss = 0, value_loss = 0, entropy = 0;
  double old_approx_kl = 0;  // mean(-log r)
  double approx_kl = 0;      // mean((r - 1) - log r)
  double clip_fraction = 0;  // mean(|r - 1| > clip_range); 0 without a clip range
};

// An autograd loss's parts and diagnostics, read back to the host in one copy.
LossValues loss_values_of(const ActorCriticLoss& loss, const ActorCriticLossOptions& options);

// The action distribution whose parameters the policy head outputs.
struct PolicyHead {
  std::int64_t action_size = 0;
  // Null: Categorical over logits. Else a diagonal Gaussian around the outputs with this
  // state-independent log-std [action_size], and where d loss / d log_std is written.
  const float* log_std = nullptr;
  float* log_std_gradient = nullptr;
};

// actor_critic_loss() differentiated by hand: given `pass` after forward() on the rows'
// observations, fills the pass's output gradients (then call pass.backward()), writes
// d loss / d log_std for a Gaussian head, and returns the loss's parts.
LossValues actor_critic_loss_gradients(nn::ActorCriticPass& pass, const PolicyHead& head,
                                       const RolloutRows& rows,
                                       const ActorCriticLossOptions& options);

}  // namespace mnrl::agents
