#include "agents/dqn/dqn.h"

#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "agents/dqn/distributional_losses.h"
#include "agents/dqn/q_learning.h"
#include "agents/schedule.h"
#include "nn/capturable_adam.h"
#include "nn/compute_threads.h"
#include "nn/gradient_clipping.h"
#include "nn/learning_rate.h"
#include "nn/memory_views.h"
#include "nn/noisy_linear.h"
#include "nn/policy_export.h"
#include "nn/tensor_state.h"

namespace mnrl::agents {

std::unique_ptr<ReturnDistribution> return_distribution_of(const DqnOptions& options) {
  return make_return_distribution(options.distribution,
                                  options.loss == "huber" ? TdLoss::huber : TdLoss::mse);
}

Dqn::Dqn(DqnOptions options, nn::QNetwork online, nn::QNetwork target,
         std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<torch::optim::Optimizer> optimizer, std::unique_ptr<replay::Replay> replay,
         std::int64_t total_steps, std::uint64_t exploration_seed)
    : options_(std::move(options)),
      distribution_(return_distribution_of(options_)),
      online_(std::move(online)),
      target_(std::move(target)),
      parameters_(std::move(parameters)),
      target_parameters_(std::make_unique<nn::FlatParameters>(*target_)),
      optimizer_(std::move(optimizer)),
      num_envs_(replay->options().num_envs),
      observation_size_(online_->options.observation_size()),
      total_steps_(total_steps),
      exploration_rng_(exploration_seed),
      replay_rng_(core::derive_seed(exploration_seed, 1)),
      replay_(std::move(replay)),
      device_(parameters_->values().device()),
      acting_noise_(static_cast<std::size_t>(online_->noise_size())),
      by_hand_(device_.is_cpu() && distribution_->by_hand()),
      td_errors_(static_cast<std::size_t>(options_.batch_size)),
      q_gradients_(static_cast<std::size_t>(options_.batch_size * online_->options.num_actions() *
                                            online_->options.atoms())),
      last_observations_(replay_->options().observation_dtype, static_cast<std::size_t>(num_envs_),
                         static_cast<std::size_t>(observation_size_)),
      last_actions_(static_cast<std::size_t>(num_envs_)),
      min_replay_size_(options_.batch_size) {
  if (by_hand_) {
    train_pass_.emplace(online_, options_.batch_size);
    target_pass_.emplace(target_, options_.batch_size);
    if (options_.double_q) chooser_pass_.emplace(online_, options_.batch_size);
  }
  torch::NoGradGuard no_grad;
  target_parameters_->values().copy_(parameters_->values());
}

double Dqn::epsilon() const {
  if (fixed_epsilon_) return *fixed_epsilon_;
  if (options_.distribution.noisy) return 0.0;
  return options_.exploration.epsilon(static_cast<double>(env_steps_) /
                                      static_cast<double>(total_steps_));
}

void Dqn::act(core::ConstTypedPtr observations, const ActionsOut& out) {
  core::copy_elements(observations, static_cast<std::size_t>(num_envs_ * observation_size_),
                      last_observations_.data());
  draw_acting_noise();
  greedy_actions(
      core::as_floats(observations, static_cast<std::size_t>(num_envs_ * observation_size_),
                      input_floats_, replay_->options().byte_scale),
      num_envs_, out.indices);
  const double eps = epsilon();
  const auto num_actions = static_cast<std::uint64_t>(online_->options.num_actions());
  for (std::int64_t i = 0; i < num_envs_; ++i) {
    if (exploration_rng_.uniform() < eps) {
      out.indices[i] = static_cast<std::int64_t>(exploration_rng_.below(num_actions));
    }
    last_actions_[static_cast<std::size_t>(i)] = static_cast<float>(out.indices[i]);
  }
}

void Dqn::observe(const StepOutcome& outcome) {
  replay_->add_step(last_observations_.data(), last_actions_.data(), outcome.rewards,
                    outcome.next_observations, outcome.terminated, outcome.truncated,
                    outcome.final_observations);
  env_steps_ += num_envs_;
  ++vector_steps_;
  steps_since_target_update_ += num_envs_;
  if (steps_since_target_update_ >= options_.target_update_interval) {
    update_target();
    steps_since_target_update_ = 0;
  }
}

bool Dqn::update_ready() const {
  return env_steps_ > options_.learning_starts && vector_steps_ % options_.train_freq == 0 &&
         replay_->size() >= min_replay_size_;
}

void Dqn::draw_step_noise() {
  const auto size = static_cast<std::int64_t>(acting_noise_.size());
  if (size == 0) return;
  // As TdGradientSteps draws them: the online network's, then the target's.
  step_noise_.resize(static_cast<std::size_t>(2 * size));
  nn::draw_factorised_noise(replay_rng_, size, step_noise_.data());
  nn::draw_factorised_noise(replay_rng_, size, step_noise_.data() + size);
  torch::NoGradGuard no_grad;
  online_->set_noise(nn::view_floats(step_noise_.data(), size));
  target_->set_noise(nn::view_floats(step_noise_.data() + size, size));
}

std::pair<double, double> Dqn::write_gradients_by_hand() {
  draw_step_noise();
  // The online outputs and the next observations' are independent pieces
  // (nn/compute_threads.h).
  const float *online = nullptr, *next = nullptr, *chooser = nullptr;
  nn::run_both(
      train_pass_->multiply_adds(),
      [&] { online = train_pass_->forward(batch_.observations.data()); },
      [&] {
        next = target_pass_->forward(batch_.next_observations.data());
        chooser = chooser_pass_ ? chooser_pass_->forward(batch_.next_observations.data()) : next;
      });
  const HostLoss loss = distribution_->host_loss(batch_, online, next, chooser, options_.batch_size,
                                                 online_->options.num_actions(),
                                                 q_gradients_.data(), td_errors_.data());
  train_pass_->backward(q_gradients_.data());
  return {loss.loss, loss.q_taken_sum};
}

TdGradientSteps& Dqn::autograd_steps() {
  if (autograd_steps_) return *autograd_steps_;
  const char* why_not = after_backward_ ? kGradientsAveragedBetween
                        : !dynamic_cast<nn::CapturableAdam*>(optimizer_.get())
                            ? "its optimizer is not Adam"
                            : nullptr;
  const bool graphed = cuda_graphs_chosen(cuda_graphs_, device_.is_cpu(), why_not);
  TdGradientSteps::Options steps;
  steps.double_q = options_.double_q;
  steps.max_grad_norm = options_.max_grad_norm;
  steps.batch_size = options_.batch_size;
  autograd_steps_ = std::make_unique<TdGradientSteps>(
      online_, target_, *parameters_, *optimizer_, after_backward_, *distribution_, replay_rng_,
      steps, graphed, cuda_graphs_ == CudaGraphs::required);
  return *autograd_steps_;
}

double Dqn::learning_rate() const { return nn::learning_rate_of(*optimizer_); }

Statistics Dqn::update(const TrainingProgress& progress) {
  const double learning_rate =
      scheduled(options_.learning_rate, options_.lr_schedule, progress.remaining());
  nn::set_learning_rate(*optimizer_, learning_rate);
  if (external_steps_) external_steps_->set_learning_rate(learning_rate);
  double loss_sum = 0.0, q_sum = 0.0;
  const std::int64_t b = options_.batch_size;
  const bool prioritized = replay_->options().prioritized;
  for (std::int64_t step = 0; step < options_.gradient_steps; ++step) {
    replay_->sample(replay_rng_, b, 1.0 - progress.remaining(), batch_);
    if (external_steps_) {
      draw_step_noise();
      const HostLoss loss =
          external_steps_->step(batch_, options_.double_q, options_.max_grad_norm,
                                step_noise_.empty() ? nullptr : step_noise_.data(),
                                prioritized ? td_errors_.data() : nullptr);
      loss_sum += loss.loss;
      q_sum += loss.q_taken_sum;
    } else if (by_hand_) {
      const auto [loss, q] = write_gradients_by_hand();
      loss_sum += loss;
      q_sum += q;
      if (after_backward_) after_backward_();
      nn::clip_gradient_norm(parameters_->values(), options_.max_grad_norm);
      optimizer_->step();
    } else {
      autograd_steps().step(batch_, prioritized ? td_errors_.data() : nullptr);
    }
    if (prioritized) replay_->update_priorities(batch_, td_errors_.data());
  }
  const auto steps = static_cast<double>(options_.gradient_steps);
  double mean_loss = loss_sum / steps, mean_q = q_sum / (steps * static_cast<double>(b));
  if (external_steps_) {
    external_steps_->synchronize();
  } else if (!by_hand_) {
    std::tie(mean_loss, mean_q) = autograd_steps().take_means();
  }
  return {{"losses/td_loss", mean_loss},
          {"losses/q_values", mean_q},
          {"charts/epsilon", epsilon()},
          {"charts/learning_rate", learning_rate},
          {"charts/buffer_size", static_cast<double>(replay_->size())}};
}

void Dqn::measure_td_errors(const replay::TransitionBatch& batch, float* td_errors) {
  const auto rows = static_cast<std::int64_t>(batch.rewards.size());
  const std::int64_t n = online_->options.num_actions();
  c10::InferenceMode inference;
  if (!distribution_->by_hand()) {
    measure_distribution_losses(batch, td_errors);
    return;
  }
  const auto outputs = [&](const std::vector<float>& observations) {
    return online_->forward(nn::floats_on(device_, observations.data(), rows, observation_size_))
        .to(at::kCPU)
        .contiguous();
  };
  const at::Tensor online = outputs(batch.observations);
  const at::Tensor next = outputs(batch.next_observations);
  std::vector<float> unused_gradients(static_cast<std::size_t>(online.numel()));
  // The loss reads importance weights, which an actor's batch need not have (priorities
  // themselves are unweighted).
  replay::TransitionBatch weighted;
  if (batch.weights.size() != static_cast<std::size_t>(rows)) {
    weighted = batch;
    weighted.weights.assign(static_cast<std::size_t>(rows), 1.0f);
  }
  distribution_->host_loss(weighted.weights.empty() ? batch : weighted, online.data_ptr<float>(),
                           next.data_ptr<float>(), next.data_ptr<float>(), rows, n,
                           unused_gradients.data(), td_errors);
}

void Dqn::measure_distribution_losses(const replay::TransitionBatch& batch, float* td_errors) {
  const auto rows = static_cast<std::int64_t>(batch.rewards.size());
  const auto fractions = distribution_->sampled_fractions();
  // Host floats for the batch's scalars and IQN's fractions, then one tensor each on the device.
  std::vector<float> host(
      static_cast<std::size_t>(rows * (3 + fractions.online + fractions.target)));
  float* discounts = host.data();
  float* weights = discounts + rows;
  float* actions = weights + rows;
  float* sampled = actions + rows;
  for (std::int64_t i = 0; i < rows; ++i) {
    discounts[i] = batch.terminated[i] ? 0.0f : batch.discounts[i];
    weights[i] = 1.0f;  // priorities are unweighted
    actions[i] = batch.actions[i];
  }
  for (std::int64_t i = 0; i < rows * (fractions.online + fractions.target); ++i) {
    sampled[i] = static_cast<float>(replay_rng_.uniform());
  }
  const at::Tensor scalars =
      nn::floats_on(device_, host.data(), rows * 3 + rows * (fractions.online + fractions.target));
  TransitionTensors tensors;
  tensors.observations = nn::floats_on(device_, batch.observations.data(), rows, observation_size_);
  tensors.next_observations =
      nn::floats_on(device_, batch.next_observations.data(), rows, observation_size_);
  tensors.rewards = nn::floats_on(device_, batch.rewards.data(), rows);
  tensors.bootstrap_discounts = scalars.narrow(0, 0, rows);
  tensors.weights = scalars.narrow(0, rows, rows);
  tensors.actions = scalars.narrow(0, 2 * rows, rows).to(at::kLong);
  tensors.fractions =
      scalars.narrow(0, 3 * rows, rows * fractions.online).view({rows, fractions.online});
  tensors.target_fractions =
      scalars.narrow(0, rows * (3 + fractions.online), rows * fractions.target)
          .view({rows, fractions.target});
  // The online network as its own target: an actor holds no target network.
  const TdLossTensors loss = distribution_->loss(*online_, *online_, tensors, options_.double_q);
  nn::copy_out(loss.td_errors, td_errors);
}

std::string Dqn::export_greedy_policy(const std::optional<nn::ObservationScale>& scale) const {
  nn::GreedyPolicy policy;
  policy.byte_scale = replay_->options().byte_scale;
  policy.observation_scale = scale;
  policy.encoder = online_->encoder();
  policy.trunk = online_->trunk()->layers();
  policy.activation = online_->options.activation();
  policy.head = online_->advantage_head();
  policy.value_head = online_->value_head();
  policy.output = online_->options.dueling() ? nn::GreedyPolicy::Output::dueling_argmax
                                             : nn::GreedyPolicy::Output::argmax;
  const ReturnDistributionOptions& distribution = options_.distribution;
  policy.atoms = online_->options.atoms();
  if (distribution.distributional == "c51") {
    const at::Tensor support =
        categorical_support(distribution.atoms, distribution.v_min, distribution.v_max, {});
    policy.support.assign(support.data_ptr<float>(), support.data_ptr<float>() + support.numel());
  }
  if (distribution.implicit()) {
    // The policy's fractions embedded once (ImplicitQuantiles::q_values takes the same).
    torch::NoGradGuard no_grad;
    const at::Tensor tau =
        distorted_fractions(quantile_midpoints(distribution.policy_quantile_samples, {}),
                            distribution.risk, distribution.risk_eta);
    nn::QNetwork online = online_;  // a holder: the same network, callable here
    policy.fraction_features = online->fraction_features(tau.to(device_));
    policy.mixed = online_->mixed_layer()->layers();
  }
  return nn::torchscript_policy(policy);
}

void Dqn::draw_acting_noise() {
  if (acting_noise_.empty()) return;
  nn::draw_factorised_noise(exploration_rng_, static_cast<std::int64_t>(acting_noise_.size()),
                            acting_noise_.data());
  torch::NoGradGuard no_grad;
  online_->set_noise(nn::floats_on(device_, acting_noise_.data(),
                                   static_cast<std::int64_t>(acting_noise_.size())));
}

void Dqn::silence_noise() {
  if (acting_noise_.empty()) return;
  torch::NoGradGuard no_grad;
  online_->set_noise(at::zeros({online_->noise_size()}, at::TensorOptions().device(device_)));
}

void Dqn::greedy_actions(const float* observations, std::int64_t batch, std::int64_t* out) {
  if (!by_hand_) {
    c10::InferenceMode inference;
    const at::Tensor q =
        distribution_
            ->q_values(*online_, nn::floats_on(device_, observations, batch, observation_size_))
            .argmax(1)
            .to(at::kCPU)
            .contiguous();
    std::copy_n(q.data_ptr<std::int64_t>(), batch, out);
    return;
  }
  if (!greedy_pass_ || greedy_pass_->batch_size() != batch) {
    greedy_pass_ = std::make_unique<nn::QNetworkPass>(online_, batch);
  }
  const std::int64_t n = greedy_pass_->num_actions();
  host_q_.resize(static_cast<std::size_t>(batch * n));
  distribution_->host_q_values(greedy_pass_->forward(observations), batch, n, host_q_.data());
  for (std::int64_t i = 0; i < batch; ++i) out[i] = argmax(host_q_.data() + i * n, n);
}

void Dqn::act_greedy(core::ConstTypedPtr observations, std::int64_t batch, const ActionsOut& out) {
  silence_noise();
  greedy_actions(core::as_floats(observations, static_cast<std::size_t>(batch * observation_size_),
                                 input_floats_, replay_->options().byte_scale),
                 batch, out.indices);
}

// Noisy nets explore through their noise alone; the others epsilon-greedily at the final epsilon.
void Dqn::act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                         const ActionsOut& out) {
  if (!acting_noise_.empty()) {
    draw_acting_noise();
    greedy_actions(
        core::as_floats(observations, static_cast<std::size_t>(batch * observation_size_),
                        input_floats_, replay_->options().byte_scale),
        batch, out.indices);
    return;
  }
  act_greedy(observations, batch, out);
  const auto num_actions = static_cast<std::uint64_t>(online_->options.num_actions());
  for (std::int64_t i = 0; i < batch; ++i) {
    if (exploration_rng_.uniform() < options_.exploration.final_eps) {
      out.indices[i] = static_cast<std::int64_t>(exploration_rng_.below(num_actions));
    }
  }
}

