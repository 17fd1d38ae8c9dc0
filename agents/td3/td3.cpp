#include "agents/td3/td3.h"

#include <algorithm>

#include <torch/utils.h>

#include "nn/learning_rate.h"
#include "nn/tensor_state.h"

namespace mnrl::agents {

Td3::Td3(std::string tag, const Td3Options& options, ActionBounds bounds,
         std::shared_ptr<OffPolicyNetworks> networks, std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<replay::Replay> replay, std::uint64_t seed)
    : ContinuousOffPolicyAgent(std::move(tag), options.off_policy, std::move(bounds),
                               networks->actor(), std::move(replay), seed),
      td3_(options),
      networks_(std::move(networks)),
      parameters_(std::move(parameters)),
      critics_(networks_->critics(), networks_->critics_range().of(parameters_->values()),
               options.off_policy.batch_size),
      target_actor_(networks_->actor()->options),
      target_actor_parameters_(std::make_unique<nn::FlatParameters>(*target_actor_)),
      critic_optimizer_(adam_over(*parameters_, networks_->critics_range(),
                                  options.off_policy.learning_rate)),
      actor_optimizer_(adam_over(*parameters_, networks_->actor_range(),
                                 options.off_policy.learning_rate)),
      train_pass_(networks_->actor(), options.off_policy.batch_size),
      target_pass_(target_actor_, options.off_policy.batch_size),
      noise_(options.noise, num_envs(), action_size()),
      smoothing_rng_(core::derive_seed(seed, 2)),
      next_actions_(static_cast<std::size_t>(options.off_policy.batch_size * action_size())),
      targets_(static_cast<std::size_t>(options.off_policy.batch_size)),
      action_gradients_(next_actions_.size()) {
  torch::NoGradGuard no_grad;
  target_actor_parameters_->values().copy_(networks_->actor_range().of(parameters_->values()));
}

void Td3::explore(const float* observations, float* actions) {
  const float* mu = deterministic_actions(observations, num_envs());
  std::copy(mu, mu + num_envs() * action_size(), actions);
  noise_.perturb(actions, num_envs(), exploration_rng());
}

void Td3::sample_actions(const float* observations, std::int64_t batch, float* actions) {
  const float* mu = deterministic_actions(observations, batch);
  std::copy(mu, mu + batch * action_size(), actions);
  ActionNoiseOptions independent = td3_.noise;
  if (independent.action_noise != "none") independent.action_noise = "normal";
  ActionNoise(independent, batch, action_size()).perturb(actions, batch, exploration_rng());
}

void Td3::compute_targets(const replay::TransitionBatch& batch) {
  const float* mu = target_pass_.deterministic(batch.next_observations.data());
  const auto sigma = td3_.target_policy_noise;
  const auto clip = static_cast<float>(td3_.target_noise_clip);
  for (std::size_t k = 0; k < next_actions_.size(); ++k) {
    float action = mu[k];
    if (sigma > 0) {
      const auto noise = static_cast<float>(sigma * smoothing_rng_.normal());
      action = std::clamp(action + std::clamp(noise, -clip, clip), -1.0f, 1.0f);
    }
    next_actions_[k] = action;
  }
  const float* next_q = critics_.min_target_q(batch.next_observations.data(), next_actions_.data());
  for (std::size_t b = 0; b < targets_.size(); ++b) {
    targets_[b] = batch.rewards[b] + (batch.terminated[b] ? 0.0f : batch.discounts[b] * next_q[b]);
  }
}

void Td3::update_targets() {
  torch::NoGradGuard no_grad;
  const double tau = td3_.off_policy.tau;
  critics_.update_targets(tau);
  target_actor_parameters_->values().mul_(1.0 - tau).add_(
      networks_->actor_range().of(parameters_->values()), tau);
}

Statistics Td3::gradient_step(const replay::TransitionBatch& batch) {
  compute_targets(batch);
  std::vector<double> losses, mean_q;
  // SB3's TD3 loss: the sum of the critics' mean squared errors.
  critics_.backward_td_loss(batch.observations.data(), batch.actions.data(), targets_.data(),
                            1.0f, losses, mean_q);
  const auto critics_range = networks_->critics_range();
  average_gradients(critics_range.offset, critics_range.count);
  critic_optimizer_->step();

  Statistics statistics{{"losses/qf1_values", mean_q[0]}, {"losses/qf1_loss", losses[0]}};
  if (critics_.size() == 2) {
    statistics.emplace_back("losses/qf2_values", mean_q[1]);
    statistics.emplace_back("losses/qf2_loss", losses[1]);
    statistics.emplace_back("losses/qf_loss", losses[0] + losses[1]);
  }
  if (++gradient_steps_done_ % td3_.policy_delay != 0) return statistics;

  // loss = -mean Q_1(s, mu(s)), under the updated critics.
  const auto rows = static_cast<double>(targets_.size());
  const float* mu = train_pass_.deterministic(batch.observations.data());
  const double mean_q_mu = critics_.action_gradient(batch.observations.data(), mu, false,
                                                    static_cast<float>(-1.0 / rows),
                                                    action_gradients_.data());
  train_pass_.backward(action_gradients_.data());
  const auto actor_range = networks_->actor_range();
  average_gradients(actor_range.offset, actor_range.count);
  actor_optimizer_->step();
  update_targets();
  statistics.emplace_back("losses/actor_loss", -mean_q_mu);
  return statistics;
}

void Td3::set_learning_rate(double learning_rate) {
  nn::set_learning_rate(*critic_optimizer_, learning_rate);
  nn::set_learning_rate(*actor_optimizer_, learning_rate);
}

std::vector<double> Td3::learning_rates() const {
  return {nn::learning_rate_of(*critic_optimizer_), nn::learning_rate_of(*actor_optimizer_)};
}

template <class Fields>
void Td3::state_fields(Fields& fields) {
  fields(nn::tensor_values(parameters_->values()), nn::tensor_values(critics_.target_values()),
         nn::tensor_values(target_actor_parameters_->values()),
         nn::optimizer_state(*critic_optimizer_), nn::optimizer_state(*actor_optimizer_), noise_,
         smoothing_rng_, gradient_steps_done_);
}

void Td3::save_learner(core::StateWriter& out) const { core::save_fields(out, *this); }

void Td3::load_learner(core::StateReader& in) { core::load_fields(in, *this); }

}  // namespace mnrl::agents
