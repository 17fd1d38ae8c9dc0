#include "distributed/pipeline/pipeline_stage.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/zeros.h>
#include <torch/autograd.h>

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace mnrl::distributed {
namespace {

constexpr std::int64_t kMaxDimensions = 8;

void zero_gradients(const torch::nn::Module& module) {
  for (const auto& p : module.parameters()) {
    if (p.grad().defined()) p.mutable_grad().zero_();
  }
}

// `to`'s parameters and buffers become `from`'s values (two modules of one structure).
void copy_state(const torch::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard no_grad;
  const auto source = from.parameters(), target = to.parameters();
  for (std::size_t i = 0; i < source.size(); ++i) target[i].copy_(source[i]);
  const auto source_buffers = from.buffers(), target_buffers = to.buffers();
  for (std::size_t i = 0; i < source_buffers.size(); ++i) {
    target_buffers[i].copy_(source_buffers[i]);
  }
}

// `to`'s .grad become `from`'s (zero where `from` has none).
void copy_gradients(const torch::nn::Module& from, const torch::nn::Module& to) {
  const auto source = from.parameters(), target = to.parameters();
  for (std::size_t i = 0; i < source.size(); ++i) {
    at::Tensor gradient = source[i].grad();
    at::Tensor& into = target[i].mutable_grad();
    if (!into.defined()) into = at::zeros_like(target[i]);
    if (gradient.defined()) {
      into.copy_(gradient);
    } else {
      into.zero_();
    }
  }
}

}  // namespace

std::vector<std::int64_t> block_parameter_counts(const torch::nn::Sequential& chain) {
  std::vector<std::int64_t> counts;
  for (const auto& block : chain->children()) {
    std::int64_t count = 0;
    for (const auto& p : block->parameters()) count += p.numel();
    counts.push_back(count);
  }
  return counts;
}

std::vector<MicroBatch> split_rows(std::int64_t rows, int micro_batches) {
  if (micro_batches < 1 || rows < micro_batches) {
    throw std::invalid_argument("cannot split a minibatch of " + std::to_string(rows) +
                                " row(s) into " + std::to_string(micro_batches) +
                                " micro-batch(es)");
  }
  std::vector<MicroBatch> split;
  const std::int64_t base = rows / micro_batches, larger = rows % micro_batches;
  std::int64_t first = 0;
  for (int m = 0; m < micro_batches; ++m) {
    const std::int64_t size = base + (m < larger ? 1 : 0);
    split.push_back({m, first, size, rows});
    first += size;
  }
  return split;
}

PipelineStage::PipelineStage(Communicator& pipeline, torch::nn::Sequential blocks,
                             PipelineOptions options)
    : pipeline_(pipeline),
      blocks_(std::move(blocks)),
      options_(options),
      stage_(pipeline.rank()),
      stages_(pipeline.size()) {
  if (options_.micro_batches < 1) {
    throw std::invalid_argument("a pipeline needs at least one micro-batch, not " +
                                std::to_string(options_.micro_batches));
  }
}

void PipelineStage::train(std::int64_t rows, const at::Tensor& input, const Loss& loss,
                          const ApplyGradients& apply) {
  const std::vector<MicroBatch> micro_batches = split_rows(rows, options_.micro_batches);
  const bool gpipe = options_.schedule == PipelineSchedule::kGpipe;
  if (gpipe) zero_gradients(*blocks_);
  for (const PipelineOperation& operation :
       stage_operations(options_.schedule, stage_, stages_, options_.micro_batches)) {
    const MicroBatch& micro_batch = micro_batches[static_cast<std::size_t>(operation.micro_batch)];
    if (operation.kind == PipelineOperation::Kind::kForward) {
      forward(micro_batch, input);
    } else {
      backward(micro_batch, loss);
      if (!gpipe) apply();
    }
  }
  if (gpipe) apply();
  pipeline_.wait_for_sends(0);
}

void PipelineStage::forward(const MicroBatch& micro_batch, const at::Tensor& input) {
  InFlight flight;
  flight.micro_batch = micro_batch;
  flight.input = first() ? input.narrow(0, micro_batch.first, micro_batch.rows)
                         : receive_activation(stage_ - 1).requires_grad_(true);
  flight.weights =
      options_.schedule == PipelineSchedule::kGpipe ? blocks_ : stash_weights();
  if (options_.recompute_activations) {
    // (The last stage's output goes nowhere: its backward computes it.)
    if (!last()) {
      torch::NoGradGuard no_grad;
      send(flight.weights->forward(flight.input), stage_ + 1, kActivationTag);
    }
  } else {
    // The last stage too, at once: under GPipe it then computes while the stages before it
    // run their next forwards.
    flight.output = flight.weights->forward(flight.input);
    if (!last()) send(flight.output.detach(), stage_ + 1, kActivationTag);
  }
  in_flight_.push_back(std::move(flight));
}

void PipelineStage::backward(const MicroBatch& micro_batch, const Loss& loss) {
  if (in_flight_.empty() || in_flight_.front().micro_batch.index != micro_batch.index) {
    throw std::logic_error("pipeline stage " + std::to_string(stage_) + ": backward of micro-batch " +
                           std::to_string(micro_batch.index) + " out of its forwards' order");
  }
  InFlight flight = std::move(in_flight_.front());
  in_flight_.erase(in_flight_.begin());
  const bool stashed = options_.schedule == PipelineSchedule::kOneForwardOneBackward;
  if (stashed) zero_gradients(*flight.weights);
  at::Tensor output =
      flight.output.defined() ? flight.output : flight.weights->forward(flight.input);
  if (last()) {
    at::Tensor micro_batch_loss = loss(output, micro_batch);
    // GPipe: the micro-batches' gradients add up to the minibatch mean's.
    if (!stashed) {
      micro_batch_loss = micro_batch_loss * (static_cast<double>(micro_batch.rows) /
                                             static_cast<double>(micro_batch.total));
    }
    micro_batch_loss.backward();
  } else {
    at::Tensor output_gradient = at::empty_like(output);
    receive(output_gradient, stage_ + 1, kGradientTag);
    output.backward(output_gradient);
  }
  if (!first()) send(flight.input.grad(), stage_ - 1, kGradientTag);
  if (stashed) {
    copy_gradients(*flight.weights, *blocks_);
    spare_.push_back(std::move(flight.weights));
  }
}

torch::nn::Sequential PipelineStage::stash_weights() {
  torch::nn::Sequential copy{nullptr};
  if (spare_.empty()) {
    // A clone's layers initialize from LibTorch's generator before their values are copied:
    // put its state back, so that acting (which samples from it) does not depend on when the
    // stash grew (a resumed run grows it anew).
    auto generator = at::detail::getDefaultCPUGenerator();
    const at::Tensor generator_state = [&] {
      std::lock_guard<std::mutex> lock(generator.mutex());
      return generator.get_state();
    }();
    copy = torch::nn::Sequential(
        std::dynamic_pointer_cast<torch::nn::SequentialImpl>(blocks_->clone()));
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(generator_state);
  } else {
    copy = std::move(spare_.back());
    spare_.pop_back();
  }
  copy_state(*blocks_, *copy);
  return copy;
}

at::Tensor PipelineStage::infer(const at::Tensor& input) {
  torch::NoGradGuard no_grad;
  const at::Tensor x = first() ? input : receive_activation(stage_ - 1);
  at::Tensor output = blocks_->forward(x);
  if (last()) return output;
  send(output, stage_ + 1, kActivationTag);
  pipeline_.wait_for_sends(0);
  return {};
}

void PipelineStage::send(const at::Tensor& tensor, int destination, int tag) {
  if (tensor.scalar_type() != at::kFloat || tensor.dim() > kMaxDimensions) {
    throw std::invalid_argument("a pipeline stage sends float tensors of up to " +
                                std::to_string(kMaxDimensions) + " dimensions");
  }
  if (tag == kActivationTag) {
    at::Tensor header = at::zeros({kMaxDimensions + 1}, at::kLong);
    auto* h = header.data_ptr<std::int64_t>();
    h[0] = tensor.dim();
    for (std::int64_t d = 0; d < tensor.dim(); ++d) h[d + 1] = tensor.size(d);
    pipeline_.start_send(std::move(header), destination, tag);
  }
  pipeline_.start_send(tensor.contiguous(), destination, tag);
  // GPipe waits for each send: Open MPI moves a large message only while its sender is inside
  // an MPI call, and the next operation of a GPipe stage may be computing (stage 0's forwards
  // are nothing else), which would hold the next stage back. Every receive of GPipe's is
  // posted once the stage has sent what came before it, so these waits end. 1F1B's must not
  // wait (its stages send to each other both ways: a stage sending forward while the next one
  // sends backward would wait for each other); its next operation starts with a receive,
  // inside which its sends move.
  if (options_.schedule == PipelineSchedule::kGpipe) {
    const auto start = std::chrono::steady_clock::now();
    pipeline_.wait_for_sends(0);
    waiting_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
}

void PipelineStage::receive(at::Tensor& tensor, int source, int tag) {
  const auto start = std::chrono::steady_clock::now();
  pipeline_.receive(tensor, source, tag);
  waiting_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

at::Tensor PipelineStage::receive_activation(int source) {
  at::Tensor header = at::zeros({kMaxDimensions + 1}, at::kLong);
  receive(header, source, kActivationTag);
  const auto* h = header.data_ptr<std::int64_t>();
  if (h[0] < 0 || h[0] > kMaxDimensions) {
    throw std::runtime_error("pipeline stage " + std::to_string(stage_) +
                             ": a malformed activation header from stage " +
                             std::to_string(source));
  }
  std::vector<std::int64_t> sizes(h + 1, h + 1 + h[0]);
  at::Tensor activation = at::empty(sizes, at::kFloat);
  receive(activation, source, kActivationTag);
  return activation;
}

}  // namespace mnrl::distributed
