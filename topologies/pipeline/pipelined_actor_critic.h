#pragma once

#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "agents/external_gradient_steps.h"
#include "distributed/communicator.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/stage_partition.h"
#include "experiments/config/experiment_options.h"
#include "nn/actor_critic.h"

namespace mnrl::topologies {

// An actor-critic whose gradient steps run cut into stages across the ranks of `pipeline`
// (distributed.pipeline_stages; distributed/pipeline/): rank s holds stage s of the chain of
// blocks of its agent's model (nn::actor_critic_blocks: encoder, trunk layers, heads) and their
// optimizer, of the agent's kind and options. Rank 0 also steps the envs and acts with its
// agent's whole model, which it brings up to date after every update. Made from the agent's
// model and optimizer as its factory hands them over (agents::AgentSetup::
// external_gradient_steps). With several pipelines (topologies/pipeline/pipeline_layout.h),
// each is one of these, with rank 0 meaning its stage 0; the stage's replicas in the other
// pipelines average their gradients before every update.
//
// Protocol: rank 0 broadcasts a command (doubles, kCommandSize) and every stage carries it out:
//  - kStep: one gradient step on `rows` rows. Rank 0 sends the last stage the rows' loss
//    inputs (actions, old log-probs and values, advantages normalized over the rows where the
//    loss asks, returns; tag kLossInputsTag), the stages run PipelineStage::train (GPipe: the
//    gradient's norm clipped over all stages, one all-reduce; 1F1B: each stage's own), and the
//    last stage sends rank 0 the loss's parts (kLossValuesTag).
//  - kSynchronize: every stage sends rank 0 its parameters (kParametersTag).
//  - kPush: rank 0 sends every stage its parameters (at the start and after a resume).
//  - kGatherMoments: every stage sends rank 0 its optimizer's step count (a double, -1 before
//    its first step) and moments (kMomentsTag), which rank 0 writes into its agent's optimizer
//    over the flat parameters, where each stage parameter's values lie: a checkpoint then
//    holds the optimizer state as a one-process run's does.
//  - kScatterMoments: the reverse, after a resume (-1: no state yet).
//  - kStop: the stages return.
// A stage that fails ends the job (the failing rank aborts it); one that stalls ends it at the
// communicator's stall timeout, naming it.
class PipelinedActorCritic {
 public:
  enum Command { kStep = 1, kSynchronize, kPush, kGatherMoments, kScatterMoments, kStop };
  static constexpr std::int64_t kCommandSize = 9;
  static constexpr int kLossInputsTag = 23, kLossValuesTag = 24, kParametersTag = 25,
                       kMomentsTag = 26;

  // `model` and `agent_optimizer`: this rank's whole agent's (made as rank 0's is, so that its
  // model starts equal). `stage_replicas`: this stage's ranks in every pipeline (null: one).
  PipelinedActorCritic(distributed::Communicator& pipeline,
                       distributed::Communicator* stage_replicas, nn::ActorCritic model,
                       torch::optim::Optimizer& agent_optimizer,
                       const experiments::DistributedOptions& options);

  int stage() const { return stage_.stage(); }
  int stages() const { return stage_.stages(); }
  const std::vector<distributed::StageRange>& ranges() const { return ranges_; }

  // Rank 0: broadcasts `command` (with `values` after it) and carries it out; `batch` for
  // kStep. Returns the loss's parts of a step.
  agents::LossValues lead(Command command, const std::vector<double>& values = {},
                          const agents::RolloutBatch* batch = nullptr);
  // The other ranks: carry out rank 0's commands until kStop; returns the step it last sent.
  std::int64_t serve();

 private:
  agents::LossValues step(const double* command, const agents::RolloutBatch* batch);
  void clip_and_apply(double max_grad_norm);
  // Each gradient of this stage replaced by its mean over the stage's replicas.
  void average_over_replicas(const std::vector<at::Tensor>& parameters);
  // Rank 0: the parameters of stage s's blocks in its whole model, in block order.
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
  nn::ActorCritic model_;                     // the agent's whole model
  torch::optim::Optimizer& agent_optimizer_;  // over its flat parameters
  const distributed::PipelineSchedule schedule_;
  torch::nn::Sequential chain_;  // every block of the agent's model
  std::vector<distributed::StageRange> ranges_;
  distributed::PipelineStage stage_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

// Rank 0's side, as the agent's external gradient steps (agents::ExternalGradientSteps).
class PipelineLearner final : public agents::ExternalGradientSteps {
 public:
  explicit PipelineLearner(PipelinedActorCritic& pipeline) : pipeline_(pipeline) {}

  void set_learning_rate(double learning_rate) override { learning_rate_ = learning_rate; }
  agents::LossValues step(const agents::RolloutBatch& batch,
                          const agents::ActorCriticLossOptions& options,
                          double max_grad_norm) override;
  void synchronize() override { pipeline_.lead(PipelinedActorCritic::kSynchronize); }

 private:
  PipelinedActorCritic& pipeline_;
  double learning_rate_ = 0.0;
};

}  // namespace mnrl::topologies
