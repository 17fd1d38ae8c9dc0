#include "agents/actor_critic_agent.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "agents/policy_sampling.h"
#include "nn/capturable_adam.h"
#include "nn/gradient_clipping.h"
#include "nn/learning_rate.h"
#include "nn/memory_views.h"
#include "nn/policy_export.h"
#include "nn/tensor_state.h"

namespace mnrl::agents {

using nn::copy_out;
using nn::floats_on;
using nn::view_floats;

RolloutBatch RolloutBatch::select(const at::Tensor& rows) const {
  const auto select = [&](const at::Tensor& t) {
    return t.defined() ? t.index_select(0, rows) : at::Tensor();
  };
  return {select(observations), select(actions), select(log_probs), select(values),
          select(advantages),   select(returns), select(memory),    select(episode_starts)};
}

ActorCriticAgent::ActorCriticAgent(nn::ActorCritic model,
                                   std::shared_ptr<nn::FlatParameters> parameters,
                                   std::unique_ptr<torch::optim::Optimizer> optimizer,
                                   replay::RolloutBuffer buffer, ActionBounds bounds,
                                   std::int64_t sde_sample_freq)
    : model_(std::move(model)),
      parameters_(std::move(parameters)),
      optimizer_(std::move(optimizer)),
      buffer_(std::move(buffer)),
      bounds_(std::move(bounds)),
      sde_sample_freq_(sde_sample_freq),
      next_observations_(static_cast<std::size_t>(buffer_.num_envs() * buffer_.observation_size())),
      device_(parameters_->values().device()),
      by_hand_(device_.is_cpu() && !model_->options.use_sde() && !model_->options.squash()),
      sequence_length_(buffer_.n_steps()) {
  if (model_->recurrent()) {
    memory_.emplace(buffer_.n_steps(), buffer_.num_envs(), model_->state_size());
  }
}

void ActorCriticAgent::act(core::ConstTypedPtr typed_observations, const ActionsOut& out) {
  c10::InferenceMode inference;
  const std::int64_t n = buffer_.num_envs();
  const std::int64_t size = buffer_.observation_size();
  const float* observations =
      core::as_floats(typed_observations, static_cast<std::size_t>(n * size), input_floats_,
                      model_->options.byte_scale());
  std::memcpy(buffer_.observations_at_step(), observations,
              static_cast<std::size_t>(n * size) * sizeof(float));
  if (by_hand_) {
    nn::ActorCriticPass& pass = pass_for(n, 1);
    if (memory_) {
      memory_->record_step(buffer_.step());
      pass.forward(observations, memory_->episode_starts().data(), memory_->states().data());
      pass.write_state(memory_->states().data());
      memory_->steps_taken();
    } else {
      pass.forward(observations);
    }
    // The rollout keeps the sample itself (an index as a float, or the unclipped values).
    sample_actions(policy_head(), pass.policy_output(), n, buffer_.actions_at_step(),
                   buffer_.log_probs_at_step());
    std::copy_n(pass.values(), n, buffer_.values_at_step());
    write_env_actions(buffer_.actions_at_step(), n, out);
    return;
  }
  const std::int64_t step = buffer_.step();
  if (step == 0 || (sde_sample_freq_ > 0 && step % sde_sample_freq_ == 0)) model_->reset_noise(n);
  const nn::PolicyValue output = rollout_forward(floats_on(device_, observations, n, size));
  if (!device_.is_cpu() && !model_->options.squash()) {
    sample_on_the_host(output, n);
    write_env_actions(buffer_.actions_at_step(), n, out);
    return;
  }
  const auto distribution = model_->exploration_distribution(output);
  const at::Tensor actions = distribution->sample();
  // The rollout keeps the sample itself (an index as a float, or the unclipped values).
  copy_out(actions.to(at::kFloat), buffer_.actions_at_step());
  copy_out(distribution->log_prob(actions), buffer_.log_probs_at_step());
  copy_out(output.value, buffer_.values_at_step());
  write_env_actions(actions, out);
}

nn::PolicyValue ActorCriticAgent::rollout_forward(const at::Tensor& observations) {
  if (!memory_) return model_->forward(observations);
  const std::int64_t n = buffer_.num_envs();
  memory_->record_step(buffer_.step());
  at::Tensor state_after;
  const nn::PolicyValue output = model_->forward(
      observations, floats_on(device_, memory_->episode_starts().data(), n),
      floats_on(device_, memory_->states().data(), n, memory_->state_size()), &state_after);
  copy_out(state_after, memory_->states().data());
  memory_->steps_taken();
  return output;
}

float ActorCriticAgent::value_after_step(const at::Tensor& observation, std::int64_t env) {
  if (!memory_) return model_->value(observation).item<float>();
  const std::int64_t size = memory_->state_size();
  const float continuing = 0.0f;
  return model_
      ->forward(observation, floats_on(device_, &continuing, 1),
                floats_on(device_, memory_->states().data() + env * size, 1, size))
      .value.item<float>();
}

void ActorCriticAgent::sample_on_the_host(const nn::PolicyValue& output, std::int64_t n) {
  // Policy outputs, values and log-std in one copy back.
  std::vector<at::Tensor> parts = {output.policy.flatten(), output.value.flatten()};
  if (model_->log_std().defined()) parts.push_back(model_->log_std().detach());
  const at::Tensor host = at::cat(parts).to(at::kCPU);
  const float* policy = host.data_ptr<float>();
  const std::int64_t action_size = model_->options.action_size();
  const float* values = policy + n * action_size;
  PolicyHead head{action_size};
  if (model_->log_std().defined()) head.log_std = values + n;
  sample_actions(head, policy, n, buffer_.actions_at_step(), buffer_.log_probs_at_step());
  std::copy_n(values, n, buffer_.values_at_step());
}

void ActorCriticAgent::observe(const StepOutcome& outcome) {
  const std::int64_t n = buffer_.num_envs();
  const std::int64_t size = buffer_.observation_size();
  std::copy_n(outcome.rewards, n, buffer_.rewards_at_step());
  std::copy_n(outcome.terminated, n, buffer_.terminated_at_step());
  std::copy_n(outcome.truncated, n, buffer_.truncated_at_step());
  const float* next = core::as_floats(outcome.next_observations, static_cast<std::size_t>(n * size),
                                      input_floats_, model_->options.byte_scale());
  std::copy_n(next, n * size, next_observations_.begin());

  // A truncated episode is bootstrapped from the value of its final observation.
  float* bootstrap = buffer_.bootstrap_values_at_step();
  for (std::int64_t i = 0; i < n; ++i) {
    if (!outcome.truncated[i] || outcome.terminated[i]) continue;
    c10::InferenceMode inference;
    const float* final_observation = core::as_floats(
        outcome.final_observations + static_cast<std::size_t>(i * size),
        static_cast<std::size_t>(size), input_floats_, model_->options.byte_scale());
    bootstrap[i] = value_after_step(floats_on(device_, final_observation, 1, size), i);
  }
  if (memory_) memory_->end_episodes(outcome.terminated, outcome.truncated);
  buffer_.advance();
}

void ActorCriticAgent::act_greedy(core::ConstTypedPtr observations, std::int64_t batch,
                                  const ActionsOut& out) {
  act_without_storing(observations, batch, out, /*sample=*/false);
}

void ActorCriticAgent::act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                                      const ActionsOut& out) {
  act_without_storing(observations, batch, out, /*sample=*/true);
}

