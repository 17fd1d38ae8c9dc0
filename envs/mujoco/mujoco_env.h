#pragma once

#include <mujoco/mujoco.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "envs/env.h"
#include "envs/episode_phase.h"
#include "envs/mujoco/mujoco_model.h"
#include "envs/saved_state.h"

namespace mnrl::envs {

// What a MujocoEnv is, beyond its model.
struct MujocoEnvSettings {
  std::string id;
  std::string model_source;  // the model's path (or built-in name), for messages
  int frame_skip = 1;        // physics steps per env step: the env's dt is frame_skip * timestep
  int max_episode_steps = 1000;
  std::optional<double> reward_threshold;
  // The observation: qpos without its first `qpos_skip` entries (a walker's x position, say),
  // then qvel when `observe_qvel`, then `extra_observations` floats from the subclass
  // (write_extra_observation). Unbounded.
  int qpos_skip = 0;
  bool observe_qvel = true;
  int extra_observations = 0;
  // reset_model()'s default: qpos0 and zero velocity, each entry plus uniform(-s, s) noise.
  double reset_noise_scale = 0.01;
  // Run mj_rnePostConstraint after each step, so that data().cfrc_ext holds the step's contact
  // forces (contact_force_cost needs it).
  bool contact_forces = false;
};

// A MuJoCo env, as Gymnasium's MujocoEnv: an MJCF model, frame skip, actions written to the
// actuators' controls (Box bounded by each actuator's ctrlrange; values outside are clipped
// into it), observations from qpos and qvel. A subclass says what the task is: evaluate()
// (reward and termination after the step's physics), and optionally reset_model() and
// write_extra_observation(). The SDK for a plugin's own robot (docs/custom_environments.md);
// mnrl's built-in MuJoCo envs are such subclasses.
//
// State save/restore covers the simulation state (qpos, qvel, act, ctrl, time and the
// solver's warm start, so the next step is bit-identical), the RNG and the episode phase; a
// subclass with state of its own adds it with save_task_state()/load_task_state().
class MujocoEnv : public Env, public StatefulEnv {
 public:
  // Throws MujocoModelError for a model without actuators or with an actuator that has no
  // ctrlrange, and std::invalid_argument for settings out of range (frame_skip < 1, ...).
  MujocoEnv(MujocoModelPtr model, MujocoEnvSettings settings);
  MujocoEnv(const MujocoEnv&) = delete;
  MujocoEnv& operator=(const MujocoEnv&) = delete;
  ~MujocoEnv() override;

  const EnvSpec& spec() const override { return spec_; }
  void reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) override;
  StepResult step(const ActionRef& action, core::TypedPtr observation) override;

  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;

  // A projection of the geoms, not MuJoCo's renderer (envs/mujoco/mujoco_render.h).
  bool render(RgbImage& image) const override;

  const mjModel& model() const { return *model_; }
  const mjData& data() const { return *data_; }
  // Seconds of simulated time per env step.
  double dt() const { return model_->opt.timestep * settings_.frame_skip; }

 protected:
  // What evaluate() sees: the controls applied this step (clipped into the ctrlrange, nu of
  // them) and the positions before it (nq), for velocity-based rewards.
  struct Transition {
    const double* controls;
    const double* qpos_before;
  };
  // The reward of the step that just ran, and whether the task ended (truncation is the time
  // limit's business). data() holds the state after the step.
  virtual StepResult evaluate(const Transition& transition) = 0;
  // Sets the episode's start state in data() after mj_resetData (mj_forward follows).
  virtual void reset_model(core::Rng& rng);
  // Writes settings.extra_observations floats.
  virtual void write_extra_observation(float* /*observation*/) const {}
  virtual void save_task_state(core::StateWriter& /*out*/) const {}
  virtual void load_task_state(core::StateReader& /*in*/) {}

  mjData& mutable_data() { return *data_; }
  const MujocoEnvSettings& settings() const { return settings_; }
  // Sum of squared controls (a control cost before its weight).
  double control_squared(const double* controls) const;
  // Sum over bodies of squared external contact forces (cfrc_ext), each clipped into
  // [low, high] first, as Gymnasium's contact cost. Needs settings.contact_forces.
  double contact_force_squared(double low, double high) const;
  // Whether every entry of qpos and qvel is finite.
  bool state_is_finite() const;
  // The id of the body (site) named `name`; throws MujocoModelError if the model has none.
  int body_id(const std::string& name) const;
  int site_id(const std::string& name) const;

 private:
  void write_observation(float* observation) const;

  MujocoModelPtr model_;
  MujocoDataPtr data_;
  MujocoEnvSettings settings_;
  EnvSpec spec_;
  core::Rng rng_;
  EpisodePhase phase_;
  std::vector<double> controls_;
  std::vector<double> qpos_before_;
};

}  // namespace mnrl::envs
