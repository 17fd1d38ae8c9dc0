#include "agents/dqn/td_gradient_steps.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include <algorithm>
#include <stdexcept>

#include "nn/gradient_clipping.h"
#include "nn/memory_views.h"
#include "nn/noisy_linear.h"

namespace mnrl::agents {

namespace {

// The pack's segments, in floats (TdGradientSteps::pack_).
std::vector<std::int64_t> pack_sizes(std::int64_t rows, std::int64_t observation_size,
                                     ReturnDistribution::SampledFractions fractions,
                                     std::int64_t noise_size) {
  return {rows * observation_size, rows * observation_size, rows,       rows,      rows, rows,
          rows * fractions.online, rows * fractions.target, noise_size, noise_size};
}

}  // namespace

TdGradientSteps::TdGradientSteps(nn::QNetwork online, nn::QNetwork target,
                                 nn::FlatParameters& parameters, torch::optim::Optimizer& optimizer,
                                 GradientHook hook, const ReturnDistribution& distribution,
                                 core::Rng& noise_rng, const Options& options, bool graphed,
                                 bool required)
    : online_(std::move(online)),
      target_(std::move(target)),
      parameters_(parameters),
      optimizer_(optimizer),
      hook_(std::move(hook)),
      distribution_(distribution),
      noise_rng_(noise_rng),
      options_(options),
      graphed_adam_(graphed ? dynamic_cast<nn::CapturableAdam*>(&optimizer) : nullptr),
      required_(required),
      observation_size_(online_->options.observation_size()),
      pack_(parameters_.values().device(),
            pack_sizes(options_.batch_size, observation_size_, distribution.sampled_fractions(),
                       online_->noise_size())) {
  if (graphed && (!graphed_adam_ || hook_)) {
    throw std::logic_error(
        "TdGradientSteps: a graphed step needs an nn::CapturableAdam and no gradient hook");
  }
  const at::Device device = parameters_.values().device();
  const std::int64_t b = options_.batch_size, o = observation_size_;
  const auto floats = at::TensorOptions().dtype(at::kFloat);
  staged_.observations = pack_.device(0).view({b, o});
  staged_.next_observations = pack_.device(1).view({b, o});
  staged_.actions = pack_.device(2);
  staged_.rewards = pack_.device(3);
  staged_.bootstrap_discounts = pack_.device(4);
  staged_.weights = pack_.device(5);
  const auto fractions = distribution_.sampled_fractions();
  staged_.fractions = pack_.device(6).view({b, fractions.online});
  staged_.target_fractions = pack_.device(7).view({b, fractions.target});
  online_noise_ = pack_.device(8);
  target_noise_ = pack_.device(9);
  td_errors_ = at::zeros({b}, floats.device(device));
  sums_ = at::zeros({2}, floats.dtype(at::kDouble).device(device));
}

void TdGradientSteps::stage(const replay::TransitionBatch& batch) {
  const std::int64_t b = options_.batch_size, o = observation_size_;
  std::copy_n(batch.observations.data(), b * o, pack_.host(0));
  std::copy_n(batch.next_observations.data(), b * o, pack_.host(1));
  std::copy_n(batch.actions.data(), b, pack_.host(2));
  std::copy_n(batch.rewards.data(), b, pack_.host(3));
  float* bootstrap_discounts = pack_.host(4);
  for (std::int64_t i = 0; i < b; ++i) {
    bootstrap_discounts[i] = batch.terminated[i] ? 0.0f : batch.discounts[i];
  }
  std::copy_n(batch.weights.data(), b, pack_.host(5));
  for (std::size_t segment : {6, 7}) {
    float* fractions = pack_.host(segment);
    for (std::int64_t i = 0; i < pack_.size(segment); ++i) {
      fractions[i] = static_cast<float>(noise_rng_.uniform());
    }
  }
  for (std::size_t segment : {8, 9}) {
    nn::draw_factorised_noise(noise_rng_, pack_.size(segment), pack_.host(segment));
  }
  pack_.upload();
}

void TdGradientSteps::device_step() {
  parameters_.zero_grad();
  TransitionTensors batch = staged_;
  batch.actions = staged_.actions.to(at::kLong);
  if (online_noise_.numel() > 0) {
    online_->set_noise(online_noise_);
    target_->set_noise(target_noise_);
  }
  const TdLossTensors loss = distribution_.loss(*online_, *target_, batch, options_.double_q);
  loss.loss.backward();
  if (hook_) hook_();
  torch::NoGradGuard no_grad;
  sums_.add_(at::stack({loss.loss.detach(), loss.q_taken_sum}).to(at::kDouble));
  td_errors_.copy_(loss.td_errors);
  nn::clip_gradient_norm(parameters_.values(), options_.max_grad_norm);
  if (graphed_adam_) {
    graphed_adam_->update();  // prepared by step()
  } else {
    optimizer_.step();
  }
}

nn::GraphedStep TdGradientSteps::make_graphed_step() {
  return nn::GraphedStep([this] { device_step(); }, "the DQN gradient step",
                         parameters_.values().device(), required_);
}

void TdGradientSteps::step(const replay::TransitionBatch& batch, float* td_errors) {
  stage(batch);
  if (graphed_adam_) {
    if (!captured_) captured_.emplace(make_graphed_step());
    graphed_adam_->prepare_step();
    captured_->run();
  } else {
    device_step();
  }
  ++steps_;
  if (td_errors) nn::copy_out(td_errors_, td_errors);
}

std::pair<double, double> TdGradientSteps::take_means() {
  const at::Tensor sums = sums_.to(at::kCPU);  // sums_ itself on the CPU
  const double steps = steps_ > 0 ? static_cast<double>(steps_) : 1.0;
  const std::pair<double, double> means{
      sums.data_ptr<double>()[0] / steps,
      sums.data_ptr<double>()[1] / (steps * static_cast<double>(options_.batch_size))};
  sums_.zero_();
  steps_ = 0;
  return means;
}

void TdGradientSteps::forget_capture() { captured_.reset(); }

}  // namespace mnrl::agents