void ActorCriticAgent::act_without_storing(core::ConstTypedPtr typed_observations,
                                           std::int64_t batch, const ActionsOut& out, bool sample) {
  const float* observations = core::as_floats(
      typed_observations, static_cast<std::size_t>(batch * buffer_.observation_size()),
      input_floats_, model_->options.byte_scale());
  if (by_hand_ && !sample) {
    nn::ActorCriticPass& pass = pass_for(batch, 1);
    if (memory_) {
      evaluation_memory_.prepare(batch, memory_->state_size(), device_);
      float* state = evaluation_memory_.state().data_ptr<float>();
      pass.forward(observations, evaluation_memory_.starts(), state);
      pass.write_state(state);
      evaluation_memory_.stepped();
    } else {
      pass.forward(observations);
    }
    write_modes(pass.policy_output(), batch, out);
    return;
  }
  c10::InferenceMode inference;
  const at::Tensor inputs = floats_on(device_, observations, batch, buffer_.observation_size());
  nn::PolicyValue output;
  if (memory_) {
    evaluation_memory_.prepare(batch, memory_->state_size(), device_);
    output = model_->forward(inputs, floats_on(device_, evaluation_memory_.starts(), batch),
                             evaluation_memory_.state(), &evaluation_memory_.state());
    evaluation_memory_.stepped();
  } else {
    output = model_->forward(inputs);
  }
  const auto distribution = model_->distribution(output);
  write_env_actions(sample ? distribution->sample() : distribution->mode(), out);
}

