#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/modules/container/sequential.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/pipeline/pipeline_schedule.h"

namespace mnrl::distributed {

struct PipelineOptions {
  int micro_batches = 1;  // M: each minibatch is split into M micro-batches of rows
  PipelineSchedule schedule = PipelineSchedule::kGpipe;
  // Keep only each micro-batch's input in the forward pass and recompute the stage's
  // activations in its backward (GPipe's re-materialization): less memory, one more forward.
  bool recompute_activations = false;
};

// Micro-batch `index`: rows [first, first + rows) of a minibatch of `total` rows.
struct MicroBatch {
  int index = 0;
  std::int64_t first = 0, rows = 0, total = 0;
};

// The micro-batches of a minibatch of `rows` rows: M consecutive ranges whose sizes differ by at
// most one, the larger first. Throws std::invalid_argument when rows < micro_batches.
std::vector<MicroBatch> split_rows(std::int64_t rows, int micro_batches);

// Each block's parameter count (the weights partition_by_parameters() balances).
std::vector<std::int64_t> block_parameter_counts(const torch::nn::Sequential& chain);

// One rank's stage of a network cut into a chain of blocks across the ranks of `pipeline`
// (GPipe / PipeDream): rank s of `pipeline` holds stage s. Stage 0 takes the minibatch's
// input; the last stage computes the loss; the blocks of each stage are a Sequential, run with
// LibTorch's autograd.
//
// Protocol, per minibatch, over `pipeline`'s point-to-point messages: stage s runs
// stage_operations(schedule, s, K, M) in order. A forward receives micro-batch m's activation
// from stage s-1 (a header of its shape, then its floats, tag kActivationTag), runs the blocks
// and sends the output to s+1; a backward receives d loss / d output from s+1 (tag
// kGradientTag; the shape is the output's), backpropagates and sends d loss / d input to s-1.
// Receives wait, under the communicator's stall timeout, so a stage that fails or stalls ends
// the job (Communicator's watchdog); GPipe's sends wait to be received, 1F1B's do not (see
// send()). Before returning, a stage waits for its sends to be received.
class PipelineStage {
 public:
  static constexpr int kActivationTag = 21, kGradientTag = 22;

  // The loss of a micro-batch from the last stage's output for it: the mean over its rows.
  using Loss = std::function<at::Tensor(const at::Tensor& output, const MicroBatch& micro_batch)>;
  // Applies the gradients now in the stage's parameters' .grad (an optimizer step).
  using ApplyGradients = std::function<void()>;

  PipelineStage(Communicator& pipeline, torch::nn::Sequential blocks, PipelineOptions options);

  // One minibatch of `rows` rows: stage 0 passes `input` [rows, ...] (other stages' `input` is
  // not read), the last stage its `loss`. GPipe: the stage's .grad becomes the minibatch loss's
  // gradient (each micro-batch's mean loss weighted by its share of the rows) and `apply` runs
  // once, at the flush. 1F1B: after each micro-batch's backward .grad holds that micro-batch's
  // gradient, taken with the weights its forward used, and `apply` runs (PipeDream's
  // asynchronous update). Every stage calls train() once per minibatch with the same rows.
  void train(std::int64_t rows, const at::Tensor& input, const Loss& loss,
             const ApplyGradients& apply);

  // The network's output for `input` (stage 0's; not read elsewhere), without gradients: the
  // last stage returns it, the others an undefined tensor. Every stage calls it.
  at::Tensor infer(const at::Tensor& input);

  torch::nn::Sequential blocks() const { return blocks_; }
  int stage() const { return stage_; }
  int stages() const { return stages_; }
  bool first() const { return stage_ == 0; }
  bool last() const { return stage_ == stages_ - 1; }
  // Seconds spent waiting for the neighbouring stages (in receives, and GPipe's sends: the
  // bubble and the transfers) since the stage was made.
  double waiting_seconds() const { return waiting_seconds_; }

 private:
  // A micro-batch between its forward and its backward on this stage.
  struct InFlight {
    MicroBatch micro_batch;
    at::Tensor input;   // requires grad past stage 0
    at::Tensor output;  // undefined when recomputed in the backward
    torch::nn::Sequential weights;  // the blocks it went through (1F1B: a stashed copy)
  };

  void forward(const MicroBatch& micro_batch, const at::Tensor& input);
  void backward(const MicroBatch& micro_batch, const Loss& loss);
  at::Tensor receive_activation(int source);
  void receive(at::Tensor& tensor, int source, int tag);
  void send(const at::Tensor& tensor, int destination, int tag);
  // 1F1B: a copy of the blocks holding the current weights, for one micro-batch.
  torch::nn::Sequential stash_weights();

  Communicator& pipeline_;
  torch::nn::Sequential blocks_;
  PipelineOptions options_;
  int stage_, stages_;
  std::vector<InFlight> in_flight_;            // oldest first
  std::vector<torch::nn::Sequential> spare_;  // stashes whose micro-batch is done
  double waiting_seconds_ = 0.0;
};

}  // namespace mnrl::distributed
