#include "agents/actor_critic_loss_gradients.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/stack.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mnrl::agents {
namespace {

// log pi(a|s) and the entropy of one row's distribution.
struct RowDistribution {
  float log_prob = 0, entropy = 0;
};

// Categorical over logits: d log pi / d logit_k = [k == a] - p_k into `log_prob_gradient`, and
// d H / d logit_k into `entropy_gradient`.
RowDistribution categorical_row(const float* logits, std::int64_t n, std::int64_t action,
                                float* log_prob_gradient, float* entropy_gradient) {
  float max = logits[0];
  for (std::int64_t k = 1; k < n; ++k) max = std::max(max, logits[k]);
  float sum = 0;
  for (std::int64_t k = 0; k < n; ++k) sum += std::exp(logits[k] - max);
  const float log_normalizer = max + std::log(sum);
  RowDistribution row;
  for (std::int64_t k = 0; k < n; ++k) {
    const float log_p = logits[k] - log_normalizer;
    const float p = std::exp(log_p);
    row.entropy -= p * log_p;
    log_prob_gradient[k] = (k == action ? 1.0f : 0.0f) - p;  // d log p_a / d logit_k
  }
  row.log_prob = logits[action] - log_normalizer;
  // d H / d logit_k = -p_k (log p_k + H).
  for (std::int64_t k = 0; k < n; ++k) {
    const float log_p = logits[k] - log_normalizer;
    entropy_gradient[k] = -std::exp(log_p) * (log_p + row.entropy);
  }
  return row;
}

// Diagonal Gaussian: d log pi / d mean_j = z_j / std_j into `mean_gradient` and
// d log pi / d log_std_j = z_j^2 - 1 into `log_std_gradient`, with z = (a - mean) / std. The
// entropy sum_j (log_std_j + 1/2 + log(2 pi) / 2) has d H / d log_std_j = 1.
RowDistribution gaussian_row(const float* mean, const float* action, const float* log_std,
                             std::int64_t n, float* mean_gradient, float* log_std_gradient) {
  RowDistribution row;
  for (std::int64_t j = 0; j < n; ++j) {
    const float inverse_std = std::exp(-log_std[j]);
    const float z = (action[j] - mean[j]) * inverse_std;
    row.log_prob += z * z * -0.5f - log_std[j] - kHalfLog2Pi;
    row.entropy += log_std[j] + (0.5f + kHalfLog2Pi);
    mean_gradient[j] = z * inverse_std;
    log_std_gradient[j] = z * z - 1.0f;
  }
  return row;
}

// The rows' advantages, normalized over the batch (mean 0, unbiased std 1, as torch's std) when
// the options ask for it and there is more than one row.
std::vector<float> batch_advantages(const RolloutRows& rows, bool normalize) {
  std::vector<float> advantages(rows.advantages, rows.advantages + rows.count);
  if (!normalize || rows.count < 2) return advantages;
  double mean = 0;
  for (const float a : advantages) mean += a;
  mean /= static_cast<double>(rows.count);
  double squares = 0;
  for (const float a : advantages) squares += (a - mean) * (a - mean);
  const auto std_dev = static_cast<float>(std::sqrt(squares / static_cast<double>(rows.count - 1)));
  const auto mean_f = static_cast<float>(mean);
  for (float& a : advantages) a = (a - mean_f) / (std_dev + 1e-8f);
  return advantages;
}

// d loss / d log pi of one row, whose advantage is `advantage`, probability ratio `ratio` and
// log-probability `log_prob`; adds the row's policy loss (and whether it was clipped) to `loss`.
float policy_slope(const ActorCriticLossOptions& options, float advantage, float ratio,
                   float log_prob, float inverse_b, LossValues& loss) {
  if (!options.clip_range) {
    loss.policy_loss -= advantage * log_prob;
    return -advantage * inverse_b;
  }
  const auto clip = static_cast<float>(*options.clip_range);
  const float unclipped = advantage * ratio;
  const float clipped = advantage * std::clamp(ratio, 1.0f - clip, 1.0f + clip);
  loss.policy_loss -= std::min(unclipped, clipped);
  loss.clip_fraction += std::abs(ratio - 1.0f) > clip ? 1.0 : 0.0;
  // The clipped term has no gradient where it is the smaller one (the ratio is outside the clip
  // range there); where they tie, autograd splits the same gradient in two.
  return unclipped <= clipped ? -unclipped * inverse_b : 0.0f;
}

// Row i's d loss / d value: mean squared error to the return, of the value clipped around the
// collected one. Adds the row's squared error to `loss`.
float value_slope(const ActorCriticLossOptions& options, const RolloutRows& rows, std::int64_t i,
                  float value, float inverse_b, LossValues& loss) {
  float predicted = value;
  float passes = 1.0f;  // clamp's gradient: 1 inside [-clip, clip], bounds included
  if (options.clip_range_vf) {
    const auto clip = static_cast<float>(*options.clip_range_vf);
    const float change = value - rows.values[i];
    predicted = rows.values[i] + std::clamp(change, -clip, clip);
    passes = change >= -clip && change <= clip ? 1.0f : 0.0f;
  }
  const float error = predicted - rows.returns[i];
  loss.value_loss += error * error;
  return static_cast<float>(options.vf_coef) * 2.0f * error * inverse_b * passes;
}

// The sums over the batch's rows as means.
void average_over_rows(LossValues& loss, std::int64_t rows) {
  const auto count = static_cast<double>(rows);
  loss.policy_loss /= count;
  loss.value_loss /= count;
  loss.entropy /= count;
  loss.old_approx_kl /= count;
  loss.approx_kl /= count;
  loss.clip_fraction /= count;
}

}  // namespace