void ActorCriticAgent::evaluation_episodes_ended(const std::uint8_t* terminated,
                                                 const std::uint8_t* truncated,
                                                 std::int64_t batch) {
  if (memory_) evaluation_memory_.episodes_ended(terminated, truncated, batch);
}

template <class Fields>
void ActorCriticAgent::state_fields(Fields& fields) {
  fields.tag("actor_critic");
  fields(nn::tensor_values(parameters_->values()), nn::optimizer_state(*optimizer_), buffer_,
         next_observations_);
  if (auto* noise = model_->state_dependent_noise()) fields(noise->as_field(buffer_.num_envs()));
  if (memory_) fields(*memory_);
}

void ActorCriticAgent::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void ActorCriticAgent::load_state_dropping_rollout(core::StateReader& in,
                                                   std::int64_t saved_envs) {
  in.expect_tag("actor_critic");
  nn::load_tensor(in, parameters_->values());
  nn::load_optimizer(in, *optimizer_);
  replay::RolloutBuffer saved(buffer_.n_steps(), saved_envs, buffer_.observation_size(),
                              buffer_.action_size());
  saved.load_state(in);
  std::vector<float> next(static_cast<std::size_t>(saved_envs * buffer_.observation_size()));
  in.values(next);
  if (memory_) {
    RolloutMemory saved_memory(buffer_.n_steps(), saved_envs, memory_->state_size());
    core::load_fields(in, saved_memory);
  }
  buffer_.clear();
  if (graphed_) graphed_->forget_captures();  // the optimizer's moments are new tensors
}

void ActorCriticAgent::load_state(core::StateReader& in) {
  core::load_fields(in, *this);
  if (graphed_) graphed_->forget_captures();  // the optimizer's moments are new tensors
}

void ActorCriticAgent::write_env_actions(const at::Tensor& actions, const ActionsOut& out) const {
  const at::Tensor values = actions.to(at::kFloat).to(at::kCPU).contiguous();
  write_env_actions(values.data_ptr<float>(), actions.size(0), out);
}

void ActorCriticAgent::write_env_actions(const float* actions, std::int64_t rows,
                                         const ActionsOut& out) const {
  if (!model_->options.continuous()) {
    for (std::int64_t i = 0; i < rows; ++i) out.indices[i] = static_cast<std::int64_t>(actions[i]);
    return;
  }
  const std::size_t width = bounds_.low.size();
  const auto count = static_cast<std::size_t>(rows) * width;
  const bool squash = model_->options.squash();
  for (std::size_t i = 0; i < count; ++i) {
    const float low = bounds_.low[i % width];
    const float high = bounds_.high[i % width];
    const float value = actions[i];
    // Squashed values lie in (-1, 1): map them onto the bounds. Gaussian ones may lie anywhere.
    out.values[i] =
        squash ? low + 0.5f * (value + 1.0f) * (high - low) : std::clamp(value, low, high);
  }
}

