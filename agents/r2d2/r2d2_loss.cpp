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

#include "nn/compute_threads.h"

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

namespace {

// What every trained step is fitted to, [length][batch]: its target value, 1 where it is
// trained, and the action it took.
struct StepTargets {
  std::vector<float> targets, trained;
  std::vector<std::int64_t> taken;
  double trained_steps = 1.0;  // at least 1
};

// The targets of `batch` from both networks' Q-values [(length + 1) * batch, actions].
StepTargets step_targets(const replay::SequenceBatch& batch, const float* q_online,
                         const float* q_target, std::int64_t length, std::int64_t actions,
                         std::int64_t burn_in, const R2d2LossOptions& options) {
  const std::int64_t n = batch.size;
  const auto q_at = [&](const float* q, std::int64_t t, std::int64_t b) {
    return q + (t * n + b) * actions;
  };
  StepTargets result;
  result.targets.assign(static_cast<std::size_t>(length * n), 0.0f);
  result.trained.assign(static_cast<std::size_t>(length * n), 0.0f);
  result.taken.assign(static_cast<std::size_t>(length * n), 0);
  std::int64_t trained_steps = 0;
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
      result.targets[row] = static_cast<float>(value);
      result.trained[row] = 1.0f;
      result.taken[row] = static_cast<std::int64_t>(batch.actions[row]);
      ++trained_steps;
    }
  }
  result.trained_steps = std::max(1.0, static_cast<double>(trained_steps));
  return result;
}

// Each sequence's priority (eta max |delta| + (1 - eta) mean |delta| over its trained steps)
// and the mean Q of the trained steps' actions, from |delta| and Q per row [length][batch].
void write_priorities(const StepTargets& steps, const float* error, const float* q_taken,
                      std::int64_t n, std::int64_t length, double eta, R2d2Loss& result) {
  double q_sum = 0.0;
  result.priorities.assign(static_cast<std::size_t>(n), 0.0f);
  for (std::int64_t b = 0; b < n; ++b) {
    double largest = 0.0, sum = 0.0;
    std::int64_t count = 0;
    for (std::int64_t t = 0; t < length; ++t) {
      const auto row = static_cast<std::size_t>(t * n + b);
      if (steps.trained[row] == 0.0f) continue;
      largest = std::max(largest, static_cast<double>(error[row]));
      sum += error[row];
      q_sum += q_taken[row];
      ++count;
    }
    const double mean = count > 0 ? sum / static_cast<double>(count) : 0.0;
    result.priorities[static_cast<std::size_t>(b)] =
        static_cast<float>(eta * largest + (1.0 - eta) * mean);
  }
  result.q_values = q_sum / steps.trained_steps;
}

}  // namespace

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
  StepTargets steps = step_targets(batch, q_online, q_target, length, actions, burn_in, options);

  // Copies (the backward pass reads them after these vectors are gone).
  const auto to_device = [&](std::vector<float>& values) {
    return at::from_blob(values.data(), {length, n}, at::kFloat).to(device, false, true);
  };
  const at::Tensor target_values = to_device(steps.targets);
  const at::Tensor trained = to_device(steps.trained);
  const at::Tensor actions_taken =
      at::from_blob(steps.taken.data(), {length, n, 1}, at::kLong).to(device, false, true);
  const at::Tensor q_taken = online_q.view({positions, n, actions})
                                 .narrow(0, 0, length)
                                 .gather(2, actions_taken)
                                 .squeeze(2);
  const at::Tensor errors = q_taken - target_values;
  const at::Tensor per_step = options.huber
                                  ? at::huber_loss(q_taken, target_values, at::Reduction::None, 1.0)
                                  : errors * errors;
  const at::Tensor weighted = per_step * trained * tensors.weights.view({1, n});
  R2d2Loss result;
  result.loss = weighted.sum() / steps.trained_steps;
  result.td_loss = result.loss.item<double>();
  const at::Tensor error_host = errors.detach().abs().to(at::kCPU).contiguous();
  const at::Tensor q_host = q_taken.detach().to(at::kCPU).contiguous();
  write_priorities(steps, error_host.data_ptr<float>(), q_host.data_ptr<float>(), n, length,
                   options.priority_eta, result);
  return result;
}

R2d2Loss r2d2_loss_by_hand(nn::RecurrentQNetworkPass& online, nn::RecurrentQNetworkPass& target,
                           const replay::SequenceBatch& batch, const R2d2LossOptions& options,
                           bool differentiate) {
  const std::int64_t n = batch.size;
  const std::int64_t length = static_cast<std::int64_t>(batch.rewards.size()) / n;
  const std::int64_t burn_in = std::min(options.burn_in, length);
  const std::int64_t actions = online.num_actions();
  // Sequences never cross an episode's end: no memory restarts inside one.
  // The two networks' forward passes are independent pieces (nn/compute_threads.h).
  nn::run_both(target.multiply_adds(),
               [&] { online.forward(batch.observations.data(), nullptr, batch.states.data()); },
               [&] { target.forward(batch.observations.data(), nullptr, batch.states.data()); });
  const float* q = online.q_values();
  const StepTargets steps =
      step_targets(batch, q, target.q_values(), length, actions, burn_in, options);

  std::vector<float> error(static_cast<std::size_t>(length * n)), q_taken(error.size());
  float* q_gradient = differentiate ? online.q_gradient() : nullptr;
  if (q_gradient) std::fill_n(q_gradient, (length + 1) * n * actions, 0.0f);
  double loss_sum = 0.0;
  for (std::int64_t row = 0; row < length * n; ++row) {
    const auto r = static_cast<std::size_t>(row);
    if (steps.trained[r] == 0.0f) continue;
    const std::int64_t action = steps.taken[r];
    q_taken[r] = q[row * actions + action];
    const double delta = static_cast<double>(q_taken[r]) - steps.targets[r];
    error[r] = static_cast<float>(std::abs(delta));
    const double weight = batch.weights[static_cast<std::size_t>(row % n)];
    // Huber with delta 1 (else squared error) and its derivative.
    const double huber_linear = std::abs(delta) > 1.0;
    const double per_step = !options.huber  ? delta * delta
                            : huber_linear ? std::abs(delta) - 0.5
                                           : 0.5 * delta * delta;
    const double slope = !options.huber  ? 2.0 * delta
                         : huber_linear ? std::copysign(1.0, delta)
                                        : delta;
    loss_sum += weight * per_step;
    if (q_gradient) {
      q_gradient[row * actions + action] =
          static_cast<float>(weight * slope / steps.trained_steps);
    }
  }
  R2d2Loss result;
  result.td_loss = loss_sum / steps.trained_steps;
  write_priorities(steps, error.data(), q_taken.data(), n, length, options.priority_eta, result);
  if (q_gradient) {
    // The burn-in of a sequence that began mid-episode only refreshes the memory.
    std::vector<float> stops(static_cast<std::size_t>((length + 1) * n), 0.0f);
    if (burn_in > 0) {
      for (std::int64_t b = 0; b < n; ++b) {
        if (!batch.episode_start[static_cast<std::size_t>(b)]) {
          stops[static_cast<std::size_t>(burn_in * n + b)] = 1.0f;
        }
      }
    }
    online.backward(stops.data());
  }
  return result;
}

}  // namespace mnrl::agents
