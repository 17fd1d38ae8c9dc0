#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "agents/off_policy/continuous_off_policy_agent.h"
#include "agents/off_policy/critics.h"
#include "agents/off_policy/off_policy_networks.h"
#include "agents/off_policy/target_critics.h"
#include "agents/sac/sac_gradient_steps.h"
#include "agents/sac/sac_options.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {

// SAC for Box actions, step for step as SB3's SAC.train(): the actor samples a_pi at s (one
// reparameterized draw); the temperature's gradient comes from its log-density; the critics
// step towards r + gamma (min Q'(s', a') - alpha log pi(a'|s')) with a' drawn at s'; then the
// actor steps on alpha log pi(a_pi|s) - min Q(s, a_pi) under the updated critics; alpha is the
// one from before its own step throughout. Targets follow the critics every
// target_update_interval gradient steps. Exploration samples the policy; evaluation takes
// tanh(mean). With use_sde, the policy's noise is gSDE's (nn::ContinuousActorPass): each env
// acts with its own exploration matrix, drawn at each update's start (every train_freq vector
// steps) and every sde_sample_freq steps; each gradient step draws one matrix for its batch's
// s and s', as SB3's reset_noise(). Off the CPU the gradient steps run through autograd
// (SacGradientSteps), with the same draws from the same generator: a seed trains alike on
// every device, to float rounding.
class Sac final : public ContinuousOffPolicyAgent {
 public:
  // `networks`: two critics, a stochastic actor (with state-dependent noise for use_sde) and,
  // when ent_coef is learned, log alpha, all trained through `parameters` (their flat
  // parameters, on any device for `path` autograd; on the CPU, and without gSDE for
  // autograd, else std::logic_error).
  Sac(const SacOptions& options, ActionBounds bounds, std::shared_ptr<OffPolicyNetworks> networks,
      std::shared_ptr<nn::FlatParameters> parameters, std::unique_ptr<replay::Replay> replay,
      std::uint64_t seed, GradientPath path);

  double alpha() const;
  std::vector<double> learning_rates() const override;

 protected:
  void explore(const float* observations, float* actions) override;
  void sample_actions(const float* observations, std::int64_t batch, float* actions) override;
  Statistics gradient_step(const replay::TransitionBatch& batch) override;
  Statistics device_means() override;
  void set_learning_rate(double learning_rate) override;
  void save_learner(core::StateWriter& out) const override;
  void load_learner(core::StateReader& in) override;

 private:
  // Fills `noise` with standard normals from `rng`.
  static void draw(core::Rng& rng, std::vector<float>& noise);
  // The hand-written step.
  Statistics step_by_hand(const replay::TransitionBatch& batch);
  // The autograd steps, made at the first (after set_gradient_hook() and set_cuda_graphs()).
  SacGradientSteps& autograd_steps();
  // Writes targets_ for `batch`, drawing a' from the actor at s'.
  void compute_targets(const replay::TransitionBatch& batch, double alpha);
  // A sample of `pass` at `observations`: with `noise` (a standard normal per action) or, with
  // use_sde, with the gSDE matrix train_weights_.
  const float* sample(nn::ContinuousActorPass& pass, const float* observations,
                      const std::vector<float>& noise);

  SacOptions sac_;
  std::shared_ptr<OffPolicyNetworks> networks_;
  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields);  // in the .cpp: save_state() and load_state() use it

  std::shared_ptr<nn::FlatParameters> parameters_;
  TargetCritics target_critics_;
  std::unique_ptr<torch::optim::Optimizer> critic_optimizer_, actor_optimizer_, alpha_optimizer_;
  at::Tensor log_alpha_;  // [1] in parameters_, when learned
  double fixed_alpha_ = 1.0, target_entropy_ = 0.0;
  struct ByHand {
    Critics critics;
    nn::ContinuousActorPass train_pass, next_pass;  // batches' s and s'
  };
  std::unique_ptr<ByHand> by_hand_;                   // GradientPath::by_hand
  std::unique_ptr<SacGradientSteps> autograd_steps_;  // GradientPath::autograd, once made
  core::Rng noise_rng_;  // the gradient steps' reparameterization draws
  std::vector<float> noise_, next_noise_, act_noise_, targets_, action_gradients_,
      log_prob_gradients_;
  // gSDE's unit exploration matrices: one per env for acting [num_envs, latent, action], one
  // per gradient step [latent, action].
  std::vector<float> exploration_weights_, train_weights_;
  std::int64_t gradient_steps_done_ = 0;
};

}  // namespace mnrl::agents
