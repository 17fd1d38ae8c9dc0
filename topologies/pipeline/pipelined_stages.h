#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/stage_partition.h"
#include "experiments/config/experiment_options.h"

namespace mnrl::topologies {

// `parameters` as one row of floats, in their order; and such a row written back into them.
at::Tensor flatten(const std::vector<at::Tensor>& parameters);
void load_flat(const std::vector<at::Tensor>& parameters, const at::Tensor& flat);
// The blocks of `chain` in `range`, the same modules.
torch::nn::Sequential blocks_in(const torch::nn::Sequential& chain,
                                const distributed::StageRange& range);
distributed::PipelineOptions pipeline_options_of(const experiments::DistributedOptions& options);

// What a network cut into pipeline stages across the ranks of `pipeline` does whatever the
// network computes (distributed.pipeline_stages; distributed/pipeline/): rank s holds stage s
// of `chain`, the agent's whole network as a chain of blocks sharing its parameters, and an
// optimizer of the agent's kind and options over that stage. Rank 0 (stage 0) also holds the
// agent, whose flat parameters and optimizer (`agent_optimizer`) checkpoints save.
//
// Rank 0 broadcasts commands (doubles, kCommandSize: the command, then its values) and every
// stage carries them out. This class carries out those about parameters and optimizer state:
//  - kSynchronize: every stage sends rank 0 its parameters (kParametersTag), which rank 0
//    writes into its agent's network (after every update: the agent acts with it).
//  - kPush: rank 0 sends every stage its parameters (at the start and after a resume).
//  - kGatherMoments: every stage sends rank 0 its optimizer's step count (a double, -1 before
//    its first step) and moments (kMomentsTag), which rank 0 writes into its agent's optimizer
//    over the flat parameters, where each stage parameter's values lie: a checkpoint then
//    holds the optimizer state as a one-process run's does.
//  - kScatterMoments: the reverse, after a resume (-1: no state yet).
// kStep (the network's gradient step) and kStop belong to the network's class.
//
// With several pipelines side by side (pipeline_layout.h), rank 0 means the pipeline's stage 0,
// and `stage_replicas` (this stage in every pipeline) average the stage's gradients before
// each update, as data-parallel ranks do.
class PipelinedStages {
 public:
  enum Command { kStep = 1, kSynchronize, kPush, kGatherMoments, kScatterMoments, kStop };
  static constexpr std::int64_t kCommandSize = 9;
  static constexpr int kParametersTag = 25, kMomentsTag = 26;

  // `chain` cut as options.stage_boundaries or by parameter count into pipeline.size() stages.
  PipelinedStages(distributed::Communicator& pipeline, distributed::Communicator* stage_replicas,
                  torch::nn::Sequential chain, torch::optim::Optimizer& agent_optimizer,
                  const experiments::DistributedOptions& options);

  distributed::Communicator& pipeline() { return pipeline_; }
  distributed::PipelineStage& network() { return stage_; }
  int stage() const { return stage_.stage(); }
  int stages() const { return stage_.stages(); }
  bool leader() const { return pipeline_.rank() == 0; }
  const std::vector<distributed::StageRange>& ranges() const { return ranges_; }

  // Rank 0: broadcasts `command` with `values`; the other ranks: receive the command rank 0
  // broadcast. Both return the message ([0] the command).
  at::Tensor send_command(int command, const std::vector<double>& values);
  at::Tensor receive_command();
  // Carries out a parameter or moment command, rank 0's side or a stage's; false for another.
  bool lead(int command);
  bool serve(int command);

  // The update of this stage from its parameters' .grad: averaged over the stage's replicas,
  // the norm clipped to `max_grad_norm` (GPipe's over every stage: the minibatch's update; a
  // 1F1B stage its own, updating on its own at each micro-batch), the optimizer's step.
  void clip_and_apply(double max_grad_norm);
  void set_learning_rate(double learning_rate);

 private:
  void average_over_replicas(const std::vector<at::Tensor>& parameters);
  // Rank 0: the parameters of stage s's blocks in its whole network, in block order.
  std::vector<at::Tensor> stage_parameters(int s) const;
  std::int64_t stage_numel(int s) const;  // their count of floats
  // This stage's optimizer moments: the step (-1 before the first) and the moments of every
  // parameter in block order, flattened; and the reverse.
  std::pair<double, at::Tensor> own_moments() const;
  void set_own_moments(double step, const at::Tensor& flat);
  // Rank 0: stage s's moments written into / read from the agent's optimizer over the flat
  // parameters (at the offsets of stage s's parameters in them).
  void write_agent_moments(int s, double step, const at::Tensor& flat);
  std::pair<double, at::Tensor> agent_moments(int s) const;

  distributed::Communicator& pipeline_;
  distributed::Communicator* stage_replicas_;
  torch::optim::Optimizer& agent_optimizer_;  // over the agent's flat parameters
  const distributed::PipelineSchedule schedule_;
  torch::nn::Sequential chain_;
  std::vector<distributed::StageRange> ranges_;
  distributed::PipelineStage stage_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

// A network's pipeline as the topology drives it (PipelinedActorCritic, PipelinedQLearning).
class PipelinedNetwork {
 public:
  virtual ~PipelinedNetwork() = default;
  // Rank 0: broadcasts `command` (a PipelinedStages::Command but kStep) with `values` and
  // carries it out.
  virtual void lead(int command, const std::vector<double>& values = {}) = 0;
  // The other ranks: carry out rank 0's commands until kStop; returns the step it last sent.
  virtual std::int64_t serve() = 0;
};

}  // namespace mnrl::topologies