void ActorCriticAgent::write_modes(const float* outputs, std::int64_t rows,
                                   const ActionsOut& out) const {
  if (model_->options.continuous()) {
    write_env_actions(outputs, rows, out);  // the Gaussian's mean
    return;
  }
  const std::int64_t n = model_->options.action_size();
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* row = outputs + i * n;
    out.indices[i] = std::max_element(row, row + n) - row;  // the first maximum, as argmax
  }
}

std::string ActorCriticAgent::export_greedy_policy(
    const std::optional<nn::ObservationScale>& scale) const {
  const nn::ActorCriticOptions& options = model_->options;
  nn::GreedyPolicy policy;
  policy.byte_scale = options.byte_scale();
  policy.observation_scale = scale;
  policy.encoder = model_->encoder();
  policy.memory = model_->core();
  policy.trunk = model_->policy_trunk()->layers();
  policy.activation = options.activation();
  policy.head = model_->policy_head();
  policy.output = !options.continuous() ? nn::GreedyPolicy::Output::argmax
                  : options.squash()    ? nn::GreedyPolicy::Output::squashed
                                        : nn::GreedyPolicy::Output::clipped;
  policy.low = bounds_.low;
  policy.high = bounds_.high;
  return nn::torchscript_policy(policy);
}

RolloutBatch ActorCriticAgent::finish_rollout(double gamma, double gae_lambda) {
  const std::int64_t total = buffer_.size();
  const std::int64_t size = buffer_.observation_size();
  {
    c10::InferenceMode inference;
    std::vector<float> last_values(static_cast<std::size_t>(buffer_.num_envs()));
    copy_out(last_values_of_next_observations(), last_values.data());
    buffer_.compute_advantages(last_values.data(), static_cast<float>(gamma),
                               static_cast<float>(gae_lambda));
  }
  RolloutBatch rollout{floats_on(device_, buffer_.observations(), total, size),
                       rollout_actions(),
                       floats_on(device_, buffer_.log_probs(), total),
                       floats_on(device_, buffer_.values(), total),
                       floats_on(device_, buffer_.advantages(), total),
                       floats_on(device_, buffer_.returns(), total),
                       {},
                       {}};
  if (memory_) {
    rollout.memory = floats_on(device_, memory_->rollout_states(), total, memory_->state_size());
    rollout.episode_starts = floats_on(device_, memory_->rollout_episode_starts(), total);
  }
  return staged_for_steps(rollout);
}

RolloutBatch ActorCriticAgent::staged_for_steps(const RolloutBatch& rollout) {
  GraphedGradientSteps* graphed = graphed_steps();
  return graphed ? graphed->stage(rollout) : rollout;
}

