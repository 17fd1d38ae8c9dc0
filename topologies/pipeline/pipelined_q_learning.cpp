#include "topologies/pipeline/pipelined_q_learning.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "nn/q_network_blocks.h"

namespace mnrl::topologies {
namespace {

// Columns of the loss's inputs per row.
enum LossColumn { kAction, kReward, kDiscount, kTerminated, kWeight, kLossColumns };

// `values` [rows * columns] of `batch` as a [rows, columns] tensor (a copy).
at::Tensor rows_of(const std::vector<float>& values, std::int64_t rows) {
  return at::from_blob(const_cast<float*>(values.data()),
                       {rows, static_cast<std::int64_t>(values.size()) / rows}, at::kFloat)
      .clone();
}

at::Tensor pack_loss_inputs(const replay::TransitionBatch& batch, std::int64_t rows) {
  at::Tensor packed = at::empty({rows, kLossColumns}, at::kFloat);
  float* p = packed.data_ptr<float>();
  const auto r = static_cast<std::size_t>(rows);
  for (std::size_t i = 0; i < r; ++i) {
    float* row = p + i * kLossColumns;
    row[kAction] = batch.actions[i];
    row[kReward] = batch.rewards[i];
    row[kDiscount] = batch.discounts[i];
    row[kTerminated] = batch.terminated[i];
    row[kWeight] = batch.weights.empty() ? 1.0f : batch.weights[i];
  }
  return packed;
}

// Rows [first, first + rows) of the packed loss inputs as the fields host_loss() reads.
replay::TransitionBatch unpack_loss_inputs(const at::Tensor& packed, std::int64_t first,
                                           std::int64_t rows) {
  replay::TransitionBatch batch;
  const auto n = static_cast<std::size_t>(rows);
  batch.actions.reserve(n);
  batch.rewards.reserve(n);
  batch.discounts.reserve(n);
  batch.terminated.reserve(n);
  batch.weights.reserve(n);
  const float* p = packed.data_ptr<float>() + first * kLossColumns;
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* row = p + i * kLossColumns;
    batch.actions.push_back(row[kAction]);
    batch.rewards.push_back(row[kReward]);
    batch.discounts.push_back(row[kDiscount]);
    batch.terminated.push_back(static_cast<std::uint8_t>(row[kTerminated]));
    batch.weights.push_back(row[kWeight]);
  }
  return batch;
}

}  // namespace

PipelinedQLearning::PipelinedQLearning(distributed::Communicator& pipeline,
                                       distributed::Communicator* stage_replicas,
                                       nn::QNetwork online, nn::QNetwork target,
                                       torch::optim::Optimizer& agent_optimizer,
                                       const agents::ReturnDistribution& distribution,
                                       const experiments::DistributedOptions& options)
    : online_(std::move(online)),
      target_(std::move(target)),
      distribution_(distribution),
      stages_(pipeline, stage_replicas, nn::q_network_blocks(online_), agent_optimizer, options),
      target_chain_(nn::q_network_blocks(target_)),
      target_stage_(
          pipeline,
          blocks_in(target_chain_, stages_.ranges().at(static_cast<std::size_t>(stages_.stage()))),
          pipeline_options_of(options)),
      online_noisy_(nn::noisy_layers_in(*stages_.network().blocks())),
      target_noisy_(nn::noisy_layers_in(*target_stage_.blocks())) {
  noise_offsets_.push_back(0);
  for (const auto& range : stages_.ranges()) {
    noise_offsets_.push_back(noise_offsets_.back() +
                             nn::noise_size(nn::noisy_layers_in(*blocks_in(target_chain_, range))));
  }
}

