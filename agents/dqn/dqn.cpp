#include "agents/dqn/dqn.h"

#include <algorithm>
#include <cstring>

#include <ATen/TensorOperators.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/smooth_l1_loss.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/utils.h>

#include "nn/memory_views.h"

namespace mnrl::agents {

using nn::copy_out;
using nn::view_floats;

Dqn::Dqn(DqnOptions options, nn::QNetwork online, nn::QNetwork target,
         std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<torch::optim::Optimizer> optimizer, std::int64_t num_envs,
         std::int64_t total_steps, std::uint64_t exploration_seed)
    : options_(std::move(options)),
      online_(std::move(online)),
      target_(std::move(target)),
      parameters_(std::move(parameters)),
      target_parameters_(std::make_unique<nn::FlatParameters>(*target_)),
      optimizer_(std::move(optimizer)),
      num_envs_(num_envs),
      observation_size_(online_->options.observation_size()),
      total_steps_(total_steps),
      exploration_rng_(exploration_seed),
      replay_rng_(core::derive_seed(exploration_seed, 1)),
      n_step_(num_envs, options_.n_step, static_cast<float>(options_.gamma), observation_size_, 1),
      last_observations_(static_cast<std::size_t>(num_envs * observation_size_)),
      last_actions_(static_cast<std::size_t>(num_envs)) {
  if (options_.prioritized) {
    prioritized_ = std::make_unique<replay::PrioritizedReplayBuffer>(
        options_.buffer_size, observation_size_, 1,
        replay::PrioritizedReplayOptions{options_.per_alpha, options_.per_beta0, options_.per_eps});
  } else {
    uniform_ = std::make_unique<replay::ReplayBuffer>(options_.buffer_size, observation_size_, 1);
  }
  torch::NoGradGuard no_grad;
  target_parameters_->values().copy_(parameters_->values());
}

double Dqn::epsilon() const {
  // SB3's linear schedule over the first exploration_fraction of training.
  const double progress = static_cast<double>(env_steps_) / static_cast<double>(total_steps_);
  if (options_.exploration_fraction <= 0 || progress >= options_.exploration_fraction) {
    return options_.exploration_final_eps;
  }
  return options_.exploration_initial_eps +
         (options_.exploration_final_eps - options_.exploration_initial_eps) * progress /
             options_.exploration_fraction;
}

void Dqn::act(const float* observations, const ActionsOut& out) {
  std::memcpy(last_observations_.data(), observations, last_observations_.size() * sizeof(float));
  act_greedy(observations, num_envs_, out);
  const double eps = epsilon();
  const auto num_actions = static_cast<std::uint64_t>(online_->options.num_actions());
  for (std::int64_t i = 0; i < num_envs_; ++i) {
    if (exploration_rng_.uniform() < eps) {
      out.indices[i] = static_cast<std::int64_t>(exploration_rng_.below(num_actions));
    }
    last_actions_[static_cast<std::size_t>(i)] = static_cast<float>(out.indices[i]);
  }
}

void Dqn::observe(const StepOutcome& outcome) {
  n_step_.add(last_observations_.data(), last_actions_.data(), outcome.rewards,
              outcome.next_observations, outcome.terminated, outcome.truncated,
              outcome.final_observations,
              [this](const replay::Transition& transition) { add_transition(transition); });
  env_steps_ += num_envs_;
  ++vector_steps_;
  steps_since_target_update_ += num_envs_;
  if (steps_since_target_update_ >= options_.target_update_interval) {
    update_target();
    steps_since_target_update_ = 0;
  }
}

void Dqn::add_transition(const replay::Transition& transition) {
  if (prioritized_) {
    prioritized_->add(transition);
  } else {
    uniform_->add(transition);
  }
}

bool Dqn::update_ready() const {
  const std::int64_t size = prioritized_ ? prioritized_->size() : uniform_->size();
  return env_steps_ > options_.learning_starts && vector_steps_ % options_.train_freq == 0 &&
         size >= options_.batch_size;
}

Statistics Dqn::update(const TrainingProgress& progress) {
  double loss_sum = 0.0, q_sum = 0.0;
  const std::int64_t b = options_.batch_size;
  for (std::int64_t step = 0; step < options_.gradient_steps; ++step) {
    if (prioritized_) {
      const double beta = replay::annealed_beta(options_.per_beta0, 1.0 - progress.remaining());
      prioritized_->sample(replay_rng_, b, beta, batch_);
    } else {
      uniform_->sample(replay_rng_, b, batch_);
    }
    const at::Tensor observations = view_floats(batch_.observations.data(), b, observation_size_);
    const at::Tensor next_observations =
        view_floats(batch_.next_observations.data(), b, observation_size_);
    const at::Tensor actions = view_floats(batch_.actions.data(), b).to(at::kLong).unsqueeze(1);
    at::Tensor targets;
    {
      torch::NoGradGuard no_grad;
      const at::Tensor next_q = target_->forward(next_observations);
      // Double DQN: the online network picks the action, the target network values it.
      const at::Tensor next_value =
          options_.double_q
              ? next_q.gather(1, online_->forward(next_observations).argmax(1, true)).squeeze(1)
              : std::get<0>(next_q.max(1));
      const at::Tensor not_terminated =
          1 - at::from_blob(batch_.terminated.data(), {b}, at::kByte).to(at::kFloat);
      targets = view_floats(batch_.rewards.data(), b) +
                view_floats(batch_.discounts.data(), b) * not_terminated * next_value;
    }
    const at::Tensor q = online_->forward(observations).gather(1, actions).squeeze(1);
    const at::Tensor elementwise = options_.loss == "huber"
                                       ? at::smooth_l1_loss(q, targets, at::Reduction::None)
                                       : (q - targets).pow(2);
    const at::Tensor loss = (view_floats(batch_.weights.data(), b) * elementwise).mean();

    parameters_->zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(parameters_->values(), options_.max_grad_norm);
    optimizer_->step();

    torch::NoGradGuard no_grad;
    if (prioritized_) {
      const at::Tensor td = (q - targets).abs().contiguous();
      prioritized_->update_priorities(batch_.indices.data(), td.data_ptr<float>(), b);
    }
    loss_sum += loss.item<double>();
    q_sum += q.mean().item<double>();
  }
  const auto n = static_cast<double>(options_.gradient_steps);
  const std::int64_t size = prioritized_ ? prioritized_->size() : uniform_->size();
  return {{"losses/td_loss", loss_sum / n},
          {"losses/q_values", q_sum / n},
          {"charts/epsilon", epsilon()},
          {"charts/buffer_size", static_cast<double>(size)}};
}

void Dqn::act_greedy(const float* observations, std::int64_t batch, const ActionsOut& out) {
  c10::InferenceMode inference;
  copy_out(online_->forward(view_floats(observations, batch, observation_size_)).argmax(1),
           out.indices);
}

void Dqn::update_target() {
  torch::NoGradGuard no_grad;
  at::Tensor target = target_parameters_->values();
  if (options_.tau >= 1.0) {
    target.copy_(parameters_->values());
  } else {
    target.mul_(1.0 - options_.tau).add_(parameters_->values(), options_.tau);
  }
}

}  // namespace mnrl::agents
