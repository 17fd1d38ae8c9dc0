#include "topologies/pipeline/pipelined_stages.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/norm.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "nn/learning_rate.h"
#include "nn/optimizer_moments.h"

namespace mnrl::topologies {

at::Tensor flatten(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> rows;
  for (const auto& p : parameters) rows.push_back(p.detach().reshape({-1}));
  return at::cat(rows);
}

void load_flat(const std::vector<at::Tensor>& parameters, const at::Tensor& flat) {
  torch::NoGradGuard no_grad;
  std::int64_t offset = 0;
  for (const auto& p : parameters) {
    p.view({-1}).copy_(flat.narrow(0, offset, p.numel()));
    offset += p.numel();
  }
}

torch::nn::Sequential blocks_in(const torch::nn::Sequential& chain,
                                const distributed::StageRange& range) {
  torch::nn::Sequential blocks;
  for (std::size_t i = range.first; i < range.end; ++i) {
    blocks->push_back(*(chain->begin() + static_cast<std::ptrdiff_t>(i)));
  }
  return blocks;
}

distributed::PipelineOptions pipeline_options_of(const experiments::DistributedOptions& options) {
  distributed::PipelineOptions pipeline;
  pipeline.micro_batches = options.micro_batches;
  pipeline.schedule = distributed::pipeline_schedule_named(options.pipeline_schedule);
  pipeline.recompute_activations = options.recompute_activations;
  return pipeline;
}

namespace {

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

std::vector<distributed::StageRange> stage_ranges(const torch::nn::Sequential& chain,
                                                  const experiments::DistributedOptions& options) {
  if (!options.stage_boundaries.empty()) {
    return distributed::partition_at(options.stage_boundaries, chain->size());
  }
  return distributed::partition_by_parameters(distributed::block_parameter_counts(chain),
                                              options.pipeline_stages);
}

// The agent's flat parameter tensor (its optimizer's only one), which the network's parameters
// are views of.
const at::Tensor& agent_flat(const torch::optim::Optimizer& optimizer) {
  return optimizer.param_groups().front().params().front();
}

std::int64_t offset_in(const at::Tensor& flat, const at::Tensor& parameter) {
  return parameter.data_ptr<float>() - flat.data_ptr<float>();
}

}  // namespace

PipelinedStages::PipelinedStages(distributed::Communicator& pipeline,
                                 distributed::Communicator* stage_replicas,
                                 torch::nn::Sequential chain,
                                 torch::optim::Optimizer& agent_optimizer,
                                 const experiments::DistributedOptions& options)
    : pipeline_(pipeline),
      stage_replicas_(stage_replicas),
      agent_optimizer_(agent_optimizer),
      schedule_(distributed::pipeline_schedule_named(options.pipeline_schedule)),
      chain_(std::move(chain)),
      ranges_(stage_ranges(chain_, options)),
      stage_(pipeline, blocks_in(chain_, ranges_.at(static_cast<std::size_t>(pipeline.rank()))),
             pipeline_options_of(options)),
      optimizer_(same_kind_over(agent_optimizer_, stage_.blocks()->parameters())) {
  if (static_cast<int>(ranges_.size()) != pipeline.size()) {
    throw std::invalid_argument("the network is cut into " + std::to_string(ranges_.size()) +
                                " stages for a pipeline of " + std::to_string(pipeline.size()) +
                                " ranks");
  }
}

at::Tensor PipelinedStages::send_command(int command, const std::vector<double>& values) {
  at::Tensor message = at::zeros({kCommandSize}, at::kDouble);
  double* m = message.data_ptr<double>();
  m[0] = command;
  for (std::size_t i = 0; i < values.size(); ++i) m[i + 1] = values[i];
  pipeline_.broadcast(message, 0);
  return message;
}

at::Tensor PipelinedStages::receive_command() {
  at::Tensor message = at::zeros({kCommandSize}, at::kDouble);
  pipeline_.broadcast(message, 0);
  return message;
}

bool PipelinedStages::lead(int command) {
  switch (command) {
    case kSynchronize:
      for (int s = 1; s < stages(); ++s) {
        at::Tensor flat = at::empty({stage_numel(s)});
        pipeline_.receive(flat, s, kParametersTag);
        load_flat(stage_parameters(s), flat);
      }
      break;
    case kPush:
      for (int s = 1; s < stages(); ++s) {
        pipeline_.send(flatten(stage_parameters(s)), s, kParametersTag);
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
    default:
      return false;
  }
  return true;
}

void PipelinedStages::set_learning_rate(double learning_rate) {
  nn::set_learning_rate(*optimizer_, learning_rate);
}

bool PipelinedStages::serve(int command) {
  switch (command) {
    case kSynchronize:
      pipeline_.send(flatten(stage_.blocks()->parameters()), 0, kParametersTag);
      break;
    case kPush: {
      at::Tensor flat = at::empty({stage_numel(stage())});
      pipeline_.receive(flat, 0, kParametersTag);
      load_flat(stage_.blocks()->parameters(), flat);
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
    default:
      return false;
  }
  return true;
}

std::int64_t PipelinedStages::stage_numel(int s) const {
  std::int64_t size = 0;
  for (const auto& p : stage_parameters(s)) size += p.numel();
  return size;
}

std::pair<double, at::Tensor> PipelinedStages::own_moments() const {
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

void PipelinedStages::set_own_moments(double step, const at::Tensor& flat) {
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

void PipelinedStages::write_agent_moments(int s, double step, const at::Tensor& flat) {
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

std::pair<double, at::Tensor> PipelinedStages::agent_moments(int s) const {
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

void PipelinedStages::average_over_replicas(const std::vector<at::Tensor>& parameters) {
  if (!stage_replicas_) return;
  // Every replica's gradients are defined for the same parameters (the same loss): one
  // all-reduce of them all, averaged as the data-parallel GradientSynchronizer averages (sum,
  // then divide; elementwise), so D pipelines step as D data-parallel ranks do.
  std::vector<at::Tensor> gradients;
  for (const auto& p : parameters) {
    if (p.grad().defined()) gradients.push_back(p.grad());
  }
  if (gradients.empty()) return;
  at::Tensor flat = flatten(gradients);
  stage_replicas_->all_reduce(flat, distributed::ReduceOp::kMean);
  load_flat(gradients, flat);
}

void PipelinedStages::clip_and_apply(double max_grad_norm) {
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

std::vector<at::Tensor> PipelinedStages::stage_parameters(int s) const {
  return blocks_in(chain_, ranges_.at(static_cast<std::size_t>(s)))->parameters();
}

}  // namespace mnrl::topologies
