#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_setup.h"
#include "agents/dqn/dqn_options.h"
#include "agents/dqn/external_td_steps.h"
#include "agents/dqn/return_distribution.h"
#include "agents/dqn/td_gradient_steps.h"
#include "core/rng.h"
#include "core/state_fields.h"
#include "nn/flat_parameters.h"
#include "nn/q_network.h"
#include "nn/q_network_pass.h"
#include "replay/n_step.h"
#include "replay/replay.h"

namespace mnrl::agents {

// DQN for Discrete actions with optional Double-DQN targets, n-step returns and prioritized
// replay (a dueling head comes with the Q-network), learning the return's expectation or its
// distribution (C51, QR-DQN, IQN: the ReturnDistribution options.distribution names).
// Epsilon-greedy exploration decays linearly over exploration_fraction of `total_steps`;
// exploration draws come from their own RNG. With noisy nets the policy acts greedily through
// noise drawn anew for each vector step (epsilon 0), and evaluates without noise.
class Dqn final : public Agent {
 public:
  // `online` (built with return_distribution_of(options)'s network options) is trained through
  // `parameters` (its flat parameters) and `optimizer`; `target`
  // has the same architecture and starts as a copy of `online`. `replay` (for num_envs envs)
  // holds what observe() sees, whatever it is made of (uniform, prioritized, n-step).
  Dqn(DqnOptions options, nn::QNetwork online, nn::QNetwork target,
      std::shared_ptr<nn::FlatParameters> parameters,
      std::unique_ptr<torch::optim::Optimizer> optimizer, std::unique_ptr<replay::Replay> replay,
      std::int64_t total_steps, std::uint64_t exploration_seed);

  void act(core::ConstTypedPtr observations, const ActionsOut& out) override;
  void observe(const StepOutcome& outcome) override;
  bool update_ready() const override;
  Statistics update(const TrainingProgress& progress) override;
  void act_greedy(core::ConstTypedPtr observations, std::int64_t batch,
                  const ActionsOut& out) override;
  void act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                      const ActionsOut& out) override;
  // Both networks, the optimizer, pending n-step transitions, counters and RNGs. Loaded without
  // a replay buffer, updates wait until it again holds min(learning_starts, buffer_size)
  // transitions, as at the start of a run.
  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;
  bool has_replay() const override { return true; }
  // The replay's stored transitions (Replay::save).
  void save_replay(core::StateWriter& out) const override;
  void load_replay(core::StateReader& in) override;
  // The online network's argmax.
  std::string export_greedy_policy(const std::optional<nn::ObservationScale>& scale) const override;

  // Epsilon-greedy's epsilon now: the fixed one if set, else 0 with noisy nets, else the linear
  // schedule's.
  double epsilon() const;
  // The optimizer's step size now (lr_schedule sets it at each update).
  double learning_rate() const;
  void set_gradient_hook(GradientHook hook) { after_backward_ = std::move(hook); }
  // train.cuda_graphs: on a GPU, whether gradient steps run as CUDA graphs (TdGradientSteps);
  // they can with an nn::CapturableAdam in one process (no gradient hook) on a CUDA LibTorch.
  void set_cuda_graphs(CudaGraphs mode) { cuda_graphs_ = mode; }

  // For Ape-X's actors and learner (topologies/apex/apex_learner.h).
  // Explores with `epsilon` from now on, instead of the schedule.
  void fix_epsilon(double epsilon) { fixed_epsilon_ = epsilon; }
  // The online network's parameters, one flat tensor.
  const at::Tensor& parameters() const { return parameters_->values(); }
  // An actor's: observe() hands each n-step transition to `sink` instead of the replay.
  void divert_transitions(std::function<void(const replay::Transition&)> sink) {
    replay_->divert_to(std::move(sink));
  }
  // An actor's initial priorities: |y - Q(s, a)| for each row of `batch` (a return
  // distribution: each row's loss), with the online network as its own target (an actor holds
  // no target network).
  void measure_td_errors(const replay::TransitionBatch& batch, float* td_errors);
  // A learner's: a transition an actor sent, with the |TD error| it measured. Throws
  // std::invalid_argument, storing nothing, for an action outside the network's or a TD error
  // that is not finite (a damaged message).
  void add_transition(const replay::Transition& transition, float td_error);
  std::int64_t replay_size() const { return replay_->size(); }
  // Copies the online network into the target (Polyak with tau < 1).
  void update_target();
  // What setup.external_td_steps makes of this agent's networks, if anything, takes its
  // gradient steps from now on (pipeline stages across ranks).
  void hand_over_td_steps(const AgentSetup& setup);