void PipelinedQLearning::set_step_noise(const float* noise) {
  const std::int64_t network_size = noise_offsets_.back();
  if (network_size == 0) return;
  distributed::Communicator& pipeline = stages_.pipeline();
  const auto size_of = [&](int s) {
    return noise_offsets_[static_cast<std::size_t>(s) + 1] -
           noise_offsets_[static_cast<std::size_t>(s)];
  };
  // Stage s's part of the online network's noise, then of the target's.
  at::Tensor own = at::empty({2 * size_of(stages_.stage())}, at::kFloat);
  if (stages_.leader()) {
    if (!noise) throw std::logic_error("pipeline stages: noisy layers, but no noise for the step");
    for (int s = stages_.stages() - 1; s >= 0; --s) {
      const std::int64_t offset = noise_offsets_[static_cast<std::size_t>(s)];
      at::Tensor part = at::empty({2 * size_of(s)}, at::kFloat);
      float* p = part.data_ptr<float>();
      std::copy_n(noise + offset, size_of(s), p);
      std::copy_n(noise + network_size + offset, size_of(s), p + size_of(s));
      if (s == 0) {
        own = part;
      } else if (size_of(s) > 0) {
        pipeline.send(part, s, kNoiseTag);
      }
    }
  } else if (own.numel() > 0) {
    pipeline.receive(own, 0, kNoiseTag);
  }
  if (own.numel() == 0) return;
  const std::int64_t size = own.numel() / 2;
  nn::set_layer_noise(online_noisy_, own.narrow(0, 0, size));
  nn::set_layer_noise(target_noisy_, own.narrow(0, size, size));
}

std::vector<at::Tensor> PipelinedQLearning::target_parameters(int s) const {
  return blocks_in(target_chain_, stages_.ranges().at(static_cast<std::size_t>(s)))->parameters();
}

void PipelinedQLearning::lead(int command, const std::vector<double>& values) {
  if (command == PipelinedStages::kStep) throw std::logic_error("a step is lead_step()'s");
  stages_.send_command(command, values);
  distributed::Communicator& pipeline = stages_.pipeline();
  if (command == PipelinedStages::kPush) {
    stages_.lead(command);
    for (int s = 1; s < stages_.stages(); ++s) {
      pipeline.send(flatten(target_parameters(s)), s, kTargetTag);
    }
  } else if (command != kUpdateTarget && command != PipelinedStages::kStop &&
             !stages_.lead(command)) {
    throw std::logic_error("pipeline stages: no command " + std::to_string(command));
  }
}

std::int64_t PipelinedQLearning::serve() {
  distributed::Communicator& pipeline = stages_.pipeline();
  for (;;) {
    const at::Tensor message = stages_.receive_command();
    const double* m = message.data_ptr<double>();
    const int command = static_cast<int>(m[0]);
    if (command == PipelinedStages::kStep) {
      step(m, nullptr, nullptr, nullptr);
    } else if (command == PipelinedStages::kStop) {
      return static_cast<std::int64_t>(m[1]);
    } else if (command == kUpdateTarget) {
      update_target(m[1]);
    } else if (command == PipelinedStages::kPush) {
      stages_.serve(command);
      const auto parameters = target_parameters(stages_.stage());
      at::Tensor flat = flatten(parameters);
      pipeline.receive(flat, 0, kTargetTag);
      load_flat(parameters, flat);
    } else if (!stages_.serve(command)) {
      throw std::runtime_error("pipeline stage " + std::to_string(stages_.stage()) +
                               ": an unknown command from rank 0");
    }
  }
}

void PipelinedQLearning::update_target(double tau) {
  torch::NoGradGuard no_grad;
  const auto online = stages_.network().blocks()->parameters();
  const auto target = target_stage_.blocks()->parameters();
  for (std::size_t i = 0; i < online.size(); ++i) {
    if (tau >= 1.0) {
      target[i].copy_(online[i]);
    } else {
      target[i].mul_(1.0 - tau).add_(online[i], tau);
    }
  }
}

agents::HostLoss PipelinedQLearning::lead_step(const std::vector<double>& values,
                                               const replay::TransitionBatch& batch,
                                               const float* noise, float* td_errors) {
  const at::Tensor message = stages_.send_command(PipelinedStages::kStep, values);
  return step(message.data_ptr<double>(), &batch, noise, td_errors);
}