RolloutBatch ActorCriticAgent::finish_rollout_vtrace(
    const replay::RolloutBuffer::VtraceOptions& options) {
  const std::int64_t total = buffer_.size();
  const std::int64_t size = buffer_.observation_size();
  const at::Tensor observations = floats_on(device_, buffer_.observations(), total, size);
  const at::Tensor actions = rollout_actions();
  const at::Tensor behaviour_log_probs = floats_on(device_, buffer_.log_probs(), total);
  learner_values_.resize(static_cast<std::size_t>(total));
  std::vector<float> log_rhos(static_cast<std::size_t>(total));
  std::vector<float> last_values(static_cast<std::size_t>(buffer_.num_envs()));
  const std::int64_t envs = buffer_.num_envs();
  at::Tensor memory, episode_starts;
  if (memory_) {
    memory = floats_on(device_, memory_->rollout_states(), total, memory_->state_size());
    episode_starts = floats_on(device_, memory_->rollout_episode_starts(), total);
  }
  {
    c10::InferenceMode inference;
    const at::Tensor next = floats_on(device_, next_observations_.data(), envs, size);
    if (memory_) {
      at::Tensor state_after;
      const nn::PolicyValue output =
          model_->forward(observations, episode_starts, memory.narrow(0, 0, envs), &state_after);
      copy_out(output.value, learner_values_.data());
      copy_out(model_->distribution(output)->log_prob(actions) - behaviour_log_probs,
               log_rhos.data());
      copy_out(model_
                   ->forward(next, floats_on(device_, memory_->episode_starts().data(), envs),
                             state_after)
                   .value,
               last_values.data());
    } else {
      const nn::PolicyValue output = model_->forward(observations);
      copy_out(output.value, learner_values_.data());
      copy_out(model_->distribution(output)->log_prob(actions) - behaviour_log_probs,
               log_rhos.data());
      copy_out(model_->value(next), last_values.data());
    }
  }
  buffer_.compute_vtrace(learner_values_.data(), last_values.data(), log_rhos.data(), options);
  return staged_for_steps({observations, actions, behaviour_log_probs,
                           floats_on(device_, learner_values_.data(), total),
                           floats_on(device_, buffer_.advantages(), total),
                           floats_on(device_, buffer_.returns(), total), memory, episode_starts});
}

at::Tensor ActorCriticAgent::last_values_of_next_observations() {
  const std::int64_t n = buffer_.num_envs();
  const at::Tensor next =
      floats_on(device_, next_observations_.data(), n, buffer_.observation_size());
  if (!memory_) return model_->value(next);
  return model_
      ->forward(next, floats_on(device_, memory_->episode_starts().data(), n),
                floats_on(device_, memory_->states().data(), n, memory_->state_size()))
      .value;
}

at::Tensor ActorCriticAgent::minibatch_order(std::int64_t batch_size) const {
  const std::int64_t total = buffer_.size();
  if (!memory_) return at::randperm(total, at::kLong);
  const std::int64_t envs = buffer_.num_envs();
  const std::int64_t steps = sequence_length_;
  // Sequence k covers steps [(k / envs) * steps, + steps) of env k % envs.
  const std::int64_t sequences = total / steps;
  const std::int64_t per_batch = batch_size / steps;
  const at::Tensor shuffled = at::randperm(sequences, at::kLong);
  const std::int64_t* sequence = shuffled.data_ptr<std::int64_t>();
  at::Tensor order = at::empty({total}, at::kLong);
  std::int64_t* row = order.data_ptr<std::int64_t>();
  for (std::int64_t first = 0; first < sequences; first += per_batch) {
    const std::int64_t count = std::min(per_batch, sequences - first);
    for (std::int64_t t = 0; t < steps; ++t) {
      for (std::int64_t k = first; k < first + count; ++k) {
        *row++ = ((sequence[k] / envs) * steps + t) * envs + sequence[k] % envs;
      }
    }
  }
  return order;
}

at::Tensor ActorCriticAgent::rollout_actions() const {
  const std::int64_t total = buffer_.size();
  return model_->options.continuous()
             ? floats_on(device_, buffer_.actions(), total, buffer_.action_size())
             : floats_on(device_, buffer_.actions(), total).to(at::kLong);
}

Statistics ActorCriticAgent::whole_rollout_step(const RolloutBatch& rollout, double learning_rate,
                                                const ActorCriticLossOptions& options,
                                                double max_grad_norm) {
  set_learning_rate(learning_rate);
  LossSums sums;
  gradient_step(rollout, {at::Tensor(), 0, rollout.returns.size(0)}, options, max_grad_norm, sums);
  const LossValues loss = sums.means();
  const double explained = explained_variance(rollout.returns, rollout.values);
  clear_rollout();
  return {{"losses/policy_loss", loss.policy_loss}, {"losses/value_loss", loss.value_loss},
          {"losses/entropy", loss.entropy},         {"losses/approx_kl", loss.approx_kl},
          {"losses/explained_variance", explained}, {"charts/learning_rate", learning_rate}};
}

