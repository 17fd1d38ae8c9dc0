#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <vector>

#include "agents/dqn/external_td_steps.h"
#include "agents/dqn/return_distribution.h"
#include "distributed/communicator.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "experiments/config/experiment_options.h"
#include "nn/q_network.h"
#include "topologies/pipeline/pipelined_stages.h"

namespace mnrl::topologies {

// A DQN-family agent's online and target networks cut into stages across the ranks of
// `pipeline` (PipelinedStages; nn::q_network_blocks: encoder, trunk layers, heads), the same
// cut for both. Rank 0 samples, acts with its agent's whole online network (brought up to date
// after every update) and updates its target on schedule. Made from the agent's networks as
// Dqn hands them over (agents::AgentSetup::external_td_steps).
//
// Its commands, beside PipelinedStages' (rank 0 broadcasts each, every stage carries it out):
//  - kStep: one gradient step on a sampled batch of `rows` rows. Rank 0 sends the last stage
//    the rows' actions, rewards, discounts, terminations and importance weights
//    (kLossInputsTag), and with noisy nets every stage with noisy layers their noise for this
//    step, drawn on rank 0 as the agent in one process draws it: the online's, then the
//    target's (kNoiseTag). The next observations go through the target's stages (and the online
//    network's, for Double DQN's choice of actions) without gradients, then the observations
//    through PipelineStage::train, whose last stage takes the return distribution's TD loss
//    (ReturnDistribution::host_loss, per micro-batch) and its gradient; PipelinedStages::
//    clip_and_apply updates. The last stage sends rank 0 the loss, the taken Q-values' sum and
//    each row's priority (kLossValuesTag).
//  - kPush: PipelinedStages', then every stage's target parameters (kTargetTag).
//  - kUpdateTarget (tau): every stage's target takes its online parameters (Polyak with tau <
//    1); rank 0's are the agent's own, which has just done so.
//  - kStop: the stages return.
class PipelinedQLearning final : public PipelinedNetwork {
 public:
  static constexpr int kUpdateTarget = PipelinedStages::kStop + 1;
  static constexpr int kLossInputsTag = 27, kLossValuesTag = 28, kTargetTag = 29, kNoiseTag = 30;

  // `online`, `target` and `agent_optimizer`: this rank's whole agent's (made as rank 0's is).
  // `stage_replicas`: this stage's ranks in every pipeline (null: one).
  PipelinedQLearning(distributed::Communicator& pipeline, distributed::Communicator* stage_replicas,
                     nn::QNetwork online, nn::QNetwork target,
                     torch::optim::Optimizer& agent_optimizer,
                     const agents::ReturnDistribution& distribution,
                     const experiments::DistributedOptions& options);

  void lead(int command, const std::vector<double>& values = {}) override;
  std::int64_t serve() override;
  // Rank 0: a gradient step on `batch` (kStep with `values`: rows, learning rate, max grad
  // norm, double Q) through noisy layers' `noise` (ExternalTdSteps::step's; null without);
  // writes the rows' priorities to `td_errors` where not null.
  agents::HostLoss lead_step(const std::vector<double>& values,
                             const replay::TransitionBatch& batch, const float* noise,
                             float* td_errors);

 private:
  agents::HostLoss step(const double* command, const replay::TransitionBatch* batch,
                        const float* noise, float* td_errors);
  // Noisy nets: this step's noise into every stage's noisy layers (rank 0 sends each its own).
  void set_step_noise(const float* noise);
  std::vector<at::Tensor> target_parameters(int s) const;
  void update_target(double tau);

  nn::QNetwork online_, target_;  // the agent's whole networks
  const agents::ReturnDistribution& distribution_;
  PipelinedStages stages_;
  torch::nn::Sequential target_chain_;
  distributed::PipelineStage target_stage_;  // this stage of the target, for inference
  // Noisy nets: this stage's noisy layers, and where each stage's noise starts in a network's
  // (stage s: [noise_offsets_[s], noise_offsets_[s + 1])).
  std::vector<nn::NoisyLinear> online_noisy_, target_noisy_;
  std::vector<std::int64_t> noise_offsets_;
};

// Rank 0's side, as the agent's external TD steps (agents::ExternalTdSteps).
class PipelineTdLearner final : public agents::ExternalTdSteps {
 public:
  explicit PipelineTdLearner(PipelinedQLearning& pipeline) : pipeline_(pipeline) {}

  void set_learning_rate(double learning_rate) override { learning_rate_ = learning_rate; }
  agents::HostLoss step(const replay::TransitionBatch& batch, bool double_q, double max_grad_norm,
                        const float* noise, float* td_errors) override;
  void synchronize() override { pipeline_.lead(PipelinedStages::kSynchronize); }
  void update_target(double tau) override {
    pipeline_.lead(PipelinedQLearning::kUpdateTarget, {tau});
  }

 private:
  PipelinedQLearning& pipeline_;
  double learning_rate_ = 0.0;
};

}  // namespace mnrl::topologies
