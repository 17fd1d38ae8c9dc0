// REINFORCE (Williams 1992) as an algorithm of one's own, outside mnrl's tree: an agent, its
// `reinforce:` config section and its registration (reinforce.cpp), and its own topology of
// actors and a learner (reinforce_actors.cpp). mnrl's loop does the rest (envs, metrics,
// evaluation, the best policy, checkpoints and resume). In one process one agent acts and
// learns; under mpirun, actor ranks send finished steps to a learner rank.
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
  std::int64_t send_steps = 200;

  void visit(mnrl::core::ConfigVisitor& v) {
    v.field("learning_rate", learning_rate, "Adam's step size", mnrl::core::greater_than(0));
    v.field("gamma", gamma, "discount factor", mnrl::core::between(0, 1));
    v.field("episodes_per_update", episodes_per_update,
            "whole episodes in one gradient step (under mpirun: episodes the actors reported)",
            mnrl::core::between(1, 100000));
    v.field("send_steps", send_steps, "finished steps an actor sends at once (mpirun)",
            mnrl::core::between(1, 1000000));
  }
};

// A softmax policy over Discrete actions, updated once per `episodes_per_update` whole
// episodes with the gradient of the mean of log pi(a|s) times the normalized return-to-go. A
// learner of actor ranks weighs each step by min(1, pi(a|s) / mu(a|s)), mu the actor's policy
// copy that chose it, which may be several updates old (without the weights its policy
// collapsed on 2 of 6 runs of the example).
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

  // For its actors and learner (reinforce_actors.cpp), whose messages are finished steps of
  // step_floats() floats each: the observation, the action, log mu(a|s), the return-to-go, and
  // 1 where the step is the last of its episode (else 0).
  at::Tensor parameters() const { return parameters_->values(); }
  std::int64_t step_floats() const { return observation_size_ + 4; }
  std::int64_t finished_steps() const {
    return static_cast<std::int64_t>(finished_.actions.size());
  }
  // An actor: moves its first `steps` finished steps into `payload`.
  void take_finished_steps(std::int64_t steps, float* payload);
  // A learner: takes the whole episodes that `rows` (`count` steps) start with, as finished
  // episodes of the next update, whose steps it weighs by min(1, pi / mu); returns the steps it
  // took (none before an episode's last).
  std::int64_t take_whole_episodes(const float* rows, std::int64_t count);

 private:
  // Steps of episodes: one per env while they run, then the finished ones of the next update.
  struct Steps {
    std::vector<float> observations;
    std::vector<std::int64_t> actions;
    std::vector<float> log_probs;  // of each action under the policy that chose it
    std::vector<float> rewards;    // of the running episodes; returns-to-go once finished
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
  std::vector<std::int64_t> finished_lengths_;  // of the episodes in finished_, in order
  std::int64_t finished_episodes_ = 0;
  bool weighs_by_behavior_ = false;  // a learner of actor ranks
};

}  // namespace reinforce
