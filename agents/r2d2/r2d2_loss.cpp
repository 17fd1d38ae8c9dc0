#include "agents/r2d2/r2d2_loss.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/huber_loss.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <cmath>

namespace mnrl::agents {
namespace {

// The first step of `sequence` that is trained: 0 where it begins an episode, else burn_in.
std::int64_t first_trained(const replay::SequenceBatch& batch, std::int64_t sequence,
                           std::int64_t burn_in) {
  return batch.episode_start[static_cast<std::size_t>(sequence)] ? 0 : burn_in;
}

constexpr double kRescalingEpsilon = 1e-3;

}  // namespace

double rescaled_value(double x) {
  return std::copysign(std::sqrt(std::abs(x) + 1.0) - 1.0, x) + kRescalingEpsilon * x;
}

double unrescaled_value(double h) {
  const double e = kRescalingEpsilon;
  const double root = (std::sqrt(1.0 + 4.0 * e * (std::abs(h) + 1.0 + e)) - 1.0) / (2.0 * e);
  return std::copysign(root * root - 1.0, h);
}

R2d2Loss r2d2_loss(nn::RecurrentQNetworkImpl& online, nn::RecurrentQNetworkImpl& target,
                   const replay::SequenceBatch& batch, const SequenceTensors& tensors,
                   const R2d2LossOptions& options) {
  const std::int64_t n = batch.size;
  const std::int64_t positions = tensors.observations.size(0) / n;  // length + 1
  const std::int64_t length = positions - 1;
  const std::int64_t burn_in = std::min(options.burn_in, length);
  const at::Device device = tensors.observations.device();
  // Sequences never cross an episode's end: no memory restarts inside one.
  const at::Tensor no_starts = at::zeros({positions * n}, at::TensorOptions(device));

  // Online: burn-in, its memory passed on without gradient where the sequence began mid-episode.
  at::Tensor online_q;
  if (burn_in > 0) {
    at::Tensor after_burn_in;
    const at::Tensor burn_in_q =
        online.forward(tensors.observations.narrow(0, 0, burn_in * n),
                       no_starts.narrow(0, 0, burn_in * n), tensors.states, &after_burn_in);
    std::vector<float> starts(static_cast<std::size_t>(n));
    for (std::int64_t b = 0; b < n; ++b)
      starts[static_cast<std::size_t>(b)] = batch.episode_start[static_cast<std::size_t>(b)];
    const at::Tensor begins_episode =
        at::from_blob(starts.data(), {n, 1}, at::kFloat).to(device, at::kBool, false, true);
    const at::Tensor carried = at::where(begins_episode, after_burn_in, after_burn_in.detach());
    const at::Tensor rest_q =
        online.forward(tensors.observations.narrow(0, burn_in * n, (positions - burn_in) * n),
                       no_starts.narrow(0, 0, (positions - burn_in) * n), carried);
    online_q = at::cat({burn_in_q, rest_q});
  } else {
    online_q = online.forward(tensors.observations, no_starts, tensors.states);
  }
  const std::int64_t actions = online_q.size(1);
  at::Tensor target_q;
  {
    c10::NoGradGuard no_grad;
    target_q = target.forward(tensors.observations, no_starts, tensors.states);
  }
  const at::Tensor online_host = online_q.detach().to(at::kCPU).contiguous();
  const at::Tensor target_host = target_q.to(at::kCPU).contiguous();
  const float* q_online = online_host.data_ptr<float>();
  const float* q_target = target_host.data_ptr<float>();
  const auto q_at = [&](const float* q, std::int64_t t, std::int64_t b) {
    return q + (t * n + b) * actions;
  };

  // Targets, taken actions and trained steps, [length][batch].
  std::vector<float> targets(static_cast<std::size_t>(length * n), 0.0f);
  std::vector<float> mask(static_cast<std::size_t>(length * n), 0.0f);
  std::vector<std::int64_t> taken(static_cast<std::size_t>(length * n), 0);
  for (std::int64_t b = 0; b < n; ++b) {
    const std::int64_t steps = batch.steps[static_cast<std::size_t>(b)];
    const bool terminated = batch.terminated[static_cast<std::size_t>(b)] != 0;
    for (std::int64_t t = first_trained(batch, b, burn_in); t < steps; ++t) {
      const std::int64_t m = std::min<std::int64_t>(options.n_step, steps - t);
      double value = 0.0, discount = 1.0;
      for (std::int64_t k = 0; k < m; ++k) {
        value += discount * batch.rewards[static_cast<std::size_t>((t + k) * n + b)];
        discount *= options.gamma;
      }
      const std::int64_t j = t + m;
      if (!(j == steps && terminated)) {
        const float* chooser = q_at(options.double_q ? q_online : q_target, j, b);
        const std::int64_t best = std::max_element(chooser, chooser + actions) - chooser;
        const double bootstrap = q_at(q_target, j, b)[best];
        value += discount * (options.value_rescaling ? unrescaled_value(bootstrap) : bootstrap);
      }
      if (options.value_rescaling) value = rescaled_value(value);
      const auto row = static_cast<std::size_t>(t * n + b);
      targets[row] = static_cast<float>(value);
      mask[row] = 1.0f;
      taken[row] = static_cast<std::int64_t>(batch.actions[row]);
    }
  }
  // Copies (the backward pass reads them after these vectors are gone).
  const auto to_device = [&](std::vector<float>& values) {
    return at::from_blob(values.data(), {length, n}, at::kFloat).to(device, false, true);
  };
  const at::Tensor target_values = to_device(targets);
  const at::Tensor trained = to_device(mask);
  const at::Tensor actions_taken =
      at::from_blob(taken.data(), {length, n, 1}, at::kLong).to(device, false, true);
  const at::Tensor q_taken = online_q.view({positions, n, actions})
                                 .narrow(0, 0, length)
                                 .gather(2, actions_taken)
                                 .squeeze(2);
  const at::Tensor errors = q_taken - target_values;
  const at::Tensor per_step = options.huber
                                  ? at::huber_loss(q_taken, target_values, at::Reduction::None, 1.0)
                                  : errors * errors;
  const at::Tensor weighted = per_step * trained * tensors.weights.view({1, n});
  const double trained_steps =
      std::max(1.0, static_cast<double>(std::count(mask.begin(), mask.end(), 1.0f)));
  R2d2Loss result;
  result.loss = weighted.sum() / trained_steps;
  result.td_loss = result.loss.item<double>();

  const at::Tensor error_host = errors.detach().abs().to(at::kCPU).contiguous();
  const at::Tensor q_host = q_taken.detach().to(at::kCPU).contiguous();
  const float* error = error_host.data_ptr<float>();
  double q_sum = 0.0;
  result.priorities.assign(static_cast<std::size_t>(n), 0.0f);
  for (std::int64_t b = 0; b < n; ++b) {
    double largest = 0.0, sum = 0.0;
    std::int64_t count = 0;
    for (std::int64_t t = 0; t < length; ++t) {
      const auto row = static_cast<std::size_t>(t * n + b);
      if (mask[row] == 0.0f) continue;
      largest = std::max(largest, static_cast<double>(error[row]));
      sum += error[row];
      q_sum += q_host.data_ptr<float>()[row];
      ++count;
    }
    const double mean = count > 0 ? sum / static_cast<double>(count) : 0.0;
    result.priorities[static_cast<std::size_t>(b)] =
        static_cast<float>(options.priority_eta * largest + (1.0 - options.priority_eta) * mean);
  }
  result.q_values = q_sum / trained_steps;
  return result;
}

}  // namespace mnrl::agents