LossValues actor_critic_loss_gradients(nn::ActorCriticPass& pass, const PolicyHead& head,
                                       const RolloutRows& rows,
                                       const ActorCriticLossOptions& options) {
  const std::int64_t b = rows.count, n = head.action_size;
  const bool gaussian = head.log_std != nullptr;
  const float inverse_b = 1.0f / static_cast<float>(b);
  const float entropy_slope = -static_cast<float>(options.ent_coef) * inverse_b;  // d loss / d H
  const std::vector<float> advantages = batch_advantages(rows, options.normalize_advantage);

  const float* outputs = pass.policy_output();
  const float* values = pass.values();
  float* output_gradient = pass.policy_output_gradient();
  float* value_gradient = pass.value_gradient();
  std::vector<float> row_gradient(static_cast<std::size_t>(n));
  std::vector<float> log_std_gradient(gaussian ? static_cast<std::size_t>(n) : 0, 0.0f);

  LossValues loss;
  for (std::int64_t i = 0; i < b; ++i) {
    float* gradient = output_gradient + i * n;
    // gradient = d log pi / d output; row_gradient = d H / d output (Categorical) or
    // d log pi / d log_std (Gaussian).
    const RowDistribution row =
        gaussian ? gaussian_row(outputs + i * n, rows.actions + i * n, head.log_std, n, gradient,
                                row_gradient.data())
                 : categorical_row(outputs + i * n, n, static_cast<std::int64_t>(rows.actions[i]),
                                   gradient, row_gradient.data());
    const float log_ratio = row.log_prob - rows.log_probs[i];
    const float ratio = std::exp(log_ratio);
    const float log_prob_slope = policy_slope(options, advantages[static_cast<std::size_t>(i)],
                                              ratio, row.log_prob, inverse_b, loss);
    for (std::int64_t j = 0; j < n; ++j) {
      const float other = row_gradient[static_cast<std::size_t>(j)];
      if (gaussian) {
        gradient[j] *= log_prob_slope;
        log_std_gradient[static_cast<std::size_t>(j)] += log_prob_slope * other + entropy_slope;
      } else {
        gradient[j] = log_prob_slope * gradient[j] + entropy_slope * other;
      }
    }
    loss.entropy += row.entropy;
    loss.old_approx_kl -= log_ratio;
    loss.approx_kl += (ratio - 1.0f) - log_ratio;
    value_gradient[i] = value_slope(options, rows, i, values[i], inverse_b, loss);
  }
  if (gaussian) std::copy(log_std_gradient.begin(), log_std_gradient.end(), head.log_std_gradient);
  average_over_rows(loss, b);
  return loss;
}

LossValues loss_values_of(const ActorCriticLoss& loss, const ActorCriticLossOptions& options) {
  torch::NoGradGuard no_grad;
  const at::Tensor ratio_change = loss.log_ratio.exp() - 1;
  const double clip = options.clip_range.value_or(0.0);
  // One copy to the host for all six values (one wait for the device, not six).
  const at::Tensor values =
      at::stack({loss.policy_loss, loss.value_loss, loss.entropy, (-loss.log_ratio).mean(),
                 (ratio_change - loss.log_ratio).mean(),
                 (ratio_change.abs() > clip).to(at::kFloat).mean()})
          .to(at::kDouble)
          .to(at::kCPU);
  const double* v = values.data_ptr<double>();
  return {v[0], v[1], v[2], v[3], v[4], options.clip_range ? v[5] : 0.0};
}

}  // namespace mnrl::agents
