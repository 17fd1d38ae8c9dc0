#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/kwargs.h"
#include "core/rng.h"
#include "envs/box2d/episode_replay.h"
#include "envs/env.h"
#include "envs/episode_phase.h"
#include "envs/saved_state.h"

namespace mnrl::envs {

// Keyword arguments of LunarLander, as Gymnasium 0.29.1 names them (`continuous` is chosen by
// the id). Gymnasium warns about wind and turbulence outside these ranges; mnrl refuses them
// (KwargError naming the key).
struct LunarLanderOptions {
  bool continuous = false;
  double gravity = -10.0;  // in (-12, 0)
  bool enable_wind = false;
  double wind_power = 15.0;       // in [0, 20]
  double turbulence_power = 1.5;  // in [0, 2]

  static LunarLanderOptions from(const core::Kwargs& kwargs, bool continuous);
};

// Gymnasium 0.29.1's LunarLander on Box2D 2.4 (Gymnasium uses pybox2d's Box2D 2.3): the same
// constants, terrain, lander and legs, engines, reward shaping (+-100 for resting / crashing or
// leaving the screen), wind and turbulence. Not bit-exact with Gymnasium: another engine version
// and another RNG. The engines' flame particles are left out: they collide with the ground only
// and never touch the lander, so they change nothing the agent sees.
//
// Observation (8 floats): position relative to the helipad, velocity, angle, angular velocity
// (scaled as Gymnasium's), and two leg-contact flags. Actions: Discrete(4) (nothing, left
// engine, main engine, right engine), or with `continuous` a Box(2) in [-1, 1]: main throttle
// (off below 0, 50-100% above), lateral (off in [-0.5, 0.5], left/right engine beyond).
// Registered as LunarLander-v2 and LunarLanderContinuous-v2, 1000-step limit, threshold 200.
//
// State save/restore replays the episode (EpisodeReplay): the saved state is the RNG at the
// episode's start and the actions since, and load_state() rebuilds the world and steps it
// again, bit-identical.
class LunarLander final : public Env, public StatefulEnv {
 public:
  explicit LunarLander(const LunarLanderOptions& options = {});
  LunarLander(const LunarLander&) = delete;
  LunarLander& operator=(const LunarLander&) = delete;
  ~LunarLander() override;

  const EnvSpec& spec() const override;
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;

  // Gymnasium's rgb_array frame (envs/box2d/lunar_lander_render.h); false before reset().
  bool render(RgbImage& image) const override;

  // For tests: whether the lander body is awake (it rests when asleep), and the linear
  // momentum of lander and legs together (x, y) with their mass (kg m/s, kg m/s, kg).
  bool lander_awake() const;
  std::array<double, 3> momentum() const;

 private:
  class World;  // the Box2D bodies, in lunar_lander.cpp

  void start_episode(float* observation);
  // One step of the physics for a checked action (2 floats, as replay_ records them).
  StepResult advance(const float* action, float* observation);

  LunarLanderOptions options_;
  core::Rng rng_;
  EpisodeReplay replay_;  // this episode's actions, 2 floats each (Discrete: index, 0)
  std::unique_ptr<World> world_;
  std::optional<double> previous_shaping_;
  EpisodePhase phase_;
};

}  // namespace mnrl::envs
