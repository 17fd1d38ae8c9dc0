#include "topologies/pipeline/pipelined_actor_critic.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "agents/actor_critic_loss.h"
#include "nn/actor_critic_blocks.h"

namespace mnrl::topologies {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

std::optional<double> optional_of(double value) {
  return std::isnan(value) ? std::nullopt : std::optional<double>(value);
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

}  // namespace

PipelinedActorCritic::PipelinedActorCritic(distributed::Communicator& pipeline,
                                           distributed::Communicator* stage_replicas,
                                           nn::ActorCritic model,
                                           torch::optim::Optimizer& agent_optimizer,
                                           const experiments::DistributedOptions& options)
    : model_(std::move(model)),
      stages_(pipeline, stage_replicas, nn::actor_critic_blocks(model_), agent_optimizer, options) {
}

void PipelinedActorCritic::lead(int command, const std::vector<double>& values) {
  if (command == PipelinedStages::kStep) throw std::logic_error("a step is lead_step()'s");
  stages_.send_command(command, values);
  if (command != PipelinedStages::kStop && !stages_.lead(command)) {
    throw std::logic_error("pipeline stages: no command " + std::to_string(command));
  }
}

agents::LossValues PipelinedActorCritic::lead_step(const std::vector<double>& values,
                                                   const agents::RolloutBatch& batch) {
  const at::Tensor message = stages_.send_command(PipelinedStages::kStep, values);
  return step(message.data_ptr<double>(), &batch);
}

std::int64_t PipelinedActorCritic::serve() {
  for (;;) {
    const at::Tensor message = stages_.receive_command();
    const double* m = message.data_ptr<double>();
    const int command = static_cast<int>(m[0]);
    if (command == PipelinedStages::kStep) {
      step(m, nullptr);
    } else if (command == PipelinedStages::kStop) {
      return static_cast<std::int64_t>(m[1]);
    } else if (!stages_.serve(command)) {
      throw std::runtime_error("pipeline stage " + std::to_string(stages_.stage()) +
                               ": an unknown command from rank 0");
    }
  }
}

agents::LossValues PipelinedActorCritic::step(const double* command,
                                              const agents::RolloutBatch* batch) {
  const auto rows = static_cast<std::int64_t>(command[1]);
  stages_.set_learning_rate(command[2]);
  agents::ActorCriticLossOptions loss_options;
  loss_options.clip_range = optional_of(command[3]);
  loss_options.clip_range_vf = optional_of(command[4]);
  loss_options.vf_coef = command[5];
  loss_options.ent_coef = command[6];
  const double max_grad_norm = command[7];
  distributed::Communicator& pipeline = stages_.pipeline();
  distributed::PipelineStage& stage = stages_.network();
  const bool leader = stages_.leader();
  const int last = stages_.stages() - 1;
  const nn::ActorCriticImpl& model = *model_;

  at::Tensor loss_inputs;
  if (leader) {
    loss_inputs = pack_loss_inputs(*batch, rows);
    if (last != 0) pipeline.send(loss_inputs, last, kLossInputsTag);
  } else if (stage.last()) {
    loss_inputs = at::empty({rows, action_columns(model) + 4});
    pipeline.receive(loss_inputs, 0, kLossInputsTag);
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
  stage.train(rows, leader ? batch->observations : at::Tensor(), loss,
              [&] { stages_.clip_and_apply(max_grad_norm); });
  if (stage.last() && !leader) pipeline.send(values_tensor(sums), 0, kLossValuesTag);
  if (leader && last != 0) {
    at::Tensor received = at::zeros({6}, at::kDouble);
    pipeline.receive(received, last, kLossValuesTag);
    sums = loss_values_from(received);
  }
  return sums;
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
  return pipeline_.lead_step(
      {static_cast<double>(count), learning_rate_, options.clip_range.value_or(kNone),
       options.clip_range_vf.value_or(kNone), options.vf_coef, options.ent_coef, max_grad_norm},
      rows);
}

}  // namespace mnrl::topologies
