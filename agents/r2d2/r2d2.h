#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "agents/agent.h"
#include "agents/evaluation_memory.h"
#include "agents/r2d2/r2d2_loss.h"
#include "agents/r2d2/r2d2_options.h"
#include "core/rng.h"
#include "core/state_fields.h"
#include "core/typed_rows.h"
#include "nn/flat_parameters.h"
#include "nn/recurrent_q_network.h"
#include "nn/recurrent_q_network_pass.h"
#include "replay/sequence_replay.h"

namespace mnrl::agents {

// R2D2 in one process (Kapturowski et al. 2019): a recurrent Q-network acting epsilon-greedily
// with a memory per env (zeroed where an episode ends), its steps stored as overlapping
// sequences with the memory before their first step (replay::SequenceReplay), and learning from
// prioritized sequences through r2d2_loss(): burn-in, n-step Double-Q targets within each
// sequence, priorities mixing each sequence's largest and mean TD error. The networks act and
// train through hand-written passes (nn::RecurrentQNetworkPass, r2d2_loss_by_hand()).
class R2d2 final : public Agent {
 public:
  R2d2(R2d2Options options, nn::RecurrentQNetwork online, nn::RecurrentQNetwork target,
       std::shared_ptr<nn::FlatParameters> parameters,
       std::unique_ptr<torch::optim::Optimizer> optimizer,
       std::unique_ptr<replay::SequenceReplay> replay, std::int64_t total_steps,
       std::uint64_t exploration_seed);

  void act(core::ConstTypedPtr observations, const ActionsOut& out) override;
  void observe(const StepOutcome& outcome) override;
  bool update_ready() const override;
  Statistics update(const TrainingProgress& progress) override;
  void act_greedy(core::ConstTypedPtr observations, std::int64_t batch,
                  const ActionsOut& out) override;
  // Epsilon-greedy at the final epsilon.
  void act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                      const ActionsOut& out) override;
  void reset_evaluation_memory() override { evaluation_memory_.reset(); }
  void evaluation_episodes_ended(const std::uint8_t* terminated, const std::uint8_t* truncated,
                                 std::int64_t batch) override;
  // Both networks, the optimizer, each env's memory and sequence in progress, counters and
  // RNGs; the stored sequences are the replay's state (as DQN's transitions).
  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;
  bool has_replay() const override { return true; }
  void save_replay(core::StateWriter& out) const override;
  void load_replay(core::StateReader& in) override;
  // The online network's argmax, its memory taken and returned (nn::torchscript_policy).
  std::string export_greedy_policy(const std::optional<nn::ObservationScale>& scale) const override;

  // Epsilon-greedy's epsilon now: the fixed one if set, else the schedule's.
  double epsilon() const;
  void set_gradient_hook(GradientHook hook) { after_backward_ = std::move(hook); }

  // For Ape-X's actors and learner (topologies/apex/apex_learner.h).
  // Explores with `epsilon` from now on, instead of the schedule.
  void fix_epsilon(double epsilon) { fixed_epsilon_ = epsilon; }
  // The online network's parameters, one flat tensor.
  const at::Tensor& parameters() const { return parameters_->values(); }
  // Floats of a sequence as it travels (replay::SequenceReplay::pack).
  std::int64_t sequence_floats() const { return replay_->row_floats(); }
  // An actor's (its replay an outbox for what it has not sent): the sequences stored since
  // the last take_sequences().
  std::int64_t sequences_waiting() const { return replay_->stored_total() - sequences_taken_; }
  // An actor's: the first `count` waiting sequences as rows into `out`, each with the priority
  // R2D2's loss gives it under the online network as its own target, and drops them.
  void take_sequences(std::int64_t count, float* out);
  // A learner's: `count` rows an actor took. Throws std::invalid_argument, storing none from
  // the first malformed row on, for a row of another shape or an action outside the network's.
  void add_sequences(const float* rows, std::int64_t count);
  std::int64_t replay_size() const { return replay_->size(); }
  // Copies the online network into the target.
  void update_target();

 private:
  // The hand-written pass of the online or the target network for `steps` steps of `batch`
  // sequences, made at first use.
  nn::RecurrentQNetworkPass& pass_of(bool online, std::int64_t steps, std::int64_t batch);
  // The online network's Q-values [batch, actions] for `batch` rows of `observations` (floats)
  // from `state` [batch, state_size], which becomes the memory after the step; `starts` (1
  // where a row's episode starts: its memory restarts from zero) or null (none does).
  const float* step_online(const float* observations, std::int64_t batch, float* state,
                           const float* starts = nullptr);
  // Argmax per row of `q` [batch, actions] into `out`.
  void write_argmax(const float* q, std::int64_t batch, std::int64_t* out) const;
  // The loss of batch_ (its options from options_), and with `differentiate` the online
  // network's gradients.
  R2d2Loss loss_of_batch(bool differentiate);

  R2d2Options options_;
  nn::RecurrentQNetwork online_, target_;
  std::shared_ptr<nn::FlatParameters> parameters_;
  std::unique_ptr<nn::FlatParameters> target_parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<replay::SequenceReplay> replay_;
  std::int64_t num_envs_, observation_size_, total_steps_;
  core::Rng exploration_rng_, replay_rng_;
  GradientHook after_backward_;
  // Each training env's memory [num_envs, state_size], what its next act() starts from (zero
  // after an episode's end), and of the last act(), for observe(): the memories the actions
  // were chosen from, the observations and the actions.
  at::Tensor states_;
  std::vector<float> acted_states_, last_actions_;
  core::TypedRows last_observations_;
  std::vector<float> input_floats_;
  replay::SequenceBatch batch_;
  EvaluationMemory evaluation_memory_;
  std::int64_t env_steps_ = 0, vector_steps_ = 0, gradient_steps_ = 0;
  std::int64_t min_replay_size_;  // update_ready() needs this many sequences stored
  std::int64_t sequences_taken_ = 0;  // an actor's: by take_sequences() (not in the state)
  std::optional<double> fixed_epsilon_;
  // Passes by (steps, batch): acting (1 step of every env or evaluation env) and sequences.
  std::map<std::pair<std::int64_t, std::int64_t>, nn::RecurrentQNetworkPass> online_passes_,
      target_passes_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields);  // in the .cpp
};

}  // namespace mnrl::agents
