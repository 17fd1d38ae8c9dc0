#include "topologies/pipeline/pipelined_actor_critic.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/norm.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "agents/actor_critic_loss.h"
#include "nn/actor_critic_blocks.h"
#include "nn/learning_rate.h"
#include "nn/optimizer_moments.h"

namespace mnrl::topologies {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

std::optional<double> optional_of(double value) {
  return std::isnan(value) ? std::nullopt : std::optional<double>(value);
}

// `parameters` as one row of floats, in their order; and such a row written back into them.
at::Tensor flattened(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> rows;
  for (const auto& p : parameters) rows.push_back(p.detach().reshape({-1}));
  return at::cat(rows);
}

void load_flattened(const std::vector<at::Tensor>& parameters, const at::Tensor& flat) {
  torch::NoGradGuard no_grad;
  std::int64_t offset = 0;
  for (const auto& p : parameters) {
    p.view({-1}).copy_(flat.narrow(0, offset, p.numel()));
    offset += p.numel();
  }
}

// The agent's optimizer kind, with its options, over a stage's parameters.
std::unique_ptr<torch::optim::Optimizer> same_kind_over(const torch::optim::Optimizer& like,
                                                        std::vector<at::Tensor> parameters) {
  const auto& options = like.param_groups().front().options();
  if (const auto* adam = dynamic_cast<const torch::optim::AdamOptions*>(&options)) {
    return std::make_unique<torch::optim::Adam>(std::move(parameters), *adam);
  }
  if (const auto* rmsprop = dynamic_cast<const torch::optim::RMSpropOptions*>(&options)) {
    return std::make_unique<torch::optim::RMSprop>(std::move(parameters), *rmsprop);
  }
  throw std::invalid_argument("pipeline stages step with Adam or RMSprop only");
}

// Columns of the loss's inputs per row: the action (its values, or a Discrete index), then the
// old log-prob, the old value, the advantage and the return.
std::int64_t action_columns(const nn::ActorCriticImpl& model) {
  return model.options.continuous() ? model.options.action_size() : 1;
}

at::Tensor pack_loss_inputs(const agents::RolloutBatch& batch, std::int64_t rows) {
  const at::Tensor actions = batch.actions.dim() == 1 ? batch.actions.to(at::kFloat).unsqueeze(1)
                                                      : batch.actions.to(at::kFloat);
  return at::cat({actions, batch.log_probs.view({rows, 1}), batch.values.view({rows, 1}),
                  batch.advantages.view({rows, 1}), batch.returns.view({rows, 1})},
                 1)
      .contiguous();
}

agents::RolloutBatch unpack_loss_inputs(const at::Tensor& inputs,
                                        const nn::ActorCriticImpl& model) {
  const std::int64_t a = action_columns(model);
  agents::RolloutBatch batch;
  batch.actions =
      model.options.continuous() ? inputs.narrow(1, 0, a) : inputs.select(1, 0).to(at::kLong);
  batch.log_probs = inputs.select(1, a);
  batch.values = inputs.select(1, a + 1);
  batch.advantages = inputs.select(1, a + 2);
  batch.returns = inputs.select(1, a + 3);
  return batch;
}

at::Tensor values_tensor(const agents::LossValues& v) {
  return at::tensor(
      {v.policy_loss, v.value_loss, v.entropy, v.old_approx_kl, v.approx_kl, v.clip_fraction},
      at::kDouble);
}

agents::LossValues loss_values_from(const at::Tensor& t) {
  const double* v = t.data_ptr<double>();
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

void add_weighted(agents::LossValues& sum, const agents::LossValues& v, double weight) {
  sum.policy_loss += weight * v.policy_loss;
  sum.value_loss += weight * v.value_loss;
  sum.entropy += weight * v.entropy;
  sum.old_approx_kl += weight * v.old_approx_kl;
  sum.approx_kl += weight * v.approx_kl;
  sum.clip_fraction += weight * v.clip_fraction;
}

torch::nn::Sequential blocks_in(const torch::nn::Sequential& chain,
                                const distributed::StageRange& range) {
  torch::nn::Sequential blocks;
  for (std::size_t i = range.first; i < range.end; ++i) {
    blocks->push_back(*(chain->begin() + static_cast<std::ptrdiff_t>(i)));
  }
  return blocks;
}

std::vector<distributed::StageRange> stage_ranges(const torch::nn::Sequential& chain,
                                                  const experiments::DistributedOptions& options) {
  if (!options.stage_boundaries.empty()) {
    return distributed::partition_at(options.stage_boundaries, chain->size());
  }
  return distributed::partition_by_parameters(distributed::block_parameter_counts(chain),
                                              options.pipeline_stages);
}

distributed::PipelineOptions pipeline_options(const experiments::DistributedOptions& options) {
  distributed::PipelineOptions pipeline;
  pipeline.micro_batches = options.micro_batches;
  pipeline.schedule = distributed::pipeline_schedule_named(options.pipeline_schedule);
  pipeline.recompute_activations = options.recompute_activations;
  return pipeline;
}

}  // namespace

PipelinedActorCritic::PipelinedActorCritic(distributed::Communicator& pipeline,
                                           distributed::Communicator* stage_replicas,
                                           nn::ActorCritic model,
                                           torch::optim::Optimizer& agent_optimizer,
                                           const experiments::DistributedOptions& options)
    : pipeline_(pipeline),
      stage_replicas_(stage_replicas),
      model_(std::move(model)),
      agent_optimizer_(agent_optimizer),
      schedule_(distributed::pipeline_schedule_named(options.pipeline_schedule)),
      chain_(nn::actor_critic_blocks(model_)),
      ranges_(stage_ranges(chain_, options)),
      stage_(pipeline, blocks_in(chain_, ranges_.at(static_cast<std::size_t>(pipeline.rank()))),
             pipeline_options(options)),
      optimizer_(same_kind_over(agent_optimizer_, stage_.blocks()->parameters())) {
  if (static_cast<int>(ranges_.size()) != pipeline.size()) {
    throw std::invalid_argument("the network is cut into " + std::to_string(ranges_.size()) +
                                " stages for a pipeline of " + std::to_string(pipeline.size()) +
                                " ranks");
  }
}

agents::LossValues PipelinedActorCritic::lead(Command command, const std::vector<double>& values,
                                              const agents::RolloutBatch* batch) {
  at::Tensor message = at::zeros({kCommandSize}, at::kDouble);
  double* m = message.data_ptr<double>();
  m[0] = command;
  for (std::size_t i = 0; i < values.size(); ++i) m[i + 1] = values[i];
  pipeline_.broadcast(message, 0);
  switch (command) {
    case kStep:
      return step(m, batch);
    case kSynchronize:
      for (int s = 1; s < stages(); ++s) {
        at::Tensor flat = at::empty({stage_numel(s)});
        pipeline_.receive(flat, s, kParametersTag);
        load_flattened(stage_parameters(s), flat);
      }
      break;
    case kPush:
      for (int s = 1; s < stages(); ++s) {
        pipeline_.send(flattened(stage_parameters(s)), s, kParametersTag);
      }
      break;
    case kGatherMoments:
      for (int s = 0; s < stages(); ++s) {
        double step = -1.0;
        at::Tensor flat;
        if (s == 0) {
          std::tie(step, flat) = own_moments();
        } else {
          at::Tensor received = at::zeros({1}, at::kDouble);
          pipeline_.receive(received, s, kMomentsTag);
          step = received.item<double>();
          flat = at::empty({nn::moment_count(*optimizer_) * stage_numel(s)});
          if (step >= 0) pipeline_.receive(flat, s, kMomentsTag);
        }
        if (step >= 0) write_agent_moments(s, step, flat);
      }
      break;
    case kScatterMoments:
      for (int s = 0; s < stages(); ++s) {
        const auto [step, flat] = agent_moments(s);
        if (s == 0) {
          if (step >= 0) set_own_moments(step, flat);
          continue;
        }
        pipeline_.send(at::tensor({step}, at::kDouble), s, kMomentsTag);
        if (step >= 0) pipeline_.send(flat, s, kMomentsTag);
      }
      break;
    case kStop:
      break;
  }
  return {};
}

std::int64_t PipelinedActorCritic::stage_numel(int s) const {
  std::int64_t size = 0;
  for (const auto& p : stage_parameters(s)) size += p.numel();
  return size;
}

std::pair<double, at::Tensor> PipelinedActorCritic::own_moments() const {
  const auto parameters = stage_.blocks()->parameters();
  const auto first = nn::moments_of(*optimizer_, parameters.front());
  if (!first) return {-1.0, at::Tensor()};
  std::vector<at::Tensor> rows;
  for (const auto& p : parameters) {
    const nn::ParameterMoments moments = *nn::moments_of(*optimizer_, p);
    for (const auto& moment : moments.tensors) rows.push_back(moment.reshape({-1}));
  }
  return {static_cast<double>(first->step), at::cat(rows)};
}

void PipelinedActorCritic::set_own_moments(double step, const at::Tensor& flat) {
  const int count = nn::moment_count(*optimizer_);
  std::int64_t offset = 0;
  for (const auto& p : stage_.blocks()->parameters()) {
    nn::ParameterMoments moments{static_cast<std::int64_t>(step), {}};
    for (int k = 0; k < count; ++k) {
      moments.tensors.push_back(flat.narrow(0, offset, p.numel()));
      offset += p.numel();
    }
    nn::set_moments(*optimizer_, p, moments);
  }
}

namespace {

// The agent's flat parameter tensor (its optimizer's only one), which the model's parameters
// are views of.
const at::Tensor& agent_flat(const torch::optim::Optimizer& optimizer) {
  return optimizer.param_groups().front().params().front();
}

std::int64_t offset_in(const at::Tensor& flat, const at::Tensor& parameter) {
  return parameter.data_ptr<float>() - flat.data_ptr<float>();
}

}  // namespace

void PipelinedActorCritic::write_agent_moments(int s, double step, const at::Tensor& flat) {
  torch::optim::Optimizer& optimizer = agent_optimizer_;
  const at::Tensor& values = agent_flat(optimizer);
  const int count = nn::moment_count(optimizer);
  std::optional<nn::ParameterMoments> moments = nn::moments_of(optimizer, values);
  if (!moments) {
    nn::ParameterMoments zeros{static_cast<std::int64_t>(step), {}};
    for (int k = 0; k < count; ++k) zeros.tensors.push_back(at::zeros_like(values));
    nn::set_moments(optimizer, values, zeros);
    moments = nn::moments_of(optimizer, values);
  }
  std::int64_t offset = 0;
  torch::NoGradGuard no_grad;
  for (const auto& p : stage_parameters(s)) {
    for (int k = 0; k < count; ++k) {
      moments->tensors[static_cast<std::size_t>(k)]
          .view({-1})
          .narrow(0, offset_in(values, p), p.numel())
          .copy_(flat.narrow(0, offset, p.numel()));
      offset += p.numel();
    }
  }
  nn::set_moments(optimizer, values, {static_cast<std::int64_t>(step), moments->tensors});
}

std::pair<double, at::Tensor> PipelinedActorCritic::agent_moments(int s) const {
  const torch::optim::Optimizer& optimizer = agent_optimizer_;
  const at::Tensor& values = agent_flat(optimizer);
  const auto moments = nn::moments_of(optimizer, values);
  if (!moments) return {-1.0, at::Tensor()};
  std::vector<at::Tensor> rows;
  for (const auto& p : stage_parameters(s)) {
    for (const auto& moment : moments->tensors) {
      rows.push_back(moment.view({-1}).narrow(0, offset_in(values, p), p.numel()));
    }
  }
  return {static_cast<double>(moments->step), at::cat(rows)};
}

std::int64_t PipelinedActorCritic::serve() {
  for (;;) {
    at::Tensor message = at::zeros({kCommandSize}, at::kDouble);
    pipeline_.broadcast(message, 0);
    const double* m = message.data_ptr<double>();
    switch (static_cast<Command>(static_cast<int>(m[0]))) {
      case kStep:
        step(m, nullptr);
        break;
      case kSynchronize:
        pipeline_.send(flattened(stage_.blocks()->parameters()), 0, kParametersTag);
        break;
      case kPush: {
        at::Tensor flat = at::empty({stage_numel(stage())});
        pipeline_.receive(flat, 0, kParametersTag);
        load_flattened(stage_.blocks()->parameters(), flat);
        break;
      }
      case kGatherMoments: {
        const auto [step, flat] = own_moments();
        pipeline_.send(at::tensor({step}, at::kDouble), 0, kMomentsTag);
        if (step >= 0) pipeline_.send(flat, 0, kMomentsTag);
        break;
      }
      case kScatterMoments: {
        at::Tensor step = at::zeros({1}, at::kDouble);
        pipeline_.receive(step, 0, kMomentsTag);
        if (step.item<double>() < 0) break;
        at::Tensor flat = at::empty({nn::moment_count(*optimizer_) * stage_numel(stage())});
        pipeline_.receive(flat, 0, kMomentsTag);
        set_own_moments(step.item<double>(), flat);
        break;
      }
      case kStop:
        return static_cast<std::int64_t>(m[1]);
      default:
        throw std::runtime_error("pipeline stage " + std::to_string(stage()) +
                                 ": an unknown command from rank 0");
    }
  }
}

agents::LossValues PipelinedActorCritic::step(const double* command,
                                              const agents::RolloutBatch* batch) {
  const auto rows = static_cast<std::int64_t>(command[1]);
  nn::set_learning_rate(*optimizer_, command[2]);
  agents::ActorCriticLossOptions loss_options;
  loss_options.clip_range = optional_of(command[3]);
  loss_options.clip_range_vf = optional_of(command[4]);
  loss_options.vf_coef = command[5];
  loss_options.ent_coef = command[6];
  const double max_grad_norm = command[7];
  const bool leader = pipeline_.rank() == 0;
  const int last = stages() - 1;
  const nn::ActorCriticImpl& model = *model_;

  at::Tensor loss_inputs;
  if (leader) {
    loss_inputs = pack_loss_inputs(*batch, rows);
    if (last != 0) pipeline_.send(loss_inputs, last, kLossInputsTag);
  } else if (stage_.last()) {
    loss_inputs = at::empty({rows, action_columns(model) + 4});
    pipeline_.receive(loss_inputs, 0, kLossInputsTag);
  }
  agents::LossValues sums;
  const auto loss = [&](const at::Tensor& output, const distributed::MicroBatch& micro_batch) {
    const agents::RolloutBatch inputs =
        unpack_loss_inputs(loss_inputs.narrow(0, micro_batch.first, micro_batch.rows), model);
    const nn::ChainOutput chained = nn::chain_output(model, output);
    const agents::ActorCriticLoss micro_batch_loss = agents::actor_critic_loss_of(
        chained.output.value, *chained.distribution, inputs, loss_options);
    add_weighted(sums, agents::loss_values_of(micro_batch_loss, loss_options),
                 static_cast<double>(micro_batch.rows) / static_cast<double>(micro_batch.total));
    return micro_batch_loss.total;
  };
  stage_.train(rows, leader ? batch->observations : at::Tensor(), loss,
               [&] { clip_and_apply(max_grad_norm); });
  if (stage_.last() && !leader) pipeline_.send(values_tensor(sums), 0, kLossValuesTag);
  if (leader && last != 0) {
    at::Tensor received = at::zeros({6}, at::kDouble);
    pipeline_.receive(received, last, kLossValuesTag);
    sums = loss_values_from(received);
  }
  return sums;
}

void PipelinedActorCritic::average_over_replicas(const std::vector<at::Tensor>& parameters) {
  if (!stage_replicas_) return;
  // Every replica's gradients are defined for the same parameters (the same loss); one
  // all-reduce each, in place, as the data-parallel GradientSynchronizer averages (sum, then
  // divide): D pipelines step as D data-parallel ranks do.
  for (const auto& p : parameters) {
    if (!p.grad().defined()) continue;
    at::Tensor gradient = p.mutable_grad();
    stage_replicas_->all_reduce(gradient, distributed::ReduceOp::kMean);
  }
}

void PipelinedActorCritic::clip_and_apply(double max_grad_norm) {
  const auto parameters = stage_.blocks()->parameters();
  average_over_replicas(parameters);
  // As LibTorch's clip_grad_norm_: each gradient's norm (in its own float type, without a
  // temporary of its size), then the norm of those.
  double squares = 0.0;
  for (const auto& p : parameters) {
    if (!p.grad().defined()) continue;
    const double norm = p.grad().norm().item<double>();
    squares += norm * norm;
  }
  // GPipe's update is the whole minibatch's: its norm is over every stage. A 1F1B stage
  // updates on its own at each micro-batch, and clips its own part.
  if (schedule_ == distributed::PipelineSchedule::kGpipe && stages() > 1) {
    at::Tensor total = at::tensor({squares}, at::kDouble);
    pipeline_.all_reduce(total, distributed::ReduceOp::kSum);
    squares = total.item<double>();
  }
  const double norm = std::sqrt(squares);
  if (norm > max_grad_norm) {  // as torch::nn::utils::clip_grad_norm_
    const double scale = max_grad_norm / (norm + 1e-6);
    for (const auto& p : parameters) {
      if (p.grad().defined()) p.mutable_grad().mul_(scale);
    }
  }
  optimizer_->step();
}

std::vector<at::Tensor> PipelinedActorCritic::stage_parameters(int s) const {
  return blocks_in(chain_, ranges_.at(static_cast<std::size_t>(s)))->parameters();
}

agents::LossValues PipelineLearner::step(const agents::RolloutBatch& batch,
                                         const agents::ActorCriticLossOptions& options,
                                         double max_grad_norm) {
  agents::RolloutBatch rows = batch;
  const std::int64_t count = batch.returns.size(0);
  // Over the whole minibatch, before it is split into micro-batches (as the loss would).
  if (options.normalize_advantage && count > 1) {
    rows.advantages =
        (batch.advantages - batch.advantages.mean()) / (batch.advantages.std() + 1e-8);
  }
  return pipeline_.lead(
      PipelinedActorCritic::kStep,
      {static_cast<double>(count), learning_rate_, options.clip_range.value_or(kNone),
       options.clip_range_vf.value_or(kNone), options.vf_coef, options.ent_coef, max_grad_norm},
      &rows);
}

}  // namespace mnrl::topologies
