#include "agents/ppo/ppo.h"

#include <algorithm>
#include <cstring>

#include <ATen/TensorOperators.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/mse_loss.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/randperm.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/utils.h>

#include "nn/categorical.h"

namespace mnrl::agents {
namespace {

// A [rows, cols] float tensor over memory owned elsewhere (no copy).
at::Tensor view_floats(const float* data, std::int64_t rows, std::int64_t cols = 0) {
  auto* p = const_cast<float*>(data);
  return cols == 0 ? at::from_blob(p, {rows}, at::kFloat) : at::from_blob(p, {rows, cols}, at::kFloat);
}

template <class T>
void copy_out(const at::Tensor& t, T* out) {
  const at::Tensor c = t.contiguous();
  std::memcpy(out, c.data_ptr<T>(), static_cast<std::size_t>(c.numel()) * sizeof(T));
}

// SB3's schedules: "linear" goes from `initial` to 0 as progress_remaining goes 1 -> 0.
double scheduled(double initial, const std::string& schedule, double remaining) {
  return schedule == "linear" ? initial * remaining : initial;
}

}  // namespace

Ppo::Ppo(PpoOptions options, nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer)
    : options_(std::move(options)),
      model_(std::move(model)),
      parameters_(std::move(parameters)),
      optimizer_(std::move(optimizer)),
      buffer_(std::move(buffer)),
      next_observations_(static_cast<std::size_t>(buffer_.num_envs() * buffer_.observation_size())) {}

void Ppo::act(const float* observations, const ActionsOut& out) {
  c10::InferenceMode inference;
  const std::int64_t n = buffer_.num_envs();
  const std::int64_t size = buffer_.observation_size();
  std::memcpy(buffer_.observations_at_step(), observations,
              static_cast<std::size_t>(n * size) * sizeof(float));
  const auto [logits, value] = model_->forward(view_floats(observations, n, size));
  const nn::Categorical policy(logits);
  const at::Tensor actions = policy.sample();
  copy_out(actions, out.indices);
  copy_out(actions.to(at::kFloat), buffer_.actions_at_step());
  copy_out(policy.log_prob(actions), buffer_.log_probs_at_step());
  copy_out(value, buffer_.values_at_step());
}

void Ppo::observe(const StepOutcome& outcome) {
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

Statistics Ppo::update(const TrainingProgress& progress) {
  const std::int64_t total = buffer_.size();
  const std::int64_t size = buffer_.observation_size();
  {
    c10::InferenceMode inference;
    std::vector<float> last_values(static_cast<std::size_t>(buffer_.num_envs()));
    copy_out(model_->value(view_floats(next_observations_.data(), buffer_.num_envs(), size)),
             last_values.data());
    buffer_.compute_advantages(last_values.data(), static_cast<float>(options_.gamma),
                               static_cast<float>(options_.gae_lambda));
  }
  const double learning_rate =
      scheduled(options_.learning_rate, options_.lr_schedule, progress.remaining());
  const double clip = scheduled(options_.clip_range, options_.clip_range_schedule,
                                progress.remaining());
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(learning_rate);

  const at::Tensor observations = view_floats(buffer_.observations(), total, size);
  const at::Tensor actions = view_floats(buffer_.actions(), total).to(at::kLong);
  const at::Tensor old_log_probs = view_floats(buffer_.log_probs(), total);
  const at::Tensor old_values = view_floats(buffer_.values(), total);
  const at::Tensor advantages = view_floats(buffer_.advantages(), total);
  const at::Tensor returns = view_floats(buffer_.returns(), total);

  at::Tensor statistics;  // sums over minibatches: policy loss, value loss, entropy, kl, clipfrac
  std::int64_t minibatches = 0;
  // One minibatch holding the whole rollout needs no shuffling: the loss is a mean.
  const bool shuffle = options_.batch_size < total;
  for (std::int64_t epoch = 0; epoch < options_.n_epochs; ++epoch) {
    const at::Tensor order = shuffle ? at::randperm(total, at::kLong) : at::Tensor();
    for (std::int64_t start = 0; start < total; start += options_.batch_size) {
      const std::int64_t count = std::min(options_.batch_size, total - start);
      auto take = [&](const at::Tensor& t) {
        return shuffle ? t.index_select(0, order.narrow(0, start, count)) : t;
      };
      const at::Tensor mb_old_values = take(old_values);
      const at::Tensor mb_returns = take(returns);

      const auto [logits, values] = model_->forward(take(observations));
      const nn::Categorical policy(logits);
      const at::Tensor log_ratio = policy.log_prob(take(actions)) - take(old_log_probs);
      const at::Tensor ratio = log_ratio.exp();

      at::Tensor mb_advantages = take(advantages);
      if (options_.normalize_advantage && count > 1) {
        mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8);
      }
      const at::Tensor policy_loss =
          -at::min(mb_advantages * ratio, mb_advantages * ratio.clamp(1.0 - clip, 1.0 + clip))
               .mean();
      const at::Tensor predicted =
          options_.clip_range_vf
              ? mb_old_values + (values - mb_old_values)
                                    .clamp(-*options_.clip_range_vf, *options_.clip_range_vf)
              : values;
      const at::Tensor value_loss = at::mse_loss(predicted, mb_returns);
      at::Tensor loss = policy_loss + options_.vf_coef * value_loss;
      // Without an entropy bonus the entropy is only reported: keep it out of the graph.
      at::Tensor entropy;
      if (options_.ent_coef > 0) {
        entropy = policy.entropy().mean();
        loss = loss - options_.ent_coef * entropy;
      }

      parameters_->zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(parameters_->values(), options_.max_grad_norm);
      optimizer_->step();

      torch::NoGradGuard no_grad;
      if (!entropy.defined()) entropy = policy.entropy().mean();
      const at::Tensor ratio_change = ratio - 1;
      // Summed as one tensor and read once per update, not once per minibatch.
      const at::Tensor minibatch_statistics = at::stack(
          {policy_loss, value_loss, entropy, (ratio_change - log_ratio).mean(),
           (ratio_change.abs() > clip).to(at::kFloat).mean()});
      statistics = statistics.defined() ? statistics + minibatch_statistics
                                        : minibatch_statistics;
      ++minibatches;
    }
  }
  buffer_.clear();

  // Fraction of the return variance the value function explains (1 = perfect, <= 0 = none).
  const double return_variance = returns.var().item<double>();
  const double explained_variance =
      return_variance == 0 ? 0.0 : 1.0 - (returns - old_values).var().item<double>() / return_variance;
  const at::Tensor means = (statistics / minibatches).to(at::kDouble);
  const double* mean = means.data_ptr<double>();
  return {{"losses/policy_loss", mean[0]},
          {"losses/value_loss", mean[1]},
          {"losses/entropy", mean[2]},
          {"losses/approx_kl", mean[3]},
          {"losses/clipfrac", mean[4]},
          {"losses/explained_variance", explained_variance},
          {"charts/learning_rate", learning_rate},
          {"charts/clip_range", clip}};
}

void Ppo::act_greedy(const float* observations, std::int64_t batch, const ActionsOut& out) {
  c10::InferenceMode inference;
  const at::Tensor logits =
      model_->forward(view_floats(observations, batch, buffer_.observation_size())).logits;
  copy_out(logits.argmax(-1), out.indices);
}

}  // namespace mnrl::agents
