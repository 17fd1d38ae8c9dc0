// REINFORCE (Williams 1992) as an algorithm of one's own, outside mnrl's tree: an agent, its
// `reinforce:` config section and its registration. mnrl's loop does the rest (envs, metrics,
// evaluation, the best policy, checkpoints and resume). One process: its updates come at
// episode ends, which data-parallel ranks would not reach together.
#pragma once

#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/adam.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_setup.h"
#include "core/config.h"
#include "nn/flat_parameters.h"

namespace reinforce {

// The `reinforce:` section: these field names are its YAML keys.
struct ReinforceOptions {
  double learning_rate = 3e-3;
  double gamma = 0.99;
  std::int64_t episodes_per_update = 8;

  void visit(mnrl::core::ConfigVisitor& v) {
    v.field("learning_rate", learning_rate, "Adam's step size", mnrl::core::greater_than(0));
    v.field("gamma", gamma, "discount factor", mnrl::core::between(0, 1));
    v.field("episodes_per_update", episodes_per_update, "whole episodes in one gradient step",
            mnrl::core::between(1, 100000));
  }
};

// A softmax policy over Discrete actions, updated once per `episodes_per_update` whole
// episodes with the gradient of the mean of log pi(a|s) times the normalized return-to-go.
class Reinforce final : public mnrl::agents::Agent {
 public:
  Reinforce(const ReinforceOptions& options, const mnrl::agents::AgentSetup& setup);

  void act(mnrl::core::ConstTypedPtr observations, const mnrl::agents::ActionsOut& out) override;
  void observe(const mnrl::agents::StepOutcome& outcome) override;
  bool update_ready() const override;
  mnrl::agents::Statistics update(const mnrl::agents::TrainingProgress& progress) override;
  void act_greedy(mnrl::core::ConstTypedPtr observations, std::int64_t batch,
                  const mnrl::agents::ActionsOut& out) override;
  void act_stochastic(mnrl::core::ConstTypedPtr observations, std::int64_t batch,
                      const mnrl::agents::ActionsOut& out) override;
  void save_state(mnrl::core::StateWriter& out) const override;
  void load_state(mnrl::core::StateReader& in) override;

 private:
  // Steps of episodes: one per env while they run, then the finished ones of the next update.
  struct Steps {
    std::vector<float> observations;
    std::vector<std::int64_t> actions;
    std::vector<float> rewards;  // of the running episodes; returns-to-go once finished
  };

  at::Tensor logits(const float* observations, std::int64_t batch);
  // The finished steps, then each env's running episode: what a checkpoint holds.
  std::vector<Steps*> all_steps() const;

  ReinforceOptions options_;
  std::int64_t observation_size_;
  torch::nn::Sequential policy_;
  std::unique_ptr<mnrl::nn::FlatParameters> parameters_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::vector<Steps> running_;  // per env
  Steps finished_;
  std::int64_t finished_episodes_ = 0;
};

}  // namespace reinforce
