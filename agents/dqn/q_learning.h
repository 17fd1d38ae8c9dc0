#pragma once

#include <cstdint>

#include "replay/replay_buffer.h"

namespace mnrl::agents {

// The per-row arithmetic of a DQN gradient step, on plain arrays (Q-values are row-major
// [rows, num_actions]).

// y_i = reward_i + (terminated_i ? 0 : discount_i * target_q[i, a*_i]), where
// a*_i = argmax_a chooser_q[i, a]: the target network's own Q-values for DQN, the online
// network's for Double DQN (van Hasselt et al. 2016). Ties go to the first action.
void bootstrapped_targets(const replay::TransitionBatch& batch, const float* target_q,
                          const float* chooser_q, std::int64_t rows, std::int64_t num_actions,
                          float* targets);

enum class TdLoss { huber, mse };  // huber: SB3's smooth_l1_loss (delta 1)

// The importance-weighted mean loss over rows of l(Q(s_i, a_i) - y_i), with a_i the batch's
// action. Writes d loss / d Q into q_gradients (zero except at the taken actions) and
// |Q(s_i, a_i) - y_i| into td_errors (for priorities).
double td_loss(const replay::TransitionBatch& batch, const float* q, const float* targets,
               std::int64_t rows, std::int64_t num_actions, TdLoss loss, float* q_gradients,
               float* td_errors);

// Index of the largest of n values; the first on ties, as LibTorch's argmax.
std::int64_t argmax(const float* values, std::int64_t n);

}  // namespace mnrl::agents
