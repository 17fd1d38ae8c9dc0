#pragma once

#include <cstdint>

#include "replay/replay_buffer.h"

namespace mnrl::agents {

// The hand-written path's arithmetic for C51 and QR-DQN on plain arrays, as q_learning.h is
// DQN's: the same targets, losses and priorities as the tensor ops of distributional_losses.h
// (tested against them), with d loss / d network output written out. A network's outputs are
// row-major [rows, num_actions, atoms].

struct HostLoss {
  double loss = 0.0;         // the importance-weighted mean over rows
  double q_taken_sum = 0.0;  // the sum over rows of the taken action's mean return
};

// The layout of a C51 support or a set of QR quantiles.
struct AtomLayout {
  std::int64_t rows = 0, num_actions = 0, atoms = 0;
  double v_min = 0.0, v_max = 0.0;  // C51's support
};

// Each action's mean return [rows, num_actions]: C51's softmax over the support, QR's mean.
void categorical_means(const float* logits, const AtomLayout& layout, float* q);
void quantile_means(const float* quantiles, const AtomLayout& layout, float* q);

// C51's loss: next actions a* = argmax of `chooser_q` [rows, num_actions], the target's
// softmax at a* projected (categorical_projection), cross-entropy against the online logits at
// the batch's action. Writes d loss / d logits into `gradients` [rows, num_actions, atoms] (zero
// but at the taken action) and each row's cross-entropy into `td_errors`.
HostLoss categorical_host_loss(const replay::TransitionBatch& batch, const float* logits,
                               const float* target_logits, const float* chooser_q,
                               const AtomLayout& layout, float* gradients, float* td_errors);

// QR-DQN's loss (quantile_huber_loss at the midpoint fractions) with targets r + d theta'(s',
// a*), a* = argmax of `chooser_q`. Gradients and priorities as categorical_host_loss.
HostLoss quantile_host_loss(const replay::TransitionBatch& batch, const float* quantiles,
                            const float* target_quantiles, const float* chooser_q,
                            const AtomLayout& layout, double kappa, float* gradients,
                            float* td_errors);

}  // namespace mnrl::agents
