#include "agents/off_policy/critics.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "nn/compute_threads.h"

namespace mnrl::agents {
namespace {

// Runs piece(0) and, for two critics, piece(1) beside it.
template <class Piece>
void for_each_critic(std::size_t count, std::int64_t multiply_adds, const Piece& piece) {
  if (count == 1) {
    piece(0);
  } else {
    nn::run_both(multiply_adds, [&] { piece(0); }, [&] { piece(1); });
  }
}

}  // namespace

Critics::Critics(const std::vector<nn::ContinuousQNetwork>& critics, const TargetCritics& targets,
                 std::int64_t batch_size)
    : online_(critics),
      batch_size_(batch_size),
      action_size_(critics.front()->options.action_size()),
      min_q_(static_cast<std::size_t>(batch_size)),
      q_gradients_(static_cast<std::size_t>(batch_size) * critics.size()),
      second_action_gradients_(static_cast<std::size_t>(batch_size * action_size_)) {
  if (online_.empty() || online_.size() > 2) {
    throw std::invalid_argument("Critics: one or two critics, not " + std::to_string(online_.size()));
  }
  for (std::size_t i = 0; i < online_.size(); ++i) {
    online_passes_.emplace_back(online_[i], batch_size);
    target_passes_.emplace_back(targets.networks()[i], batch_size);
  }
}

const float* Critics::min_target_q(const float* observations, const float* actions) {
  std::vector<const float*> q(target_passes_.size());
  for_each_critic(size(), target_passes_[0].multiply_adds(),
                  [&](std::size_t i) { q[i] = target_passes_[i].forward(observations, actions); });
  for (std::int64_t b = 0; b < batch_size_; ++b) {
    float smallest = q[0][b];
    for (std::size_t i = 1; i < q.size(); ++i) smallest = std::min(smallest, q[i][b]);
    min_q_[static_cast<std::size_t>(b)] = smallest;
  }
  return min_q_.data();
}

void Critics::backward_td_loss(const float* observations, const float* actions,
                               const float* targets, float scale, std::vector<double>& losses,
                               std::vector<double>& mean_q) {
  losses.assign(size(), 0.0);
  mean_q.assign(size(), 0.0);
  const auto rows = static_cast<float>(batch_size_);
  for_each_critic(size(), 3 * online_passes_[0].multiply_adds(), [&](std::size_t i) {
    nn::ContinuousQPass& pass = online_passes_[i];
    const float* q = pass.forward(observations, actions);
    float* gradients = q_gradients_.data() + i * static_cast<std::size_t>(batch_size_);
    double squares = 0.0, sum = 0.0;
    for (std::int64_t b = 0; b < batch_size_; ++b) {
      const float error = q[b] - targets[b];
      squares += static_cast<double>(error) * error;
      sum += q[b];
      gradients[b] = scale * 2.0f * error / rows;
    }
    losses[i] = squares / rows;
    mean_q[i] = sum / rows;
    pass.backward(gradients);
  });
}

double Critics::action_gradient(const float* observations, const float* actions, bool smallest,
                                float scale, float* action_gradients) {
  const std::size_t used = smallest ? size() : 1;
  std::vector<const float*> q(used);
  for_each_critic(used, online_passes_[0].multiply_adds(),
                  [&](std::size_t i) { q[i] = online_passes_[i].forward(observations, actions); });
  // Each row's gradient goes to the critic whose value it took (the first on ties).
  double sum = 0.0;
  for (std::int64_t b = 0; b < batch_size_; ++b) {
    std::size_t chosen = 0;
    for (std::size_t i = 1; i < used; ++i) chosen = q[i][b] < q[chosen][b] ? i : chosen;
    sum += q[chosen][b];
    for (std::size_t i = 0; i < used; ++i) {
      q_gradients_[i * static_cast<std::size_t>(batch_size_) + static_cast<std::size_t>(b)] =
          i == chosen ? scale : 0.0f;
    }
  }
  float* outputs[2] = {action_gradients, second_action_gradients_.data()};
  for_each_critic(used, 2 * online_passes_[0].multiply_adds(), [&](std::size_t i) {
    online_passes_[i].action_gradient(q_gradients_.data() + i * static_cast<std::size_t>(batch_size_),
                                      outputs[i]);
  });
  if (used == 2) {
    for (std::int64_t k = 0; k < batch_size_ * action_size_; ++k) {
      action_gradients[k] += second_action_gradients_[static_cast<std::size_t>(k)];
    }
  }
  return sum / static_cast<double>(batch_size_);
}

}  // namespace mnrl::agents
