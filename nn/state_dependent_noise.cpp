#include "nn/state_dependent_noise.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/full.h>
#include <ATen/ops/log.h>
#include <ATen/ops/log1p.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/utils.h>

#include <optional>
#include <string>

#include "nn/diag_gaussian.h"
#include "nn/squashed_diag_gaussian.h"
#include "nn/tensor_state.h"

namespace mnrl::nn {
namespace {

// Given the state, a diagonal Gaussian (tanh-squashed or not) with a std per row; sample()
// adds the exploration noise fixed by the current matrices, when there is one.
class StateDependentGaussian final : public ActionDistribution {
 public:
  StateDependentGaussian(const at::Tensor& mean, const at::Tensor& log_std, at::Tensor noise,
                         bool squash)
      : gaussian_(mean, log_std), noise_(std::move(noise)) {
    if (squash) squashed_.emplace(mean, log_std);
  }

  at::Tensor sample() const override {
    torch::NoGradGuard no_grad;
    const at::Tensor pre_squash = noise_.defined() ? gaussian_.mean() + noise_ : gaussian_.sample();
    return squashed_ ? at::tanh(pre_squash) : pre_squash;
  }
  at::Tensor mode() const override { return squashed_ ? squashed_->mode() : gaussian_.mode(); }
  at::Tensor log_prob(const at::Tensor& actions) const override {
    return squashed_ ? squashed_->log_prob(actions) : gaussian_.log_prob(actions);
  }
  at::Tensor entropy() const override {
    return squashed_ ? squashed_->entropy() : gaussian_.entropy();
  }

 private:
  DiagGaussian gaussian_;
  std::optional<SquashedDiagGaussian> squashed_;
  at::Tensor noise_;  // [batch, action] or undefined
};

}  // namespace

StateDependentNoise::StateDependentNoise(std::int64_t latent_size, std::int64_t action_size,
                                         StateDependentNoiseOptions options)
    : latent_size_(latent_size), action_size_(action_size), options_(options) {}

at::Tensor StateDependentNoise::initial_log_std(double log_std_init) const {
  return at::full({latent_size_, options_.full_std() ? action_size_ : 1}, log_std_init, at::kFloat);
}

at::Tensor StateDependentNoise::weight_std(const at::Tensor& log_std) const {
  at::Tensor std;
  if (options_.use_expln()) {
    // Each branch clamped to its own side, so neither overflows nor sends a NaN gradient.
    std = at::where(log_std > 0, at::log1p(log_std.clamp_min(0)) + 1.0,
                    at::exp(log_std.clamp_max(0)));
  } else {
    std = at::exp(log_std);
  }
  return options_.full_std() ? std : std.expand({latent_size_, action_size_});
}

void StateDependentNoise::resample(std::int64_t count) {
  // Plain tensors even when called while acting under inference mode: noise() may use them
  // in a graph (its gradient w.r.t. log_std), which inference tensors cannot join.
  c10::InferenceMode not_inference(false);
  torch::NoGradGuard no_grad;
  unit_weights_ = at::randn({count, latent_size_, action_size_}, at::kFloat);
}

at::Tensor StateDependentNoise::noise(const at::Tensor& latent, const at::Tensor& log_std) const {
  return noise_of(features_of(latent), weight_std(log_std));
}

at::Tensor StateDependentNoise::features_of(const at::Tensor& latent) const {
  return options_.learn_features() ? latent : latent.detach();
}

at::Tensor StateDependentNoise::noise_of(const at::Tensor& features,
                                         const at::Tensor& sigma) const {
  TORCH_CHECK(unit_weights_.defined(), "StateDependentNoise: resample() before acting");
  const at::Tensor weights = sigma.unsqueeze(0) * unit_weights_;
  if (count() == 1) return at::mm(features, weights[0]);
  TORCH_CHECK(features.size(0) == count(), "StateDependentNoise: ", features.size(0), " rows for ",
              count(), " exploration matrices");
  return at::bmm(features.unsqueeze(1), weights).squeeze(1);
}

std::unique_ptr<ActionDistribution> StateDependentNoise::distribution(
    const at::Tensor& mean, const at::Tensor& log_std, const at::Tensor& latent,
    bool exploration_noise) const {
  const at::Tensor features = features_of(latent);
  const at::Tensor sigma = weight_std(log_std);
  const at::Tensor variance = at::mm(features * features, sigma * sigma);
  return std::make_unique<StateDependentGaussian>(
      mean, at::log(variance + kEpsilon) * 0.5,
      exploration_noise ? noise_of(features, sigma) : at::Tensor(), options_.squash());
}

void StateDependentNoise::save_state(core::StateWriter& out) const {
  out.tag("gsde");
  out.value(count());
  if (count() > 0) save_tensor(out, unit_weights_);
}

void StateDependentNoise::load_state(core::StateReader& in, std::int64_t count) {
  in.expect_tag("gsde");
  std::int64_t saved = 0;
  in.value(saved);
  if (saved == 0) {
    unit_weights_ = at::Tensor();
    return;
  }
  if (saved != count) {
    in.fail("expected " + std::to_string(count) + " exploration matrices, found " +
            std::to_string(saved));
  }
  unit_weights_ = at::zeros({count, latent_size_, action_size_}, at::kFloat);
  load_tensor(in, unit_weights_);
}

}  // namespace mnrl::nn
