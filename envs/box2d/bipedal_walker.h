#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/rng.h"
#include "envs/box2d/episode_replay.h"
#include "envs/env.h"
#include "envs/episode_phase.h"
#include "envs/saved_state.h"

namespace mnrl::envs {

// Gymnasium 0.29.1's BipedalWalker on Box2D 2.4 (Gymnasium uses pybox2d's Box2D 2.3): the same
// constants, hull and two-segment legs, hip and knee motors, terrain (gentle random grass; with
// `hardcore`, also stumps, stairs and pits), ten lidar rays and reward. Not bit-exact with
// Gymnasium: another engine version and another RNG. The clouds are left out (drawing only).
//
// Observation (24 floats, scaled as Gymnasium's): hull angle, angular velocity, horizontal and
// vertical velocity; for each leg the hip angle and speed, the knee angle (+1) and speed, and
// whether the lower leg touches the ground; then ten lidar fractions (1 = nothing within range).
// Gymnasium's bounds, except +-2 pi for the hull angle where Gymnasium declares +-pi, which a
// toppling walker's unwrapped angle exceeds (see make_spec in the .cpp).
// Actions: Box(4) in [-1, 1], one per motor (hip, knee, hip, knee): the sign picks the direction
// at the motor's rated speed, the magnitude (clipped to 1) the share of the maximum torque.
// Reward: forward progress (130 per SCALE metres) and -5 |hull angle| as shaping, minus a torque
// cost; -100 and terminated when the hull touches the ground or the walker leaves the left end;
// terminated without penalty past the terrain's end. Registered as BipedalWalker-v3 (1600-step
// limit) and BipedalWalkerHardcore-v3 (2000 steps), threshold 300; neither takes kwargs (the id
// chooses `hardcore`, Gymnasium's only kwarg).
//
// State save/restore replays the episode (EpisodeReplay), as LunarLander's does: the saved
// state is the RNG at the episode's start and the actions since, and load_state() rebuilds the
// world (terrain included) and steps it again, bit-identical.
class BipedalWalker final : public Env, public StatefulEnv {
 public:
  explicit BipedalWalker(bool hardcore = false);
  BipedalWalker(const BipedalWalker&) = delete;
  BipedalWalker& operator=(const BipedalWalker&) = delete;
  ~BipedalWalker() override;

  const EnvSpec& spec() const override;
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;

  // Gymnasium's rgb_array frame (envs/box2d/bipedal_walker_render.h); false before reset().
  bool render(RgbImage& image) const override;

  // For tests (all zero / empty before the first reset): the obstacles of this episode's
  // terrain, its height at each of its points (one every 14/30 m from x = 0), and where the
  // hull's origin is, in metres.
  struct Obstacles {
    int stumps = 0;
    int stair_steps = 0;
    int pits = 0;
  };
  Obstacles obstacles() const;
  std::vector<double> terrain_heights() const;
  std::array<double, 2> hull_position() const;

 private:
  class World;  // the Box2D bodies, in bipedal_walker.cpp

  void start_episode(float* observation);
  // One step of the physics for a checked action (4 floats, as replay_ records them).
  StepResult advance(const float* action, float* observation);

  bool hardcore_;
  core::Rng rng_;
  EpisodeReplay replay_;  // this episode's actions, 4 floats each
  std::unique_ptr<World> world_;
  std::optional<double> previous_shaping_;
  EpisodePhase phase_;
};

}  // namespace mnrl::envs
