#pragma once

#include <cstdint>
#include <vector>

#include "core/state_fields.h"
#include "core/state_stream.h"

namespace mnrl::replay {

// On-policy storage for n_steps steps of num_envs envs, as plain float arrays laid out
// [step][env][...] so a whole rollout is one contiguous batch (agents wrap it in tensors
// without copying). Discrete actions are stored as their index in a float (exact below 2^24).
//
// Protocol per step t: the agent writes observation/action/log_prob/value of row t
// (act), then the env outcome of row t (reward, terminated, truncated and, for a truncated
// episode, the value of its final observation), then calls advance(). When full(), the
// agent calls compute_advantages() with the values of the observations after the last step,
// learns from the rollout, and calls clear().
class RolloutBuffer {
 public:
  RolloutBuffer(std::int64_t n_steps, std::int64_t num_envs, std::int64_t observation_size,
                std::int64_t action_size);

  std::int64_t n_steps() const { return n_steps_; }
  std::int64_t num_envs() const { return num_envs_; }
  std::int64_t observation_size() const { return observation_size_; }
  std::int64_t action_size() const { return action_size_; }
  std::int64_t size() const { return n_steps_ * num_envs_; }  // transitions when full
  std::int64_t step() const { return step_; }
  bool full() const { return step_ == n_steps_; }

  // Rows of the current step (num_envs entries each), for the agent to fill. Each throws
  // std::logic_error when the buffer is full (an agent acting past its rollout).
  float* observations_at_step() { return &observations_[row(observation_size_)]; }
  float* actions_at_step() { return &actions_[row(action_size_)]; }
  float* log_probs_at_step() { return &log_probs_[row(1)]; }
  float* values_at_step() { return &values_[row(1)]; }
  float* rewards_at_step() { return &rewards_[row(1)]; }
  std::uint8_t* terminated_at_step() { return &terminated_[row(1)]; }
  std::uint8_t* truncated_at_step() { return &truncated_[row(1)]; }
  // V(final observation) for envs whose episode was truncated at this step; ignored elsewhere.
  float* bootstrap_values_at_step() { return &bootstrap_values_[row(1)]; }

  // Moves to the next step. Throws std::logic_error when already full.
  void advance();
  void clear() { step_ = 0; }

  // For checkpoints: the position and the rows filled so far. load_state() needs a buffer of
  // the same sizes.
  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in);

  // GAE(lambda) over the full rollout (Schulman et al. 2016), in place into advantages() and
  // returns() = advantages + values. `last_values` are V(s) of the observations that follow
  // the last step. An episode that terminated contributes no bootstrap; one truncated (and not
  // terminated) bootstraps from its final observation's value. Throws if not full.
  void compute_advantages(const float* last_values, float gamma, float gae_lambda);

  // V-trace (Espeholt et al. 2018, eq. 1) over the full rollout, for a learner whose policy pi
  // differs from the policy mu that acted (the log_probs stored): in place into returns() =
  // the targets v_t, and advantages() = min(pg_rho_bar, rho_t) (r_t + gamma v_{t+1} - V(x_t)),
  // the policy gradient's weights. `values` are the learner's V(x_t) [n_steps * num_envs],
  // `last_values` its V of the observations after the last step, `log_rhos` = log pi(a_t|x_t)
  // - log mu(a_t|x_t). Episodes end as in compute_advantages (a truncated one bootstraps from
  // the stored value of its final observation). With pi = mu (log_rhos 0) and the bars at 1,
  // the targets are compute_advantages' returns with gae_lambda = 1. Throws if not full.
  struct VtraceOptions {
    float gamma = 0.99f;
    float rho_bar = 1.0f;     // clips the importance weight of the TD errors
    float c_bar = 1.0f;       // clips the traces
    float pg_rho_bar = 1.0f;  // clips the policy gradient's importance weight
  };
  void compute_vtrace(const float* values, const float* last_values, const float* log_rhos,
                      const VtraceOptions& options);

  // A full rollout as floats, to send from an actor to a learner (IMPALA): observations,
  // actions, log-probs, rewards, bootstrap values, terminated and truncated flags, each
  // [n_steps][num_envs][width] as stored (not the values or advantages: a learner computes its
  // own). pack() throws if not full. packed_floats(envs): the floats of such a rollout of
  // `envs` envs (the same n_steps and widths).
  std::int64_t packed_floats() const { return packed_floats(num_envs_); }
  std::int64_t packed_floats(std::int64_t envs) const;
  void pack(float* out) const;
  // The rows of a packed rollout of `envs` envs (same n_steps and widths) into envs
  // [first_env, first_env + envs) of every step. The buffer then counts as full: a learner
  // fills every env's rows before it learns from them.
  void unpack_envs(const float* in, std::int64_t envs, std::int64_t first_env);

  // Whole-rollout arrays, [n_steps * num_envs (* feature size)].
  const float* observations() const { return observations_.data(); }
  const float* actions() const { return actions_.data(); }
  const float* log_probs() const { return log_probs_.data(); }
  const float* values() const { return values_.data(); }
  const float* rewards() const { return rewards_.data(); }
  const float* advantages() const { return advantages_.data(); }
  const float* returns() const { return returns_.data(); }

 private:
  // The backward pass that GAE and V-trace share, per env from the last step: with the
  // weights (rho_t, c_t) = weights(row), correction_t = v_t - V(x_t) = rho_t delta_t + gamma
  // c_t correction_{t+1}, delta_t = r_t + gamma V(x_{t+1}) - V(x_t), restarted where an
  // episode ended; calls write(row, correction_t, r_t + gamma v_{t+1} - V(x_t)).
  template <class Weights, class Write>
  void correct_backwards(const float* values, const float* last_values, float gamma,
                         const Weights& weights, const Write& write) const;
  std::size_t row(std::int64_t width) const {
    if (full()) throw_full();
    return static_cast<std::size_t>(step_ * num_envs_ * width);
  }
  [[noreturn]] void throw_full() const;

  std::int64_t n_steps_, num_envs_, observation_size_, action_size_;
  std::int64_t step_ = 0;
  std::vector<float> observations_, actions_, log_probs_, values_, rewards_, bootstrap_values_;
  std::vector<std::uint8_t> terminated_, truncated_;
  std::vector<float> advantages_, returns_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("rollout_buffer");
    fields(step_, observations_, actions_, log_probs_, values_, rewards_, bootstrap_values_,
           terminated_, truncated_);
  }
};

}  // namespace mnrl::replay
