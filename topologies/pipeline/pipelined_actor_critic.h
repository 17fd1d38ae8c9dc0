#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <vector>

#include "agents/external_gradient_steps.h"
#include "distributed/communicator.h"
#include "experiments/config/experiment_options.h"
#include "nn/actor_critic.h"
#include "topologies/pipeline/pipelined_stages.h"

namespace mnrl::topologies {

// An actor-critic whose gradient steps run cut into stages across the ranks of `pipeline`
// (PipelinedStages): rank s holds stage s of the chain of blocks of its agent's model
// (nn::actor_critic_blocks: encoder, trunk layers, heads). Rank 0 also steps the envs and acts
// with its agent's whole model, which it brings up to date after every update. Made from the
// agent's model and optimizer as its factory hands them over (agents::AgentSetup::
// external_gradient_steps).
//
// Its commands, beside PipelinedStages' (rank 0 broadcasts each, every stage carries it out):
//  - kStep: one gradient step on `rows` rows. Rank 0 sends the last stage the rows' loss
//    inputs (actions, old log-probs and values, advantages normalized over the rows where the
//    loss asks, returns; tag kLossInputsTag), the stages run PipelineStage::train and
//    PipelinedStages::clip_and_apply, and the last stage sends rank 0 the loss's parts
//    (kLossValuesTag).
//  - kStop: the stages return.
// A stage that fails ends the job (the failing rank aborts it); one that stalls ends it at the
// communicator's stall timeout, naming it.
class PipelinedActorCritic final : public PipelinedNetwork {
 public:
  static constexpr int kLossInputsTag = 23, kLossValuesTag = 24;

  // `model` and `agent_optimizer`: this rank's whole agent's (made as rank 0's is, so that its
  // model starts equal). `stage_replicas`: this stage's ranks in every pipeline (null: one).
  PipelinedActorCritic(distributed::Communicator& pipeline,
                       distributed::Communicator* stage_replicas, nn::ActorCritic model,
                       torch::optim::Optimizer& agent_optimizer,
                       const experiments::DistributedOptions& options);

  void lead(int command, const std::vector<double>& values = {}) override;
  std::int64_t serve() override;
  // Rank 0: a gradient step on `batch` (kStep with `values`); the loss's parts.
  agents::LossValues lead_step(const std::vector<double>& values,
                               const agents::RolloutBatch& batch);

 private:
  agents::LossValues step(const double* command, const agents::RolloutBatch* batch);

  nn::ActorCritic model_;  // the agent's whole model
  PipelinedStages stages_;
};

// Rank 0's side, as the agent's external gradient steps (agents::ExternalGradientSteps).
class PipelineLearner final : public agents::ExternalGradientSteps {
 public:
  explicit PipelineLearner(PipelinedActorCritic& pipeline) : pipeline_(pipeline) {}

  void set_learning_rate(double learning_rate) override { learning_rate_ = learning_rate; }
  agents::LossValues step(const agents::RolloutBatch& batch,
                          const agents::ActorCriticLossOptions& options,
                          double max_grad_norm) override;
  void synchronize() override { pipeline_.lead(PipelinedStages::kSynchronize); }

 private:
  PipelinedActorCritic& pipeline_;
  double learning_rate_ = 0.0;
};

}  // namespace mnrl::topologies