void ActorCriticAgent::set_learning_rate(double learning_rate) {
  nn::set_learning_rate(*optimizer_, learning_rate);
  if (external_steps_) external_steps_->set_learning_rate(learning_rate);
}

void ActorCriticAgent::set_external_gradient_steps(std::shared_ptr<ExternalGradientSteps> steps) {
  if (model_->recurrent() || model_->options.use_sde()) {
    throw std::invalid_argument(
        "external gradient steps take a memoryless actor-critic without gSDE");
  }
  external_steps_ = std::move(steps);
}

void ActorCriticAgent::hand_over_gradient_steps(const AgentSetup& setup) {
  if (!setup.external_gradient_steps) return;
  if (auto steps = setup.external_gradient_steps(model_, *optimizer_)) {
    set_external_gradient_steps(std::move(steps));
  }
}

void ActorCriticAgent::clear_rollout() {
  buffer_.clear();
  if (external_steps_) external_steps_->synchronize();
}

void ActorCriticAgent::gradient_step(const RolloutBatch& rollout, const Minibatch& batch,
                                     const ActorCriticLossOptions& options, double max_grad_norm,
                                     LossSums& sums) {
  if (external_steps_) {
    sums.add(external_steps_->step(
        batch.order.defined() ? rollout.select(batch.order.narrow(0, batch.start, batch.count))
                              : rollout,
        options, max_grad_norm));
    return;
  }
  if (GraphedGradientSteps* graphed = graphed_steps()) {
    graphed->step(rollout, batch, options, max_grad_norm, sums);
    return;
  }
  const std::int64_t* rows =
      batch.order.defined() ? batch.order.data_ptr<std::int64_t>() + batch.start : nullptr;
  sums.add(by_hand_ ? write_gradients_by_hand(rows, batch.count, options)
                    : write_gradients_by_autograd(rollout, rows, batch.count, options));
  if (after_backward_) after_backward_();
  nn::clip_gradient_norm(parameters_->values(), max_grad_norm);
  optimizer_->step();
}

GraphedGradientSteps* ActorCriticAgent::graphed_steps() {
  if (graphs_decided_) return graphed_.get();
  graphs_decided_ = true;
  auto* adam = dynamic_cast<nn::CapturableAdam*>(optimizer_.get());
  const char* why_not =
      after_backward_            ? kGradientsAveragedBetween
      : !adam                    ? "its optimizer is not Adam"
      : model_->recurrent()      ? "a recurrent model replays sequences whose episode starts vary"
      : model_->options.squash() ? "a squashed Gaussian's entropy is estimated by sampling, and a "
                                   "captured step draws no random numbers"
                                 : nullptr;
  if (!cuda_graphs_chosen(cuda_graphs_, device_.is_cpu(), why_not)) return nullptr;
  graphed_ = std::make_unique<GraphedGradientSteps>(model_, *parameters_, *adam,
                                                    cuda_graphs_ == CudaGraphs::required);
  return graphed_.get();
}

LossValues ActorCriticAgent::write_gradients_by_hand(const std::int64_t* rows, std::int64_t count,
                                                     const ActorCriticLossOptions& options) {
  // A recurrent model's sequences: minibatches' of sequence_length() steps, or the whole
  // rollout's, one per env.
  const std::int64_t steps = !memory_ ? 1 : rows ? sequence_length_ : count / rollout_envs();
  const RolloutRows batch = gather_rows(rows, count, steps);
  nn::ActorCriticPass& pass = pass_for(count, steps);
  if (memory_) {
    pass.forward(batch.observations, batch.episode_starts, batch.memory);
  } else {
    pass.forward(batch.observations);
  }
  const LossValues loss = actor_critic_loss_gradients(pass, policy_head(), batch, options);
  pass.backward();
  return loss;
}

