#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/optim/optimizer.h>

#include "agents/off_policy/continuous_off_policy_agent.h"
#include "agents/off_policy/critics.h"
#include "agents/off_policy/off_policy_networks.h"
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
// s and s', as SB3's reset_noise().
class Sac final : public ContinuousOffPolicyAgent {
 public:
  // `networks`: two critics, a stochastic actor (with state-dependent noise for use_sde) and,
  // when ent_coef is learned, log alpha, all trained through `parameters` (their flat
  // parameters).
  Sac(const SacOptions& options, ActionBounds bounds, std::shared_ptr<OffPolicyNetworks> networks,
      std::shared_ptr<nn::FlatParameters> parameters, std::unique_ptr<replay::Replay> replay,
      std::uint64_t seed);

  double alpha() const;
  std::vector<double> learning_rates() const override;

 protected:
  void explore(const float* observations, float* actions) override;
  void sample_actions(const float* observations, std::int64_t batch, float* actions) override;
  Statistics gradient_step(const replay::TransitionBatch& batch) override;
  void set_learning_rate(double learning_rate) override;
  void save_learner(core::StateWriter& out) const override;
  void load_learner(core::StateReader& in) override;

 private:
  // Fills `noise` with standard normals from `rng`.
  static void draw(core::Rng& rng, std::vector<float>& noise);
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
  Critics critics_;
  std::unique_ptr<torch::optim::Optimizer> critic_optimizer_, actor_optimizer_, alpha_optimizer_;
  at::Tensor log_alpha_;  // [1] in parameters_, when learned
  double fixed_alpha_ = 1.0, target_entropy_ = 0.0;
  nn::ContinuousActorPass train_pass_, next_pass_;  // batches' s and s'
  core::Rng noise_rng_;  // the gradient steps' reparameterization draws
  std::vector<float> noise_, next_noise_, act_noise_, targets_, action_gradients_,
      log_prob_gradients_;
  // gSDE's unit exploration matrices: one per env for acting [num_envs, latent, action], one
  // per gradient step [latent, action].
  std::vector<float> exploration_weights_, train_weights_;
  std::int64_t gradient_steps_done_ = 0;
};

}  // namespace mnrl::agents
