#include "replay/rollout_buffer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace mnrl::replay {

RolloutBuffer::RolloutBuffer(std::int64_t n_steps, std::int64_t num_envs,
                             std::int64_t observation_size, std::int64_t action_size)
    : n_steps_(n_steps),
      num_envs_(num_envs),
      observation_size_(observation_size),
      action_size_(action_size) {
  if (n_steps < 1 || num_envs < 1 || observation_size < 1 || action_size < 1) {
    throw std::invalid_argument("RolloutBuffer: n_steps, num_envs, observation_size and "
                                "action_size must be positive");
  }
  const auto n = static_cast<std::size_t>(n_steps * num_envs);
  observations_.resize(n * static_cast<std::size_t>(observation_size));
  actions_.resize(n * static_cast<std::size_t>(action_size));
  for (auto* v : {&log_probs_, &values_, &rewards_, &bootstrap_values_, &advantages_, &returns_}) {
    v->resize(n);
  }
  terminated_.resize(n);
  truncated_.resize(n);
}

void RolloutBuffer::throw_full() const {
  throw std::logic_error("RolloutBuffer: the buffer is full (" + std::to_string(n_steps_) +
                         " steps); clear() it first");
}

void RolloutBuffer::advance() {
  if (full()) throw_full();
  ++step_;
}

template <class Weights, class Write>
void RolloutBuffer::correct_backwards(const float* values, const float* last_values, float gamma,
                                      const Weights& weights, const Write& write) const {
  if (!full()) {
    throw std::logic_error("RolloutBuffer: the rollout holds " + std::to_string(step_) + " of " +
                           std::to_string(n_steps_) + " steps");
  }
  for (std::int64_t env = 0; env < num_envs_; ++env) {
    float next_correction = 0.0f;  // v_{t+1} - V(x_{t+1})
    float next_value = last_values[env];
    for (std::int64_t t = n_steps_ - 1; t >= 0; --t) {
      const std::size_t i = static_cast<std::size_t>(t * num_envs_ + env);
      const bool terminated = terminated_[i] != 0;
      if (terminated || truncated_[i] != 0) {
        // The next row belongs to a new episode: nothing flows back from it.
        next_correction = 0.0f;
        next_value = terminated ? 0.0f : bootstrap_values_[i];
      }
      const auto [rho, c] = weights(i);
      const float delta = rewards_[i] + gamma * next_value - values[i];
      const float correction = rho * delta + gamma * c * next_correction;
      // r_t + gamma v_{t+1} - V(x_t), from the corrected value of the next state.
      const float next_target = rewards_[i] + gamma * (next_value + next_correction) - values[i];
      write(i, correction, next_target);
      next_correction = correction;
      next_value = values[i];
    }
  }
}

void RolloutBuffer::compute_advantages(const float* last_values, float gamma, float gae_lambda) {
  // GAE is the correction with rho = 1 and c = lambda.
  correct_backwards(values_.data(), last_values, gamma,
                    [&](std::size_t) { return std::pair<float, float>{1.0f, gae_lambda}; },
                    [&](std::size_t i, float correction, float) {
                      advantages_[i] = correction;
                      returns_[i] = correction + values_[i];
                    });
}

void RolloutBuffer::compute_vtrace(const float* values, const float* last_values,
                                   const float* log_rhos, const VtraceOptions& options) {
  correct_backwards(
      values, last_values, options.gamma,
      [&](std::size_t i) {
        const float ratio = std::exp(log_rhos[i]);
        return std::pair<float, float>{std::min(options.rho_bar, ratio),
                                       std::min(options.c_bar, ratio)};
      },
      [&](std::size_t i, float correction, float next_target) {
        returns_[i] = values[i] + correction;
        advantages_[i] = std::min(options.pg_rho_bar, std::exp(log_rhos[i])) * next_target;
      });
}

std::int64_t RolloutBuffer::packed_floats(std::int64_t envs) const {
  return n_steps_ * envs * (observation_size_ + action_size_ + 5);
}

void RolloutBuffer::pack(float* out) const {
  if (!full()) throw std::logic_error("RolloutBuffer::pack: the rollout is not full");
  for (const auto* array : {&observations_, &actions_, &log_probs_, &rewards_, &bootstrap_values_}) {
    out = std::copy(array->begin(), array->end(), out);
  }
  for (const auto* flags : {&terminated_, &truncated_}) {
    out = std::transform(flags->begin(), flags->end(), out,
                         [](std::uint8_t flag) { return static_cast<float>(flag); });
  }
}

void RolloutBuffer::unpack_envs(const float* in, std::int64_t envs, std::int64_t first_env) {
  if (envs < 1 || first_env < 0 || first_env + envs > num_envs_) {
    throw std::invalid_argument("RolloutBuffer::unpack_envs: envs [" + std::to_string(first_env) +
                                ", " + std::to_string(first_env + envs) + ") of " +
                                std::to_string(num_envs_));
  }
  // One array of the packed rollout: [n_steps][envs][width] into [n_steps][num_envs][width].
  const auto place = [&](auto& array, std::int64_t width) {
    for (std::int64_t t = 0; t < n_steps_; ++t) {
      auto* row = array.data() + (t * num_envs_ + first_env) * width;
      for (std::int64_t k = 0; k < envs * width; ++k) {
        row[k] = static_cast<typename std::decay_t<decltype(array)>::value_type>(in[k]);
      }
      in += envs * width;
    }
  };
  place(observations_, observation_size_);
  place(actions_, action_size_);
  for (auto* array : {&log_probs_, &rewards_, &bootstrap_values_}) place(*array, 1);
  place(terminated_, 1);
  place(truncated_, 1);
  step_ = n_steps_;
}

void RolloutBuffer::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void RolloutBuffer::load_state(core::StateReader& in) {
  core::load_fields(in, *this);
  if (step_ < 0 || step_ > n_steps_) {
    in.fail("rollout position " + std::to_string(step_) + " outside [0, " +
            std::to_string(n_steps_) + "]");
  }
}

}  // namespace mnrl::replay
