#include "agents/actor_critic_agent.h"

#include <algorithm>
#include <cstring>

#include <ATen/TensorOperators.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/utils/clip_grad.h>

#include "nn/memory_views.h"
#include "nn/policy_export.h"
#include "nn/tensor_state.h"

namespace mnrl::agents {

using nn::copy_out;
using nn::view_floats;

RolloutBatch RolloutBatch::select(const at::Tensor& rows) const {
  return {observations.index_select(0, rows), actions.index_select(0, rows),
          log_probs.index_select(0, rows),    values.index_select(0, rows),
          advantages.index_select(0, rows),   returns.index_select(0, rows)};
}

ActorCriticAgent::ActorCriticAgent(nn::ActorCritic model,
                                   std::shared_ptr<nn::FlatParameters> parameters,
                                   std::unique_ptr<torch::optim::Optimizer> optimizer,
                                   replay::RolloutBuffer buffer, ActionBounds bounds,
                                   std::int64_t sde_sample_freq)
    : model_(std::move(model)),
      parameters_(std::move(parameters)),
      optimizer_(std::move(optimizer)),
      buffer_(std::move(buffer)),
      bounds_(std::move(bounds)),
      sde_sample_freq_(sde_sample_freq),
      next_observations_(
          static_cast<std::size_t>(buffer_.num_envs() * buffer_.observation_size())) {}

void ActorCriticAgent::act(const float* observations, const ActionsOut& out) {
  c10::InferenceMode inference;
  const std::int64_t n = buffer_.num_envs();
  const std::int64_t size = buffer_.observation_size();
  std::memcpy(buffer_.observations_at_step(), observations,
              static_cast<std::size_t>(n * size) * sizeof(float));
  const std::int64_t step = buffer_.step();
  if (step == 0 || (sde_sample_freq_ > 0 && step % sde_sample_freq_ == 0)) model_->reset_noise(n);
  const nn::PolicyValue output = model_->forward(view_floats(observations, n, size));
  const auto distribution = model_->exploration_distribution(output);
  const at::Tensor actions = distribution->sample();
  // The rollout keeps the sample itself (an index as a float, or the unclipped values).
  copy_out(actions.to(at::kFloat), buffer_.actions_at_step());
  copy_out(distribution->log_prob(actions), buffer_.log_probs_at_step());
  copy_out(output.value, buffer_.values_at_step());
  write_env_actions(actions, out);
}

void ActorCriticAgent::observe(const StepOutcome& outcome) {
  const std::int64_t n = buffer_.num_envs();
  const std::int64_t size = buffer_.observation_size();
  std::copy_n(outcome.rewards, n, buffer_.rewards_at_step());
  std::copy_n(outcome.terminated, n, buffer_.terminated_at_step());
  std::copy_n(outcome.truncated, n, buffer_.truncated_at_step());
  std::copy_n(outcome.next_observations, n * size, next_observations_.begin());

  // A truncated episode is bootstrapped from the value of its final observation.
  float* bootstrap = buffer_.bootstrap_values_at_step();
  for (std::int64_t i = 0; i < n; ++i) {
    if (!outcome.truncated[i] || outcome.terminated[i]) continue;
    c10::InferenceMode inference;
    bootstrap[i] = model_->value(view_floats(outcome.final_observations + i * size, 1, size))
                       .item<float>();
  }
  buffer_.advance();
}

void ActorCriticAgent::act_greedy(const float* observations, std::int64_t batch,
                                  const ActionsOut& out) {
  act_without_storing(observations, batch, out, /*sample=*/false);
}

void ActorCriticAgent::act_stochastic(const float* observations, std::int64_t batch,
                                      const ActionsOut& out) {
  act_without_storing(observations, batch, out, /*sample=*/true);
}

void ActorCriticAgent::act_without_storing(const float* observations, std::int64_t batch,
                                           const ActionsOut& out, bool sample) {
  c10::InferenceMode inference;
  const nn::PolicyValue output =
      model_->forward(view_floats(observations, batch, buffer_.observation_size()));
  const auto distribution = model_->distribution(output);
  write_env_actions(sample ? distribution->sample() : distribution->mode(), out);
}

void ActorCriticAgent::save_state(core::StateWriter& out) const {
  out.tag("actor_critic");
  nn::save_tensor(out, parameters_->values());
  nn::save_optimizer(out, *optimizer_);
  buffer_.save_state(out);
  out.values(next_observations_);
  if (const auto* noise = model_->state_dependent_noise()) noise->save_state(out);
}

void ActorCriticAgent::load_state(core::StateReader& in) {
  in.expect_tag("actor_critic");
  nn::load_tensor(in, parameters_->values());
  nn::load_optimizer(in, *optimizer_);
  buffer_.load_state(in);
  in.values(next_observations_);
  if (auto* noise = model_->state_dependent_noise()) noise->load_state(in, buffer_.num_envs());
}

void ActorCriticAgent::write_env_actions(const at::Tensor& actions, const ActionsOut& out) const {
  if (!model_->options.continuous()) {
    copy_out(actions, out.indices);
    return;
  }
  copy_out(actions, out.values);
  const std::size_t width = bounds_.low.size();
  const auto count = static_cast<std::size_t>(actions.numel());
  const bool squash = model_->options.squash();
  for (std::size_t i = 0; i < count; ++i) {
    const float low = bounds_.low[i % width];
    const float high = bounds_.high[i % width];
    float& value = out.values[i];
    // Squashed values lie in (-1, 1): map them onto the bounds. Gaussian ones may lie anywhere.
    value = squash ? low + 0.5f * (value + 1.0f) * (high - low) : std::clamp(value, low, high);
  }
}

std::string ActorCriticAgent::export_greedy_policy(
    const std::optional<nn::ObservationScale>& scale) const {
  const nn::ActorCriticOptions& options = model_->options;
  nn::GreedyPolicy policy;
  policy.observation_scale = scale;
  policy.trunk = model_->policy_trunk()->layers();
  policy.activation = options.activation();
  policy.head = model_->policy_head();
  policy.output = !options.continuous() ? nn::GreedyPolicy::Output::argmax
                  : options.squash()    ? nn::GreedyPolicy::Output::squashed
                                        : nn::GreedyPolicy::Output::clipped;
  policy.low = bounds_.low;
  policy.high = bounds_.high;
  return nn::torchscript_policy(policy);
}

RolloutBatch ActorCriticAgent::finish_rollout(double gamma, double gae_lambda) {
  const std::int64_t total = buffer_.size();
  const std::int64_t size = buffer_.observation_size();
  {
    c10::InferenceMode inference;
    std::vector<float> last_values(static_cast<std::size_t>(buffer_.num_envs()));
    copy_out(model_->value(view_floats(next_observations_.data(), buffer_.num_envs(), size)),
             last_values.data());
    buffer_.compute_advantages(last_values.data(), static_cast<float>(gamma),
                               static_cast<float>(gae_lambda));
  }
  const at::Tensor actions =
      model_->options.continuous()
          ? view_floats(buffer_.actions(), total, buffer_.action_size())
          : view_floats(buffer_.actions(), total).to(at::kLong);
  return {view_floats(buffer_.observations(), total, size), actions,
          view_floats(buffer_.log_probs(), total),         view_floats(buffer_.values(), total),
          view_floats(buffer_.advantages(), total),        view_floats(buffer_.returns(), total)};
}

void ActorCriticAgent::set_learning_rate(double learning_rate) {
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(learning_rate);
}

void ActorCriticAgent::gradient_step(const at::Tensor& loss, double max_grad_norm) {
  parameters_->zero_grad();
  loss.backward();
  if (after_backward_) after_backward_();
  torch::nn::utils::clip_grad_norm_(parameters_->values(), max_grad_norm);
  optimizer_->step();
}

double explained_variance(const at::Tensor& returns, const at::Tensor& values) {
  const double return_variance = returns.var().item<double>();
  return return_variance == 0 ? 0.0
                              : 1.0 - (returns - values).var().item<double>() / return_variance;
}

}  // namespace mnrl::agents
