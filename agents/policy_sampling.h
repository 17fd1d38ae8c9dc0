#pragma once

#include <cstdint>

#include "agents/actor_critic_loss_gradients.h"

namespace mnrl::agents {

// Draws one action per row from the policy head's `outputs` [rows, action_size] (logits, or the
// Gaussian's means around which head.log_std spreads it), with LibTorch's generator, as the
// model's distribution would: writes the actions (indices as floats, or values) and their
// log-probs. For a rollout step without LibTorch's per-op cost.
void sample_actions(const PolicyHead& head, const float* outputs, std::int64_t rows,
                    float* actions, float* log_probs);

}  // namespace mnrl::agents
