#pragma once

#include <torch/optim/optimizer.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "agents/action_bounds.h"
#include "agents/actor_critic_loss.h"
#include "agents/actor_critic_loss_gradients.h"
#include "agents/agent.h"
#include "agents/agent_setup.h"
#include "agents/evaluation_memory.h"
#include "agents/external_gradient_steps.h"
#include "agents/graphed_gradient_steps.h"
#include "agents/loss_sums.h"
#include "agents/rollout_batch.h"
#include "agents/rollout_memory.h"
#include "core/state_fields.h"
#include "nn/actor_critic.h"
#include "nn/actor_critic_pass.h"
#include "nn/flat_parameters.h"
#include "replay/rollout_buffer.h"

namespace mnrl::agents {

// What PPO and A2C share: acting with the actor-critic's action distribution, filling the
// rollout buffer, bootstrapping truncated episodes from V(final observation), GAE, gradient
// steps over the flat parameters, and greedy actions. Subclasses implement update().
//
// With gSDE (the model's use_sde), the exploration matrices are drawn at the start of every
// rollout and, when sde_sample_freq > 0, every sde_sample_freq steps within it, as SB3.
//
// A recurrent model (network.recurrent) carries a memory per env (RolloutMemory): zeroed where
// an episode starts, kept with every rollout row, and replayed in the update over sequences of
// sequence_length steps (truncated backpropagation through time, as SB3-contrib's
// RecurrentPPO), by hand as memoryless ones (nn::ActorCriticPass) where their loss is.
class ActorCriticAgent : public Agent {
 public:
  ActorCriticAgent(nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
                   std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
                   ActionBounds bounds, std::int64_t sde_sample_freq);

  void act(core::ConstTypedPtr observations, const ActionsOut& out) override;
  void observe(const StepOutcome& outcome) override;
  bool update_ready() const override { return buffer_.full(); }
  void act_greedy(core::ConstTypedPtr observations, std::int64_t batch,
                  const ActionsOut& out) override;
  void act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                      const ActionsOut& out) override;
  void reset_evaluation_memory() override { evaluation_memory_.reset(); }
  void evaluation_episodes_ended(const std::uint8_t* terminated, const std::uint8_t* truncated,
                                 std::int64_t batch) override;
  // The parameters, the optimizer, the rollout so far, the last observations, gSDE's
  // exploration matrices and a recurrent model's memory.
  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;
  // The policy head's argmax (Discrete), or its mean clipped into (or squashed onto) the bounds.
  std::string export_greedy_policy(const std::optional<nn::ObservationScale>& scale) const override;

