#pragma once

#include <cstddef>
#include <memory>

#include "core/rng.h"
#include "envs/wrapper.h"

namespace mnrl::envs {

// Flickering observations (Hausknecht & Stone 2015, "Deep Recurrent Q-Learning for Partially
// Observable MDPs"): each observation, the first of an episode included, is replaced by zeros
// with probability `probability`, so that a policy must remember what it saw. Before a
// frame_stack, each stacked frame flickers on its own. The draws come from a generator of the
// wrapper's, seeded from each reset()'s seed and kept in the env's saved state.
class Flicker final : public ObservationWrapper {
 public:
  // Throws std::invalid_argument unless the observation space is a Box and probability is in
  // [0, 1].
  Flicker(std::unique_ptr<Env> env, double probability);

  // Reseeds the flicker draws from `seed`, when given.
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;

 private:
  void save_own_state(core::StateWriter& out) const override { out.values(rng_.state()); }
  void load_own_state(core::StateReader& in) override;
  void rewrite(core::TypedPtr observation) override;

  double probability_;
  std::size_t observation_bytes_ = 0;
  core::Rng rng_;
};

}  // namespace mnrl::envs
