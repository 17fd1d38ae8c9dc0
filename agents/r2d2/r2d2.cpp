#include "agents/r2d2/r2d2.h"

#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "agents/r2d2/r2d2_loss.h"
#include "agents/schedule.h"
#include "core/seed_streams.h"
#include "nn/gradient_clipping.h"
#include "nn/learning_rate.h"
#include "nn/policy_export.h"
#include "nn/tensor_state.h"

namespace mnrl::agents {

R2d2::R2d2(R2d2Options options, nn::RecurrentQNetwork online, nn::RecurrentQNetwork target,
           std::shared_ptr<nn::FlatParameters> parameters,
           std::unique_ptr<torch::optim::Optimizer> optimizer,
           std::unique_ptr<replay::SequenceReplay> replay, std::int64_t total_steps,
           std::uint64_t exploration_seed)
    : options_(std::move(options)),
      online_(std::move(online)),
      target_(std::move(target)),
      parameters_(std::move(parameters)),
      target_parameters_(std::make_unique<nn::FlatParameters>(*target_)),
      optimizer_(std::move(optimizer)),
      replay_(std::move(replay)),
      num_envs_(replay_->options().num_envs),
      observation_size_(replay_->options().observation_size),
      total_steps_(std::max<std::int64_t>(total_steps, 1)),
      exploration_rng_(exploration_seed),
      replay_rng_(core::derive_seed(exploration_seed, 1)),
      states_(at::zeros({num_envs_, online_->state_size()}, at::kFloat)),
      min_replay_size_(1) {
  torch::NoGradGuard no_grad;
  target_parameters_->values().copy_(parameters_->values());
}

double R2d2::epsilon() const {
  if (fixed_epsilon_) return *fixed_epsilon_;
  return options_.exploration.epsilon(static_cast<double>(env_steps_) /
                                      static_cast<double>(total_steps_));
}

nn::RecurrentQNetworkPass& R2d2::pass_of(bool online, std::int64_t steps, std::int64_t batch) {
  auto& passes = online ? online_passes_ : target_passes_;
  const std::pair key{steps, batch};
  auto pass = passes.find(key);
  if (pass == passes.end()) {
    pass = passes.try_emplace(key, online ? online_ : target_, steps, batch).first;
  }
  return pass->second;
}

const float* R2d2::step_online(const float* observations, std::int64_t batch, float* state,
                               const float* starts) {
  nn::RecurrentQNetworkPass& pass = pass_of(true, 1, batch);
  pass.forward(observations, starts, state);
  pass.write_state(state);
  return pass.q_values();
}

void R2d2::write_argmax(const float* q, std::int64_t batch, std::int64_t* out) const {
  const std::int64_t actions = online_->options.num_actions();
  for (std::int64_t i = 0; i < batch; ++i) {
    const float* row = q + i * actions;
    out[i] = std::max_element(row, row + actions) - row;  // the first maximum, as argmax
  }
}

void R2d2::act(core::ConstTypedPtr observations, const ActionsOut& out) {
  const float byte_scale = replay_->options().byte_scale;
  const float* inputs =
      core::as_floats(observations, static_cast<std::size_t>(num_envs_ * observation_size_),
                      input_floats_, byte_scale);
  if (last_observations_.dtype() != observations.dtype() || last_observations_.row_size() == 0) {
    last_observations_ = core::TypedRows(observations.dtype(), static_cast<std::size_t>(num_envs_),
                                         static_cast<std::size_t>(observation_size_));
  }
  core::copy_elements(observations, static_cast<std::size_t>(num_envs_ * observation_size_),
                      last_observations_.data());
  acted_states_.assign(states_.data_ptr<float>(), states_.data_ptr<float>() + states_.numel());
  // observe() zeroed the memory of an env whose episode ended: no restart flags.
  write_argmax(step_online(inputs, num_envs_, states_.data_ptr<float>()), num_envs_, out.indices);
  const double eps = epsilon();
  const auto num_actions = static_cast<std::uint64_t>(online_->options.num_actions());
  last_actions_.resize(static_cast<std::size_t>(num_envs_));
  for (std::int64_t i = 0; i < num_envs_; ++i) {
    if (exploration_rng_.uniform() < eps) {
      out.indices[i] = static_cast<std::int64_t>(exploration_rng_.below(num_actions));
    }
    last_actions_[static_cast<std::size_t>(i)] = static_cast<float>(out.indices[i]);
  }
}

void R2d2::observe(const StepOutcome& outcome) {
  replay_->add_step(last_observations_.data(), acted_states_.data(), last_actions_.data(),
                    outcome.rewards, outcome.next_observations, outcome.terminated,
                    outcome.truncated, outcome.final_observations);
  // An env whose episode ended starts the next one from a zero memory.
  float* states = states_.data_ptr<float>();
  const std::int64_t size = online_->state_size();
  for (std::int64_t i = 0; i < num_envs_; ++i) {
    if (outcome.terminated[i] || outcome.truncated[i]) std::fill_n(states + i * size, size, 0.0f);
  }
  env_steps_ += num_envs_;
  ++vector_steps_;
}

bool R2d2::update_ready() const {
  return env_steps_ > options_.learning_starts && vector_steps_ % options_.train_freq == 0 &&
         replay_->size() >= min_replay_size_;
}

Statistics R2d2::update(const TrainingProgress& progress) {
  const double learning_rate =
      scheduled(options_.learning_rate, options_.lr_schedule, progress.remaining());
  nn::set_learning_rate(*optimizer_, learning_rate);
  const std::int64_t n = options_.batch_size;
  double loss_sum = 0.0, q_sum = 0.0;
  for (std::int64_t step = 0; step < options_.gradient_steps; ++step) {
    replay_->sample(replay_rng_, n,
                    replay::annealed_beta(options_.per_beta0, 1.0 - progress.remaining()), batch_);
    const R2d2Loss loss = loss_of_batch(/*differentiate=*/true);
    if (after_backward_) after_backward_();
    nn::clip_gradient_norm(parameters_->values(), options_.max_grad_norm);
    optimizer_->step();
    replay_->update_priorities(batch_, loss.priorities.data());
    loss_sum += loss.td_loss;
    q_sum += loss.q_values;
    if (++gradient_steps_ % options_.target_update_interval == 0) update_target();
  }
  const auto steps = static_cast<double>(options_.gradient_steps);
  return {{"losses/td_loss", loss_sum / steps},
          {"losses/q_values", q_sum / steps},
          {"charts/epsilon", epsilon()},
          {"charts/learning_rate", learning_rate}};
}

R2d2Loss R2d2::loss_of_batch(bool differentiate) {
  R2d2LossOptions options;
  options.burn_in = options_.burn_in;
  options.gamma = options_.gamma;
  options.n_step = options_.n_step;
  options.double_q = options_.double_q;
  options.huber = options_.loss == "huber";
  options.priority_eta = options_.priority_eta;
  options.value_rescaling = options_.value_rescaling;
  const std::int64_t positions = replay_->options().length + 1;
  return r2d2_loss_by_hand(pass_of(true, positions, batch_.size),
                           pass_of(false, positions, batch_.size), batch_, options,
                           differentiate);
}

void R2d2::take_sequences(std::int64_t count, float* out) {
  std::vector<std::int64_t> slots(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k) {
    slots[static_cast<std::size_t>(k)] = replay_->slot_of(sequences_taken_ + k);
  }
  replay_->gather(slots.data(), count, batch_);
  update_target();  // an actor measures with its copy of the learner's network alone
  const R2d2Loss loss = loss_of_batch(/*differentiate=*/false);
  const std::int64_t row = replay_->row_floats();
  for (std::int64_t k = 0; k < count; ++k) {
    replay_->pack(slots[static_cast<std::size_t>(k)], loss.priorities[static_cast<std::size_t>(k)],
                  out + k * row);
  }
  sequences_taken_ += count;
}

void R2d2::add_sequences(const float* rows, std::int64_t count) {
  const std::int64_t row = replay_->row_floats(), length = replay_->options().length;
  const std::int64_t observations = (length + 1) * observation_size_;
  const auto actions = static_cast<float>(online_->options.num_actions());
  for (std::int64_t k = 0; k < count; ++k) {
    const float* sequence = rows + k * row;
    for (std::int64_t t = 0; t < length; ++t) {
      const float action = sequence[observations + t];
      if (!(action >= 0.0f && action < actions) || action != std::floor(action)) {
        throw std::invalid_argument("a sequence with action " + std::to_string(action) +
                                    " (the network has " +
                                    std::to_string(online_->options.num_actions()) + ")");
      }
    }
    replay_->add_packed(sequence);
  }
}

void R2d2::update_target() {
  torch::NoGradGuard no_grad;
  target_parameters_->values().copy_(parameters_->values());
}

void R2d2::act_greedy(core::ConstTypedPtr observations, std::int64_t batch, const ActionsOut& out) {
  const float* inputs =
      core::as_floats(observations, static_cast<std::size_t>(batch * observation_size_),
                      input_floats_, replay_->options().byte_scale);
  evaluation_memory_.prepare(batch, online_->state_size(), at::kCPU);
  write_argmax(step_online(inputs, batch, evaluation_memory_.state().data_ptr<float>(),
                           evaluation_memory_.starts()),
               batch, out.indices);
  evaluation_memory_.stepped();
}

void R2d2::act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                          const ActionsOut& out) {
  act_greedy(observations, batch, out);
  const auto num_actions = static_cast<std::uint64_t>(online_->options.num_actions());
  for (std::int64_t i = 0; i < batch; ++i) {
    if (exploration_rng_.uniform() < options_.exploration.final_eps) {
      out.indices[i] = static_cast<std::int64_t>(exploration_rng_.below(num_actions));
    }
  }
}