  nn::ActorCritic& model() { return model_; }
  // The optimizer over the flat parameters (its kind and options are what a pipeline stage's
  // optimizer copies).
  const torch::optim::Optimizer& optimizer() const { return *optimizer_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  void set_gradient_hook(GradientHook hook) { after_backward_ = std::move(hook); }
  // train.cuda_graphs: on a GPU, whether gradient steps run as CUDA graphs (GraphedGradientSteps).
  // They can with a CapturableAdam in one process (no gradient hook) on a CUDA LibTorch;
  // where they cannot, `where_possible` says why once and steps eagerly, `required` throws.
  void set_cuda_graphs(CudaGraphs mode) { cuda_graphs_ = mode; }
  // Gradient steps on parameters held elsewhere (pipeline stages): gradient_step() hands its
  // rows to `steps`, and the model is synchronized at the end of each update (clear_rollout()).
  // Memoryless models without gSDE only.
  void set_external_gradient_steps(std::shared_ptr<ExternalGradientSteps> steps);
  // What setup.external_gradient_steps makes of this agent's model and optimizer, if anything
  // (for the factories of the algorithms that take pipeline stages).
  void hand_over_gradient_steps(const AgentSetup& setup);

 protected:
  // Computes GAE for the full buffer and returns it as tensors (valid until clear_rollout()).
  RolloutBatch finish_rollout(double gamma, double gae_lambda);
  // For a learner whose policy is not the one that acted (IMPALA): V-trace over the full
  // buffer (RolloutBuffer::compute_vtrace) with this model's values and log-probabilities of
  // the stored actions; the batch's values are this model's, its log-probs the actor's. A
  // recurrent model replays each env's sequence from the memory before its first step, and
  // bootstraps from the memory that replay ends with.
  RolloutBatch finish_rollout_vtrace(const replay::RolloutBuffer::VtraceOptions& options);
  // The end of an update: the rollout is spent (and external steps' parameters come back).
  void clear_rollout();
  // A permutation of the rollout's rows for minibatches of `batch_size` rows: uniform, or for a
  // recurrent model one of its sequences, each minibatch's laid out [step][sequence] (then
  // batch_size and the rollout's n_steps are multiples of sequence_length()).
  at::Tensor minibatch_order(std::int64_t batch_size) const;
  // Recurrent models: the steps of the sequences minibatches replay (n_steps unless set).
  void set_sequence_length(std::int64_t steps) { sequence_length_ = steps; }
  std::int64_t sequence_length() const { return sequence_length_; }
  replay::RolloutBuffer& rollout() { return buffer_; }
  std::int64_t rollout_envs() const { return buffer_.num_envs(); }
  // load_state() of a state whose rollout has `saved_envs` envs (not this rollout's): the
  // parameters and optimizer; the rollout, the observations after it and a recurrent model's
  // memory are read and dropped.
  void load_state_dropping_rollout(core::StateReader& in, std::int64_t saved_envs);
  // The observations after the rollout's last step, [num_envs * observation_size].
  std::vector<float>& next_observations() { return next_observations_; }
  // A recurrent model's memory; null without one.
  RolloutMemory* memory() { return memory_ ? &*memory_ : nullptr; }
  nn::FlatParameters& flat_parameters() { return *parameters_; }
  void set_learning_rate(double learning_rate);
  // A2C's update, which IMPALA's shares: one gradient step on the whole finished `rollout` at
  // `learning_rate`, then the rollout cleared; the loss's parts, the explained variance and the
  // learning rate as statistics. Its approx_kl is the learner's divergence from the policy that
  // acted: for IMPALA the policy lag's, for A2C zero up to rounding (a recurrent model's replay
  // of its memory included).
  Statistics whole_rollout_step(const RolloutBatch& rollout, double learning_rate,
                                const ActorCriticLossOptions& options, double max_grad_norm);
  // One gradient step of actor_critic_loss() on `batch`'s rows of the finished rollout, its
  // loss parts added to `sums`. Then the gradient hook, the global gradient-norm clip and the
  // optimizer step. The loss is differentiated by hand (nn::ActorCriticPass) for Categorical
  // and state-independent Gaussian policies on the CPU, through autograd for gSDE and squashed
  // ones and on a GPU (there as a CUDA graph, where set_cuda_graphs() allows).
  void gradient_step(const RolloutBatch& rollout, const Minibatch& batch,
                     const ActorCriticLossOptions& options, double max_grad_norm, LossSums& sums);

  nn::ActorCritic model_;

 private:
  // Evaluation actions, the distribution's mode or a sample; the rollout is not touched.
  void act_without_storing(core::ConstTypedPtr observations, std::int64_t batch,
                           const ActionsOut& out, bool sample);
  // The model's outputs for the training envs' `observations` (a recurrent model's from and
  // into their memory, the step recorded).
  nn::PolicyValue rollout_forward(const at::Tensor& observations);
  // V(observation) of env `env`'s row `observation` [1, ...] after its last step (its memory).
  float value_after_step(const at::Tensor& observation, std::int64_t env);
  // A rollout step on a GPU: draws the actions from the model's `output` for `n` envs on the
  // host, with the CPU generator as the hand-written path does (so a cuda run takes the
  // actions a cpu run of the same seed takes, up to rounding), and stores them, their log-probs
  // and the values.
  void sample_on_the_host(const nn::PolicyValue& output, std::int64_t n);
  // Writes `actions` (a distribution's sample or mode; indices as floats, or values) as the env
  // takes them.
  void write_env_actions(const at::Tensor& actions, const ActionsOut& out) const;
  void write_env_actions(const float* actions, std::int64_t rows, const ActionsOut& out) const;
  // The distribution's modes for the policy head's `outputs`, as the env takes them.
  void write_modes(const float* outputs, std::int64_t rows, const ActionsOut& out) const;
  // The hand-written pass for a batch size of sequences of `steps` steps (1 for a memoryless
  // model), made at first use, and the policy head it feeds.
  nn::ActorCriticPass& pass_for(std::int64_t batch_size, std::int64_t steps);
  PolicyHead policy_head() const;
  // The gradients of the loss on those rows, by hand or through autograd.
  LossValues write_gradients_by_hand(const std::int64_t* rows, std::int64_t count,
                                     const ActorCriticLossOptions& options);
  LossValues write_gradients_by_autograd(const RolloutBatch& rollout, const std::int64_t* rows,
                                         std::int64_t count, const ActorCriticLossOptions& options);
  // The CUDA graphs of the gradient steps, where this agent runs them (decided at the first
  // call, once the gradient hook is known); null where it steps eagerly.
  GraphedGradientSteps* graphed_steps();
  // A finished rollout as the gradient steps read it: staged into the graphs' fixed tensors
  // where they run as CUDA graphs, else itself.
  RolloutBatch staged_for_steps(const RolloutBatch& rollout);
  // V of the observations after the rollout's last step (a recurrent model's from the memory).
  at::Tensor last_values_of_next_observations();
  // The rollout's actions as the distributions take them: int64 indices or float values.
  at::Tensor rollout_actions() const;
  // The rollout's rows `rows` copied together (a recurrent model's as sequences of `steps`
  // steps, with their episode starts and first memory), for the hand-written pass; without
  // `rows`, the whole rollout in place.
  RolloutRows gather_rows(const std::int64_t* rows, std::int64_t count, std::int64_t steps);

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields);  // in the .cpp: save_state() and load_state() use it

