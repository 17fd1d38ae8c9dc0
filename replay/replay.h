#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/state_stream.h"
#include "replay/n_step.h"
#include "replay/prioritized_replay_buffer.h"
#include "replay/replay_buffer.h"

namespace mnrl::core {
class Rng;
}

namespace mnrl::replay {

// What an off-policy agent's experience replay is made of.
struct ReplayOptions {
  std::int64_t capacity = 1;                             // transitions held
  std::int64_t observation_size = 1;                     // elements per observation
  core::Dtype observation_dtype = core::Dtype::float32;  // how observations are stored
  float byte_scale = 1.0f;       // uint8 observations times this in sampled batches
  std::int64_t action_size = 1;  // floats per action (1 for a Discrete index)
  std::int64_t num_envs = 1;     // envs whose steps come in together
  int n_step = 1;                // steps summed into one transition's reward
  float gamma = 0.99f;           // discount of those sums
  bool prioritized = false;      // proportional prioritized replay, else uniform
  PrioritizedReplayOptions per;  // with `prioritized`
};

class TransitionStore;  // uniform or prioritized (replay.cpp)

// An off-policy agent's experience replay, one interface whatever it is made of: each vector
// step's outcome becomes transitions through n-step returns (NStepAccumulator; one-step with
// n_step 1), kept in a uniform or prioritized store. Agents get it from their algorithm's
// factory and never ask which kind it is.
class Replay {
 public:
  explicit Replay(const ReplayOptions& options);
  ~Replay();

  const ReplayOptions& options() const { return options_; }
  std::int64_t size() const;

  // One vector-env step, laid out [env][...] (see NStepAccumulator::add).
  void add_step(core::ConstTypedPtr observations, const float* actions, const float* rewards,
                core::ConstTypedPtr next_observations, const std::uint8_t* terminated,
                const std::uint8_t* truncated, core::ConstTypedPtr final_observations);
  // A transition made elsewhere (by an Ape-X actor), with the |TD error| measured there: its
  // priority where replay is prioritized. Throws std::invalid_argument, storing nothing, for a
  // TD error that is not finite.
  void add_transition(const Transition& transition, float td_error);
  // From now on add_step() hands each transition to `sink` instead of keeping it (an Ape-X
  // actor's, which sends them on).
  void divert_to(std::function<void(const Transition&)> sink) { divert_ = std::move(sink); }
  // `batch_size` transitions into `out` (with importance weights; 1 for uniform replay).
  void sample(core::Rng& rng, std::int64_t batch_size, double progress, TransitionBatch& out);
  // The TD errors of the last sample()'s rows, which prioritized replay learns priorities
  // from; uniform replay ignores them.
  void update_priorities(const TransitionBatch& batch, const float* td_errors);

  // The n-step returns in progress, with the agent's state in a checkpoint.
  void save_state(core::StateWriter& out) const { n_step_.save_state(out); }
  void load_state(core::StateReader& in) { n_step_.load_state(in); }
  // The stored transitions (and priorities), a state of their own: large, and optional in a
  // checkpoint. load_transitions() throws core::StateError naming the source for a state of
  // other sizes or kind, or a malformed one; the contents are then unspecified.
  void save_transitions(core::StateWriter& out) const;
  void load_transitions(core::StateReader& in);

 private:
  ReplayOptions options_;
  NStepAccumulator n_step_;
  std::unique_ptr<TransitionStore> store_;
  std::function<void(const Transition&)> divert_;
};

}  // namespace mnrl::replay