void R2d2::evaluation_episodes_ended(const std::uint8_t* terminated, const std::uint8_t* truncated,
                                     std::int64_t batch) {
  evaluation_memory_.episodes_ended(terminated, truncated, batch);
}

template <class Fields>
void R2d2::state_fields(Fields& fields) {
  fields.tag("r2d2");
  fields(nn::tensor_values(parameters_->values()), nn::tensor_values(target_parameters_->values()),
         nn::optimizer_state(*optimizer_), nn::tensor_values(states_), *replay_, exploration_rng_,
         replay_rng_, env_steps_, vector_steps_, gradient_steps_);
}

void R2d2::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void R2d2::load_state(core::StateReader& in) {
  core::load_fields(in, *this);
  // Until load_replay(): the replay restarts empty, and updates wait for the sequences
  // learning_starts env steps make, as at the start of a run.
  min_replay_size_ = std::max<std::int64_t>(
      1, std::min(options_.learning_starts / options_.sequence_period(), options_.buffer_size));
}

void R2d2::save_replay(core::StateWriter& out) const { replay_->save_sequences(out); }

void R2d2::load_replay(core::StateReader& in) {
  replay_->load_sequences(in);
  min_replay_size_ = 1;
}

std::string R2d2::export_greedy_policy(const std::optional<nn::ObservationScale>& scale) const {
  const nn::RecurrentQNetworkOptions& options = online_->options;
  nn::GreedyPolicy policy;
  policy.byte_scale = replay_->options().byte_scale;
  policy.observation_scale = scale;
  policy.encoder = online_->encoder();
  policy.memory = online_->core();
  policy.trunk = online_->trunk()->layers();
  policy.activation = options.activation();
  policy.head = online_->advantage_head();
  policy.value_head = online_->value_head();
  policy.output = options.dueling() ? nn::GreedyPolicy::Output::dueling_argmax
                                    : nn::GreedyPolicy::Output::argmax;
  return nn::torchscript_policy(policy);
}

}  // namespace mnrl::agents
