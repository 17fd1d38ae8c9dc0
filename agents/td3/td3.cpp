#include "agents/td3/td3.h"

#include <algorithm>
#include <stdexcept>

#include "nn/learning_rate.h"
#include "nn/tensor_state.h"

namespace mnrl::agents {
namespace {

nn::ContinuousActor on_device(nn::ContinuousActor actor, const c10::Device& device) {
  actor->to(device);
  return actor;
}

}  // namespace

Td3::Td3(std::string tag, const Td3Options& options, ActionBounds bounds,
         std::shared_ptr<OffPolicyNetworks> networks,
         std::shared_ptr<nn::FlatParameters> parameters, std::unique_ptr<replay::Replay> replay,
         std::uint64_t seed, GradientPath path)
    : ContinuousOffPolicyAgent(std::move(tag), options.off_policy, std::move(bounds),
                               networks->actor(), std::move(replay), seed),
      td3_(options),
      networks_(std::move(networks)),
      parameters_(std::move(parameters)),
      target_critics_(networks_->critics(), networks_->critics_range().of(parameters_->values())),
      target_actor_(on_device(nn::ContinuousActor(networks_->actor()->options),
                              parameters_->values().device())),
      target_actor_parameters_(std::make_unique<nn::FlatParameters>(*target_actor_)),
      critic_optimizer_(
          adam_over(*parameters_, networks_->critics_range(), options.off_policy.learning_rate)),
      actor_optimizer_(
          adam_over(*parameters_, networks_->actor_range(), options.off_policy.learning_rate)),
      noise_(options.noise, num_envs(), action_size()),
      smoothing_rng_(core::derive_seed(seed, 2)),
      next_actions_(static_cast<std::size_t>(options.off_policy.batch_size * action_size())),
      targets_(static_cast<std::size_t>(options.off_policy.batch_size)),
      action_gradients_(next_actions_.size()) {
  follow(target_actor_parameters_->values(), networks_->actor_range().of(parameters_->values()),
         1.0);
  const std::int64_t batch_size = options.off_policy.batch_size;
  if (path == GradientPath::by_hand) {
    if (!parameters_->values().is_cpu()) {
      throw std::logic_error("Td3: the hand-written passes run on the CPU only");
    }
    by_hand_.reset(new ByHand{Critics(networks_->critics(), target_critics_, batch_size),
                              nn::ContinuousActorPass(networks_->actor(), batch_size),
                              nn::ContinuousActorPass(target_actor_, batch_size)});
  }
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

void Td3::draw_smoothing_noise() {
  for (float& noise : next_actions_) {
    noise = static_cast<float>(td3_.target_policy_noise * smoothing_rng_.normal());
  }
}

void Td3::compute_targets(const replay::TransitionBatch& batch) {
  const float* mu = by_hand_->target_pass.deterministic(batch.next_observations.data());
  const bool smoothing = td3_.target_policy_noise > 0;
  if (smoothing) draw_smoothing_noise();
  const auto clip = static_cast<float>(td3_.target_noise_clip);
  for (std::size_t k = 0; k < next_actions_.size(); ++k) {
    next_actions_[k] =
        smoothing ? std::clamp(mu[k] + std::clamp(next_actions_[k], -clip, clip), -1.0f, 1.0f)
                  : mu[k];
  }
  const float* next_q =
      by_hand_->critics.min_target_q(batch.next_observations.data(), next_actions_.data());
  for (std::size_t b = 0; b < targets_.size(); ++b) {
    targets_[b] = batch.rewards[b] + (batch.terminated[b] ? 0.0f : batch.discounts[b] * next_q[b]);
  }
}

void Td3::update_targets() {
  const double tau = td3_.off_policy.tau;
  target_critics_.update(tau);
  follow(target_actor_parameters_->values(), networks_->actor_range().of(parameters_->values()),
         tau);
}

Td3GradientSteps& Td3::autograd_steps() {
  if (autograd_steps_) return *autograd_steps_;
  Td3GradientSteps::Options steps;
  steps.tau = td3_.off_policy.tau;
  steps.smoothing = td3_.target_policy_noise > 0;
  steps.target_noise_clip = td3_.target_noise_clip;
  steps.batch_size = td3_.off_policy.batch_size;
  autograd_steps_ = std::make_unique<Td3GradientSteps>(
      *networks_, *parameters_, target_critics_, target_actor_, target_actor_parameters_->values(),
      *critic_optimizer_, *actor_optimizer_, steps, gradient_hook(), cuda_graphs_chosen(),
      cuda_graphs() == CudaGraphs::required);
  return *autograd_steps_;
}

Statistics Td3::gradient_step(const replay::TransitionBatch& batch) {
  if (by_hand_) return step_by_hand(batch);
  const bool smoothing = td3_.target_policy_noise > 0;
  if (smoothing) draw_smoothing_noise();
  const bool with_actor = ++gradient_steps_done_ % td3_.policy_delay == 0;
  autograd_steps().step(batch, smoothing ? next_actions_.data() : nullptr, with_actor);
  return {};
}

Statistics Td3::device_means() {
  return autograd_steps_ ? autograd_steps_->take_means() : Statistics{};
}

Statistics Td3::step_by_hand(const replay::TransitionBatch& batch) {
  compute_targets(batch);
  Critics& critics = by_hand_->critics;
  std::vector<double> losses, mean_q;
  // SB3's TD3 loss: the sum of the critics' mean squared errors.
  critics.backward_td_loss(batch.observations.data(), batch.actions.data(), targets_.data(), 1.0f,
                           losses, mean_q);
  const auto critics_range = networks_->critics_range();
  average_gradients(critics_range.offset, critics_range.count);
  critic_optimizer_->step();

  Statistics statistics{{"losses/qf1_values", mean_q[0]}, {"losses/qf1_loss", losses[0]}};
  if (critics.size() == 2) {
    statistics.emplace_back("losses/qf2_values", mean_q[1]);
    statistics.emplace_back("losses/qf2_loss", losses[1]);
    statistics.emplace_back("losses/qf_loss", losses[0] + losses[1]);
  }
  if (++gradient_steps_done_ % td3_.policy_delay != 0) return statistics;

  // loss = -mean Q_1(s, mu(s)), under the updated critics.
  const auto rows = static_cast<double>(targets_.size());
  nn::ContinuousActorPass& train_pass = by_hand_->train_pass;
  const float* mu = train_pass.deterministic(batch.observations.data());
  const double mean_q_mu =
      critics.action_gradient(batch.observations.data(), mu, false, static_cast<float>(-1.0 / rows),
                              action_gradients_.data());
  train_pass.backward(action_gradients_.data());
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
  fields(nn::tensor_values(parameters_->values()), nn::tensor_values(target_critics_.values()),
         nn::tensor_values(target_actor_parameters_->values()),
         nn::optimizer_state(*critic_optimizer_), nn::optimizer_state(*actor_optimizer_), noise_,
         smoothing_rng_, gradient_steps_done_);
}

void Td3::save_learner(core::StateWriter& out) const { core::save_fields(out, *this); }

void Td3::load_learner(core::StateReader& in) {
  core::load_fields(in, *this);
  if (autograd_steps_) autograd_steps_->forget_captures();
}

}  // namespace mnrl::agents
