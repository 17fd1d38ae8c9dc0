#include "agents/dqn/td_gradient_steps.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include <algorithm>
#include <stdexcept>

#include "nn/gradient_clipping.h"
#include "nn/memory_views.h"

namespace mnrl::agents {

TdGradientSteps::TdGradientSteps(nn::QNetwork online, nn::QNetwork target,
                                 nn::FlatParameters& parameters, torch::optim::Optimizer& optimizer,
                                 GradientHook hook, const Options& options, bool graphed,
                                 bool required)
    : online_(std::move(online)),
      target_(std::move(target)),
      parameters_(parameters),
      optimizer_(optimizer),
      hook_(std::move(hook)),
      options_(options),
      graphed_adam_(graphed ? dynamic_cast<nn::CapturableAdam*>(&optimizer) : nullptr),
      required_(required),
      observation_size_(online_->options.observation_size()) {
  if (graphed && (!graphed_adam_ || hook_)) {
    throw std::logic_error(
        "TdGradientSteps: a graphed step needs an nn::CapturableAdam and no gradient hook");
  }
  const at::Device device = parameters_.values().device();
  const std::int64_t b = options_.batch_size, o = observation_size_;
  const auto floats = at::TensorOptions().dtype(at::kFloat);
  host_pack_ = at::empty({(2 * o + 4) * b}, floats.pinned_memory(device.is_cuda()));
  device_pack_ = device.is_cpu() ? host_pack_ : at::empty({(2 * o + 4) * b}, floats.device(device));
  // Columns of the pack, in units of batch_size floats.
  const auto part = [&](std::int64_t start, std::int64_t length) {
    return device_pack_.narrow(0, start * b, length * b);
  };
  staged_.observations = part(0, o).view({b, o});
  staged_.next_observations = part(o, o).view({b, o});
  staged_.actions = part(2 * o, 1);
  staged_.rewards = part(2 * o + 1, 1);
  staged_.bootstrap_discounts = part(2 * o + 2, 1);
  staged_.weights = part(2 * o + 3, 1);
  td_errors_ = at::zeros({b}, floats.device(device));
  sums_ = at::zeros({2}, floats.dtype(at::kDouble).device(device));
}

void TdGradientSteps::stage(const replay::TransitionBatch& batch) {
  const std::int64_t b = options_.batch_size, o = observation_size_;
  float* out = host_pack_.data_ptr<float>();
  out = std::copy_n(batch.observations.data(), b * o, out);
  out = std::copy_n(batch.next_observations.data(), b * o, out);
  out = std::copy_n(batch.actions.data(), b, out);
  out = std::copy_n(batch.rewards.data(), b, out);
  for (std::int64_t i = 0; i < b; ++i) *out++ = batch.terminated[i] ? 0.0f : batch.discounts[i];
  std::copy_n(batch.weights.data(), b, out);
  // A blocking copy: it waits for the device's earlier work (the last step, which read the
  // pack), so the host may write the pack again as soon as it returns.
  if (!device_pack_.is_same(host_pack_)) device_pack_.copy_(host_pack_);
}

void TdGradientSteps::device_step() {
  parameters_.zero_grad();
  TransitionTensors batch = staged_;
  batch.actions = staged_.actions.to(at::kLong);
  const TdLossTensors loss =
      td_loss_tensors(*online_, *target_, batch, options_.double_q, options_.loss);
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