 private:
  // One gradient step's loss on batch_ through the hand-written passes (an MLP on the CPU;
  // gradients written, not applied), and the sum of the Q-values of its actions; writes
  // td_errors_.
  std::pair<double, double> write_gradients_by_hand();
  // The steps through LibTorch's autograd (a convolutional encoder, or off the CPU), made at
  // the first update (when the gradient hook is set) with CUDA graphs where they can run.
  TdGradientSteps& autograd_steps();
  // The greedy actions of `batch` rows of `observations` (floats) under the online network's
  // noise as it stands.
  void greedy_actions(const float* observations, std::int64_t batch, std::int64_t* out);
  // Noisy nets: new noise into the online network (acting), or none (greedy evaluation).
  void draw_acting_noise();
  void silence_noise();
  // Noisy nets, a hand-written or external step: new noise into the online and the target
  // network (step_noise_).
  void draw_step_noise();
  // measure_td_errors() for a return distribution: its loss per row.
  void measure_distribution_losses(const replay::TransitionBatch& batch, float* td_errors);

  DqnOptions options_;
  std::unique_ptr<ReturnDistribution> distribution_;
  nn::QNetwork online_;
  nn::QNetwork target_;
  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields);  // in the .cpp: save_state() and load_state() use it

  std::shared_ptr<nn::FlatParameters> parameters_;
  std::unique_ptr<nn::FlatParameters> target_parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::int64_t num_envs_, observation_size_, total_steps_;
  core::Rng exploration_rng_, replay_rng_;
  std::unique_ptr<replay::Replay> replay_;
  at::Device device_;                // where the networks live (train.device)
  std::vector<float> acting_noise_;  // noisy nets: the host's draw for the online network
  std::vector<float> step_noise_;    // noisy nets, hand-written steps: the online's, the target's
  // Hand-written passes over online_ (training batches), target_ (next observations) and, for
  // Double DQN, online_ again (next observations: a pass of its own, so that it and train_pass_
  // can run at once on the compute threads). None off the CPU or for IQN (there autograd does
  // it).
  bool by_hand_;
  std::unique_ptr<TdGradientSteps> autograd_steps_;
  std::shared_ptr<ExternalTdSteps> external_steps_;  // where handed over: they take the steps
  CudaGraphs cuda_graphs_ = CudaGraphs::off;
  std::optional<nn::QNetworkPass> train_pass_, target_pass_, chooser_pass_;
  std::unique_ptr<nn::QNetworkPass> greedy_pass_;  // rebuilt when the batch size changes
  replay::TransitionBatch batch_;
  std::vector<float> td_errors_;    // per batch row
  std::vector<float> q_gradients_;  // per network output of the batch
  std::vector<float> host_q_;       // acting: the Q-values of the hand-written pass's outputs
  // Of the last act(), for observe(): the observations as the envs gave them (uint8 ones go
  // to the replay as bytes).
  core::TypedRows last_observations_;
  std::vector<float> last_actions_;
  std::vector<float> input_floats_;  // a uint8 batch converted for the network
  std::int64_t env_steps_ = 0, vector_steps_ = 0, steps_since_target_update_ = 0;
  std::int64_t min_replay_size_;  // update_ready() needs this many transitions stored
  GradientHook after_backward_;
  std::optional<double> fixed_epsilon_;
};

// DQN's loss kind (dqn.loss) and the return distribution `options` name.
std::unique_ptr<ReturnDistribution> return_distribution_of(const DqnOptions& options);

}  // namespace mnrl::agents
