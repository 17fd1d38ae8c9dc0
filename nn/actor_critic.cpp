#include "nn/actor_critic.h"

#include <ATen/ops/full.h>
#include <c10/util/Exception.h>

#include <cmath>

#include "nn/categorical.h"
#include "nn/diag_gaussian.h"
#include "nn/precision.h"
#include "nn/squashed_diag_gaussian.h"

namespace mnrl::nn {

ActorCriticImpl::ActorCriticImpl(ActorCriticOptions options_) : options(std::move(options_)) {
  std::int64_t trunk_inputs = options.observation_size();
  if (options.encoder()) {
    encoder_ = register_module("encoder", ConvEncoder(*options.encoder()));
    trunk_inputs = encoder_->out_features();
  }
  if (options.recurrent()) {
    TORCH_CHECK(!options.shared_trunk() || options.recurrent()->shared(),
                "ActorCritic: a shared trunk needs a shared recurrent core");
    core_ = register_module(
        "core", RecurrentCore(RecurrentCoreOptions(*options.recurrent()).input_size(trunk_inputs)));
    trunk_inputs = options.recurrent()->hidden_size();
  }
  const MlpOptions trunk_options =
      MlpOptions(trunk_inputs, options.hidden_sizes()).activation(options.activation());
  policy_trunk_ = register_module("policy_trunk", Mlp(trunk_options));
  if (!options.shared_trunk()) value_trunk_ = register_module("value_trunk", Mlp(trunk_options));
  const std::int64_t features = policy_trunk_->out_features();
  policy_head_ = register_module("policy_head", torch::nn::Linear(features, options.action_size()));
  value_head_ = register_module("value_head", torch::nn::Linear(features, 1));

  if (options.orthogonal_init()) {
    const double hidden_gain = std::sqrt(2.0);
    if (!encoder_.is_empty()) encoder_->orthogonal_init(hidden_gain);
    for (auto* trunk : {&policy_trunk_, &value_trunk_}) {
      if (trunk->is_empty()) continue;
      for (auto layer : (*trunk)->layers()) orthogonal_init(layer, hidden_gain);
    }
    orthogonal_init(policy_head_, 0.01);
    orthogonal_init(value_head_, 1.0);
  }
  TORCH_CHECK(options.continuous() || !options.use_sde(), "ActorCritic: gSDE needs Box actions");
  if (options.use_sde()) {
    sde_.emplace(features, options.action_size(),
                 StateDependentNoiseOptions(options.sde()).squash(options.squash()));
    log_std_ = register_parameter("log_std", sde_->initial_log_std(options.log_std_init()));
  } else if (options.continuous()) {
    log_std_ = register_parameter(
        "log_std", at::full({options.action_size()}, options.log_std_init(), at::kFloat));
  }
}

std::unique_ptr<ActionDistribution> ActorCriticImpl::distribution(const PolicyValue& output) const {
  if (!options.continuous()) return std::make_unique<Categorical>(output.policy);
  if (sde_) return sde_->distribution(output.policy, log_std_, output.features, false);
  if (options.squash()) return std::make_unique<SquashedDiagGaussian>(output.policy, log_std_);
  return std::make_unique<DiagGaussian>(output.policy, log_std_);
}

std::unique_ptr<ActionDistribution> ActorCriticImpl::exploration_distribution(
    const PolicyValue& output) const {
  if (sde_) return sde_->distribution(output.policy, log_std_, output.features, true);
  return distribution(output);
}

void ActorCriticImpl::reset_noise(std::int64_t count) {
  if (sde_) sde_->resample(count);
}

at::Tensor ActorCriticImpl::trunk_input(const at::Tensor& observations) {
  return encoder_.is_empty() ? observations : encoder_->forward(observations);
}

// The outputs in float32 (a no-op unless in bf16), and the losses computed from them.
PolicyValue ActorCriticImpl::forward(const at::Tensor& observations) {
  TORCH_CHECK(!recurrent(), "ActorCritic: a recurrent actor-critic needs its memory");
  const Bf16Autocast autocast(options.bf16_autocast());
  const at::Tensor inputs = trunk_input(observations);
  return heads(inputs, inputs);
}

PolicyValue ActorCriticImpl::forward(const at::Tensor& observations,
                                     const at::Tensor& episode_starts, const at::Tensor& state,
                                     at::Tensor* state_out) {
  TORCH_CHECK(recurrent(), "ActorCritic: a memoryless actor-critic takes no memory");
  const Bf16Autocast autocast(options.bf16_autocast());
  const std::int64_t batch = state.size(0);
  const at::Tensor inputs = trunk_input(observations);
  const std::int64_t steps = inputs.size(0) / batch;
  const RecurrentOutput memory = core_->forward(inputs.view({steps, batch, inputs.size(1)}),
                                                episode_starts.view({steps, batch}), state);
  if (state_out) *state_out = memory.state;
  const auto rows = [&](const at::Tensor& features) {
    return features.reshape({steps * batch, features.size(2)});
  };
  return heads(rows(memory.policy_features), rows(memory.value_features));
}

PolicyValue ActorCriticImpl::heads(const at::Tensor& policy_inputs,
                                   const at::Tensor& value_inputs) {
  const at::Tensor policy_features = policy_trunk_->forward(policy_inputs);
  const at::Tensor value_features =
      value_trunk_.is_empty() ? policy_features : value_trunk_->forward(value_inputs);
  return {policy_head_->forward(policy_features).to(at::kFloat),
          value_head_->forward(value_features).squeeze(-1).to(at::kFloat),
          policy_features.to(at::kFloat)};
}

at::Tensor ActorCriticImpl::value(const at::Tensor& observations) {
  TORCH_CHECK(!recurrent(), "ActorCritic: a recurrent actor-critic needs its memory");
  const Bf16Autocast autocast(options.bf16_autocast());
  const at::Tensor inputs = trunk_input(observations);
  const at::Tensor features =
      value_trunk_.is_empty() ? policy_trunk_->forward(inputs) : value_trunk_->forward(inputs);
  return value_head_->forward(features).squeeze(-1).to(at::kFloat);
}

}  // namespace mnrl::nn