  std::shared_ptr<nn::FlatParameters> parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  replay::RolloutBuffer buffer_;
  ActionBounds bounds_;
  std::int64_t sde_sample_freq_;          // steps between gSDE draws within a rollout; <= 0: once
  std::vector<float> next_observations_;  // after the last observed step, for bootstrapping
  std::vector<float> input_floats_;       // a uint8 batch converted for the network
  GradientHook after_backward_;
  std::shared_ptr<ExternalGradientSteps> external_steps_;
  // Where the model lives (train.device): a rollout crosses to it once per update.
  at::Device device_;
  // Whether the loss is differentiated by hand (on the CPU; not gSDE, not squashed), and its
  // passes by batch size and sequence steps (a rollout that minibatches do not divide has a
  // smaller last one).
  bool by_hand_;
  std::map<std::pair<std::int64_t, std::int64_t>, nn::ActorCriticPass> passes_;
  std::vector<float> gathered_;  // gather_rows()' storage
  std::vector<float> learner_values_;  // finish_rollout_vtrace()'s V(x_t), under its batch
  CudaGraphs cuda_graphs_ = CudaGraphs::off;
  bool graphs_decided_ = false;
  std::unique_ptr<GraphedGradientSteps> graphed_;
  std::optional<RolloutMemory> memory_;  // recurrent models only
  std::int64_t sequence_length_;
  EvaluationMemory evaluation_memory_;  // recurrent models only
};

// Fraction of the returns' variance the values explain (1 = perfect, <= 0 = none), as SB3.
double explained_variance(const at::Tensor& returns, const at::Tensor& values);

}  // namespace mnrl::agents
