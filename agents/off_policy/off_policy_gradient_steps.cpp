#include "agents/off_policy/off_policy_gradient_steps.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <stdexcept>

#include "nn/capturable_adam.h"

namespace mnrl::agents {
namespace {

std::int64_t observation_size(const OffPolicyNetworks& networks) {
  return networks.actor()->options.observation_size();
}

}  // namespace

OffPolicyGradientSteps::OffPolicyGradientSteps(OffPolicyNetworks& networks,
                                               nn::FlatParameters& parameters,
                                               TargetCritics& targets, std::int64_t batch_size,
                                               std::size_t statistics, GradientRangeHook hook,
                                               bool graphed, bool required, std::string name)
    : networks_(networks),
      parameters_(parameters),
      targets_(targets),
      batch_size_(batch_size),
      action_size_(networks.actor()->options.action_size()),
      hook_(std::move(hook)),
      graphed_(graphed),
      required_(required),
      name_(std::move(name)),
      device_(parameters.values().device()),
      pack_(device_, {batch_size * observation_size(networks), batch_size * observation_size(networks),
                      batch_size * action_size_, batch_size, batch_size, batch_size * action_size_,
                      batch_size * action_size_}) {
  if (graphed_ && hook_) {
    throw std::logic_error("OffPolicyGradientSteps: a graphed step cannot hold a gradient hook");
  }
  const std::int64_t b = batch_size, o = observation_size(networks), a = action_size_;
  staged_.observations = pack_.device(0).view({b, o});
  staged_.next_observations = pack_.device(1).view({b, o});
  staged_.actions = pack_.device(2).view({b, a});
  staged_.rewards = pack_.device(3);
  staged_.bootstrap_discounts = pack_.device(4);
  staged_.noise = pack_.device(5).view({b, a});
  staged_.next_noise = pack_.device(6).view({b, a});
  sums_ = at::zeros({static_cast<std::int64_t>(statistics)},
                    at::TensorOptions().dtype(at::kDouble).device(device_));
}

OffPolicyGradientSteps::CriticLosses OffPolicyGradientSteps::critic_losses(
    const at::Tensor& targets) {
  std::vector<at::Tensor> errors, mean_q;
  for (const nn::ContinuousQNetwork& critic : networks_.critics()) {
    const at::Tensor q = critic.ptr()->forward(staged_.observations, staged_.actions).squeeze(1);
    errors.push_back((q - targets).pow(2).mean());
    mean_q.push_back(q.detach().mean());
  }
  const at::Tensor each = at::stack(errors);
  return {each.sum(), each.detach(), at::stack(mean_q)};
}

at::Tensor OffPolicyGradientSteps::min_q(const std::vector<nn::ContinuousQNetwork>& critics,
                                         std::size_t count, const at::Tensor& observations,
                                         const at::Tensor& actions) {
  at::Tensor smallest = critics.at(0).ptr()->forward(observations, actions).squeeze(1);
  for (std::size_t i = 1; i < count; ++i) {
    const at::Tensor q = critics[i].ptr()->forward(observations, actions).squeeze(1);
    // The first on ties takes the whole gradient, as the hand-written step and SB3's
    // torch.min give it (at::minimum would split it: ties are frequent in bf16).
    smallest = at::where(q < smallest, q, smallest);
  }
  return smallest;
}

void OffPolicyGradientSteps::run(const replay::TransitionBatch& batch, const float* noise,
                                 const float* next_noise, int variant,
                                 std::initializer_list<torch::optim::Optimizer*> stepping) {
  const std::int64_t b = batch_size_, o = staged_.observations.size(1), a = action_size_;
  std::copy_n(batch.observations.data(), b * o, pack_.host(0));
  std::copy_n(batch.next_observations.data(), b * o, pack_.host(1));
  std::copy_n(batch.actions.data(), b * a, pack_.host(2));
  std::copy_n(batch.rewards.data(), b, pack_.host(3));
  float* bootstrap_discounts = pack_.host(4);
  for (std::int64_t i = 0; i < b; ++i) {
    bootstrap_discounts[i] = batch.terminated[i] ? 0.0f : batch.discounts[i];
  }
  if (noise) std::copy_n(noise, b * a, pack_.host(5));
  if (next_noise) std::copy_n(next_noise, b * a, pack_.host(6));
  pack_.upload();
  if (!graphed_) {
    device_step(variant);
    return;
  }
  for (torch::optim::Optimizer* optimizer : stepping) {
    auto* adam = dynamic_cast<nn::CapturableAdam*>(optimizer);
    if (!adam) throw std::logic_error("OffPolicyGradientSteps: a graphed step needs CapturableAdam");
    adam->prepare_step();
  }
  std::optional<nn::GraphedStep>& captured = captured_.at(static_cast<std::size_t>(variant));
  if (!captured) {
    captured.emplace([this, variant] { device_step(variant); }, name_, device_, required_);
  }
  captured->run();
}

void OffPolicyGradientSteps::optimizer_step(torch::optim::Optimizer& optimizer) {
  if (graphed_) {
    static_cast<nn::CapturableAdam&>(optimizer).update();  // run() checked and prepared it
  } else {
    optimizer.step();
  }
}

void OffPolicyGradientSteps::average(OffPolicyNetworks::Range range) {
  if (hook_) hook_(range.offset, range.count);
}

std::vector<double> OffPolicyGradientSteps::take_sums() {
  const at::Tensor sums = sums_.to(at::kCPU).clone();  // a copy even on the CPU
  sums_.zero_();
  return {sums.data_ptr<double>(), sums.data_ptr<double>() + sums.numel()};
}

void OffPolicyGradientSteps::forget_captures() {
  for (auto& captured : captured_) captured.reset();
}

}  // namespace mnrl::agents
