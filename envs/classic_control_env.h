#pragma once

#include <array>
#include <cstddef>

#include "core/rng.h"
#include "core/state_fields.h"
#include "envs/env.h"
#include "envs/episode_phase.h"
#include "envs/saved_state.h"

namespace mnrl::envs {

// What the classic-control envs share: a float64 physical state of N values, the RNG their
// starts are drawn from and the episode's phase, which together are their whole saved state.
// Each env adds its spec, reset, step, render and observation.
template <std::size_t N>
class ClassicControlEnv : public Env, public StatefulEnv {
 public:
  void save_state(core::StateWriter& out) const override { core::save_fields(out, *this); }
  void load_state(core::StateReader& in) override {
    core::load_fields(in, *this);
    state_changed();
  }

  // For tests: sets the physical state and makes the env steppable, as after reset().
  void set_state(const std::array<double, N>& state) {
    state_ = state;
    state_changed();
    phase_.start();
  }
  const std::array<double, N>& state() const { return state_; }

 protected:
  ClassicControlEnv() = default;
  ~ClassicControlEnv() = default;
  // Called once state_ was set or loaded, for what an env derives from it.
  virtual void state_changed() {}

  core::Rng rng_;
  std::array<double, N> state_{};
  EpisodePhase phase_;

 private:
  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields(rng_, state_, phase_);
  }
};

}  // namespace mnrl::envs