nn::ActorCriticPass& ActorCriticAgent::pass_for(std::int64_t batch_size, std::int64_t steps) {
  const std::pair key{batch_size, steps};
  auto pass = passes_.find(key);
  if (pass == passes_.end()) pass = passes_.try_emplace(key, model_, batch_size, steps).first;
  return pass->second;
}

PolicyHead ActorCriticAgent::policy_head() const {
  PolicyHead head{model_->options.action_size()};
  const at::Tensor& log_std = model_->log_std();
  if (log_std.defined()) {
    head.log_std = log_std.data_ptr<float>();
    head.log_std_gradient = nn::gradient_of(log_std).data_ptr<float>();
  }
  return head;
}

LossValues ActorCriticAgent::write_gradients_by_autograd(const RolloutBatch& rollout,
                                                         const std::int64_t* rows,
                                                         std::int64_t count,
                                                         const ActorCriticLossOptions& options) {
  const ActorCriticLoss loss = actor_critic_loss(
      *model_,
      rows ? rollout.select(
                 at::from_blob(const_cast<std::int64_t*>(rows), {count}, at::kLong).to(device_))
           : rollout,
      options, rows ? count / sequence_length_ : buffer_.num_envs());
  parameters_->zero_grad();
  loss.total.backward();
  return loss_values_of(loss, options);
}

RolloutRows ActorCriticAgent::gather_rows(const std::int64_t* rows, std::int64_t count,
                                          std::int64_t steps) {
  const std::int64_t observation_size = buffer_.observation_size();
  const std::int64_t action_size = buffer_.action_size();
  if (!rows) {
    return {count,
            buffer_.observations(),
            buffer_.actions(),
            buffer_.log_probs(),
            buffer_.values(),
            buffer_.advantages(),
            buffer_.returns(),
            memory_ ? memory_->rollout_episode_starts() : nullptr,
            memory_ ? memory_->rollout_states() : nullptr};  // step 0's rows: every env's
  }
  const std::int64_t sequences = count / steps;
  const std::int64_t state_size = memory_ ? memory_->state_size() : 0;
  const std::int64_t memory_width = memory_ ? count + sequences * state_size : 0;
  const std::int64_t width = observation_size + action_size + 4;
  gathered_.resize(static_cast<std::size_t>(count * width + memory_width));
  float* observations = gathered_.data();
  float* actions = observations + count * observation_size;
  float* scalars = actions + count * action_size;  // log-probs, values, advantages, returns
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t r = rows[i];
    std::copy_n(buffer_.observations() + r * observation_size, observation_size,
                observations + i * observation_size);
    std::copy_n(buffer_.actions() + r * action_size, action_size, actions + i * action_size);
    scalars[i] = buffer_.log_probs()[r];
    scalars[count + i] = buffer_.values()[r];
    scalars[2 * count + i] = buffer_.advantages()[r];
    scalars[3 * count + i] = buffer_.returns()[r];
  }
  RolloutRows gathered{count,          observations,       actions,           scalars,
                       scalars + count, scalars + 2 * count, scalars + 3 * count};
  if (!memory_) return gathered;
  float* episode_starts = scalars + 4 * count;
  float* memory = episode_starts + count;
  for (std::int64_t i = 0; i < count; ++i) {
    episode_starts[i] = memory_->rollout_episode_starts()[rows[i]];
  }
  // Rows [0, sequences) are the sequences' first steps.
  for (std::int64_t k = 0; k < sequences; ++k) {
    std::copy_n(memory_->rollout_states() + rows[k] * state_size, state_size,
                memory + k * state_size);
  }
  gathered.episode_starts = episode_starts;
  gathered.memory = memory;
  return gathered;
}

double explained_variance(const at::Tensor& returns, const at::Tensor& values) {
  const double return_variance = returns.var().item<double>();
  return return_variance == 0 ? 0.0
                              : 1.0 - (returns - values).var().item<double>() / return_variance;
}

}  // namespace mnrl::agents