void Dqn::add_transition(const replay::Transition& transition, float td_error) {
  const float action = transition.action[0];
  const auto actions = static_cast<float>(online_->options.num_actions());
  if (!(action >= 0 && action < actions) || action != std::floor(action)) {
    throw std::invalid_argument("action " + std::to_string(action) + " (the network has " +
                                std::to_string(online_->options.num_actions()) + ")");
  }
  replay_->add_transition(transition, td_error);
}

template <class Fields>
void Dqn::state_fields(Fields& fields) {
  fields.tag("dqn");
  fields(nn::tensor_values(parameters_->values()), nn::tensor_values(target_parameters_->values()),
         nn::optimizer_state(*optimizer_), replay_, exploration_rng_, replay_rng_, env_steps_,
         vector_steps_, steps_since_target_update_);
}

void Dqn::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void Dqn::load_state(core::StateReader& in) {
  core::load_fields(in, *this);
  if (autograd_steps_) autograd_steps_->forget_capture();  // the optimizer's moments are new
  // Until load_replay(): the buffer restarts empty and refills as at the start of a run.
  min_replay_size_ =
      std::max(options_.batch_size, std::min(options_.learning_starts, options_.buffer_size));
}

void Dqn::save_replay(core::StateWriter& out) const { replay_->save_transitions(out); }

void Dqn::load_replay(core::StateReader& in) {
  replay_->load_transitions(in);
  min_replay_size_ = options_.batch_size;
}

void Dqn::update_target() {
  torch::NoGradGuard no_grad;
  at::Tensor target = target_parameters_->values();
  if (options_.tau >= 1.0) {
    target.copy_(parameters_->values());
  } else {
    target.mul_(1.0 - options_.tau).add_(parameters_->values(), options_.tau);
  }
  if (external_steps_) external_steps_->update_target(options_.tau);
}

void Dqn::hand_over_td_steps(const AgentSetup& setup) {
  if (!setup.external_td_steps) return;
  external_steps_ = setup.external_td_steps(online_, target_, *optimizer_, *distribution_);
}

}  // namespace mnrl::agents
