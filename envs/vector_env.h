#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/state_stream.h"
#include "core/typed_rows.h"
#include "envs/batch_transform.h"
#include "envs/env.h"
#include "envs/step_threading.h"

namespace mnrl::core {
class ThreadPool;
}

namespace mnrl::envs {

class EpisodeStatistics;

// Actions for every env of a vector env: `indices[i]` (Discrete) or the i-th row of
// `values` (Box, flat_size(action_space) floats per env). `size` counts the elements at the
// pointer in use, so a batch of the wrong shape is an error rather than an overread.
struct ActionBatch {
  const std::int64_t* indices = nullptr;
  const float* values = nullptr;
  std::size_t size = 0;
};

// Steps N envs of the same spec in one call, with same-step auto-reset (as SB3's VecEnv and
// Gymnasium 0.29): when env i ends, observations() row i already holds the first observation of
// its next episode, and final_observations() row i holds the last observation of the episode
// that ended, so a truncated episode can be bootstrapped. Env i is seeded with
// core::derive_seed(seed, i) at the first reset(), so results never depend on N's batching.
//
// With num_threads > 1, a pool of that many threads (the caller included) steps fixed,
// contiguous groups of envs (core::ThreadPool: each group on its own thread unless another
// thread is free first) when the envs' steps cost enough to pay for the hand-over
// (envs/step_threading.h), else the caller steps them alone. Each env only touches its own
// rows, and the batch transforms run afterwards on the caller, so the results are
// bit-identical to num_threads = 1.
class VectorEnv {
 public:
  // `transforms` run in order after every reset() and step(). An EpisodeStatistics is put first
  // unless the list has one. Throws std::invalid_argument for no envs, a null env, envs whose
  // specs differ, or num_threads < 1. More threads than envs are not started.
  VectorEnv(std::vector<std::unique_ptr<Env>> envs, std::uint64_t seed, int num_threads = 1,
            std::vector<std::unique_ptr<BatchTransform>> transforms = {});
  ~VectorEnv();

  int num_envs() const { return static_cast<int>(envs_.size()); }
  int num_threads() const;
  // Every step goes to the threads, however cheap (StepThreading::always_thread()).
  void always_thread() { step_threading_.always_thread(); }
  const EnvSpec& spec() const { return envs_.front()->spec(); }
  std::int64_t observation_size() const { return observation_size_; }

  // Resets every env. The first call seeds them; later calls continue their RNG streams.
  void reset();
  // Steps every env. Throws std::invalid_argument, before any env steps, for a batch of the
  // wrong size or an invalid action (naming the env); std::logic_error before reset(). If an
  // env itself throws, the exception is passed on and the vector env needs reset() again.
  void step(const ActionBatch& actions);

  // [num_envs, observation_size] row-major, of the observation space's dtype, after
  // auto-reset.
  core::ConstTypedPtr observations() const { return observations_.data(); }
  // Per env, for the last step: reward, and whether the episode ended and how.
  const float* rewards() const { return rewards_.data(); }
  const std::uint8_t* terminated() const { return terminated_.data(); }
  const std::uint8_t* truncated() const { return truncated_.data(); }
  // [num_envs, observation_size]; row i is meaningful only where env i's episode just ended.
  core::ConstTypedPtr final_observations() const { return final_observations_.data(); }
  // Undiscounted return and length of the episode that ended at the last step in env i
  // (meaningful only where it ended), as the EpisodeStatistics transform counts them.
  const double* episode_returns() const;
  const std::int64_t* episode_lengths() const;

  // Checkpoints. save_state() writes every transform's state and, when every env saves its
  // state (envs/saved_state.h), every env's and the current outputs; it requires reset().
  // load_state() restores them into a vector env built from the same options and returns true
  // if the envs were restored too: stepping then continues every episode exactly. It returns
  // false when they were not saved: the caller must reset() (new episodes, seeded from the
  // construction seed unless reseed() gives another).
  // Throws core::StateError for a state of another configuration, changing nothing then only
  // if the error is in the header (the vector env needs reset() after any other failure).
  bool saves_state() const;
  void save_state(core::StateWriter& out) const;
  bool load_state(core::StateReader& in);
  // The seed of the next reset(), which reseeds every env as the first reset() does.
  void reseed(std::uint64_t seed);

  // Env i's picture of its current state (Env::render); false if it draws none.
  bool render(std::size_t env, RgbImage& image) const { return envs_.at(env)->render(image); }

  // The first transform of type T, or null.
  template <class T>
  T* find_transform() const {
    for (const auto& transform : transforms_) {
      if (auto* found = dynamic_cast<T*>(transform.get())) return found;
    }
    return nullptr;
  }

 private:
  ActionRef action_for(const ActionBatch& actions, std::size_t env) const;
  void check_actions(const ActionBatch& actions) const;
  void step_envs(const ActionBatch& actions, std::size_t begin, std::size_t end);
  Batch batch();

  std::vector<std::unique_ptr<Env>> envs_;
  std::uint64_t seed_;
  bool seeded_ = false;
  bool needs_reset_ = true;
  std::int64_t observation_size_ = 0;
  std::int64_t action_size_ = 0;  // floats per env for Box actions
  core::TypedRows observations_, final_observations_;
  std::vector<float> rewards_;
  std::vector<std::uint8_t> terminated_, truncated_;
  std::unique_ptr<core::ThreadPool> pool_;
  StepThreading step_threading_;
  std::vector<std::unique_ptr<BatchTransform>> transforms_;
  const EpisodeStatistics* episode_statistics_ = nullptr;
};

}  // namespace mnrl::envs