agents::HostLoss PipelinedQLearning::step(const double* command,
                                          const replay::TransitionBatch* batch, const float* noise,
                                          float* td_errors) {
  const auto rows = static_cast<std::int64_t>(command[1]);
  stages_.set_learning_rate(command[2]);
  const double max_grad_norm = command[3];
  const bool double_q = command[4] != 0.0;
  distributed::Communicator& pipeline = stages_.pipeline();
  distributed::PipelineStage& stage = stages_.network();
  const bool leader = stages_.leader();
  const int last = stages_.stages() - 1;

  at::Tensor observations, next_observations, loss_inputs;
  if (leader) {
    observations = rows_of(batch->observations, rows);
    next_observations = rows_of(batch->next_observations, rows);
    loss_inputs = pack_loss_inputs(*batch, rows);
    if (last != 0) pipeline.send(loss_inputs, last, kLossInputsTag);
  } else if (stage.last()) {
    loss_inputs = at::empty({rows, kLossColumns}, at::kFloat);
    pipeline.receive(loss_inputs, 0, kLossInputsTag);
  }
  set_step_noise(noise);
  // The next observations' values, on the last stage: the target's, and the online network's
  // where it chooses the next actions.
  const at::Tensor target_values = target_stage_.infer(next_observations);
  const at::Tensor chooser_values = double_q ? stage.infer(next_observations) : target_values;

  const std::int64_t num_actions = online_->options.num_actions();
  agents::HostLoss sums;
  at::Tensor priorities = at::zeros({rows}, at::kFloat);
  const auto loss = [&](const at::Tensor& output, const distributed::MicroBatch& micro_batch) {
    const at::Tensor online_rows = output.detach().contiguous();
    const at::Tensor target_rows =
        target_values.narrow(0, micro_batch.first, micro_batch.rows).contiguous();
    const at::Tensor chooser_rows =
        chooser_values.narrow(0, micro_batch.first, micro_batch.rows).contiguous();
    at::Tensor gradients = at::empty_like(online_rows);
    const agents::HostLoss part = distribution_.host_loss(
        unpack_loss_inputs(loss_inputs, micro_batch.first, micro_batch.rows),
        online_rows.data_ptr<float>(), target_rows.data_ptr<float>(),
        chooser_rows.data_ptr<float>(), micro_batch.rows, num_actions, gradients.data_ptr<float>(),
        priorities.data_ptr<float>() + micro_batch.first);
    sums.loss +=
        part.loss * static_cast<double>(micro_batch.rows) / static_cast<double>(micro_batch.total);
    sums.q_taken_sum += part.q_taken_sum;
    // host_loss' gradient of the micro-batch's mean loss, as a loss autograd takes back.
    return (output * gradients).sum();
  };
  stage.train(rows, observations, loss, [&] { stages_.clip_and_apply(max_grad_norm); });

  if (stage.last() && !leader) {
    pipeline.send(at::tensor({sums.loss, sums.q_taken_sum}, at::kDouble), 0, kLossValuesTag);
    pipeline.send(priorities, 0, kLossValuesTag);
  }
  if (leader && last != 0) {
    at::Tensor received = at::zeros({2}, at::kDouble);
    pipeline.receive(received, last, kLossValuesTag);
    sums = {received.data_ptr<double>()[0], received.data_ptr<double>()[1]};
    pipeline.receive(priorities, last, kLossValuesTag);
  }
  if (leader && td_errors) {
    std::copy_n(priorities.data_ptr<float>(), rows, td_errors);
  }
  return sums;
}

agents::HostLoss PipelineTdLearner::step(const replay::TransitionBatch& batch, bool double_q,
                                         double max_grad_norm, const float* noise,
                                         float* td_errors) {
  const auto rows = static_cast<double>(batch.rewards.size());
  return pipeline_.lead_step({rows, learning_rate_, max_grad_norm, double_q ? 1.0 : 0.0}, batch,
                             noise, td_errors);
}

}  // namespace mnrl::topologies
