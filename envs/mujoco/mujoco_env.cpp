#include "envs/mujoco/mujoco_env.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "envs/action_check.h"
#include "envs/mujoco/mujoco_render.h"

namespace mnrl::envs {
namespace {

// The action space: one entry per actuator, bounded by its ctrlrange (float32, as Gymnasium).
Box action_box(const mjModel& model, const std::string& source) {
  if (model.nu == 0) {
    throw MujocoModelError(source + ": the model has no actuators; an env acts through them");
  }
  Box box{{model.nu}, {}, {}};
  for (int i = 0; i < model.nu; ++i) {
    if (!model.actuator_ctrllimited[i]) {
      const char* name = mj_id2name(&model, mjOBJ_ACTUATOR, i);
      throw MujocoModelError(source + ": actuator " +
                             (name ? std::string("'") + name + "'" : std::to_string(i)) +
                             " has no ctrlrange (set ctrllimited=\"true\" ctrlrange=\"low high\"): "
                             "the action space is bounded by it");
    }
    box.low.push_back(static_cast<float>(model.actuator_ctrlrange[2 * i]));
    box.high.push_back(static_cast<float>(model.actuator_ctrlrange[2 * i + 1]));
  }
  return box;
}

}  // namespace

MujocoEnv::MujocoEnv(MujocoModelPtr model, MujocoEnvSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)) {
  if (!model_) throw std::invalid_argument(settings_.id + ": no MuJoCo model");
  if (settings_.frame_skip < 1) {
    throw std::invalid_argument(settings_.id + ": frame_skip must be at least 1");
  }
  if (settings_.qpos_skip < 0 || settings_.qpos_skip > model_->nq) {
    throw std::invalid_argument(
        settings_.id + ": qpos_skip must be in [0, nq = " + std::to_string(model_->nq) + "]");
  }
  if (settings_.extra_observations < 0 || !(settings_.reset_noise_scale >= 0)) {
    throw std::invalid_argument(settings_.id +
                                ": extra_observations and reset_noise_scale must not be negative");
  }
  spec_.id = settings_.id;
  spec_.action_space = action_box(*model_, settings_.model_source);
  const std::int64_t size = model_->nq - settings_.qpos_skip +
                            (settings_.observe_qvel ? model_->nv : 0) +
                            settings_.extra_observations;
  const float inf = std::numeric_limits<float>::infinity();
  spec_.observation_space =
      Box{{size}, std::vector<float>(size, -inf), std::vector<float>(size, inf)};
  spec_.max_episode_steps = settings_.max_episode_steps;
  spec_.reward_threshold = settings_.reward_threshold;
  data_.reset(mj_makeData(model_.get()));
  controls_.resize(model_->nu);
  qpos_before_.resize(model_->nq);
}

MujocoEnv::~MujocoEnv() = default;

void MujocoEnv::reset_model(core::Rng& rng) {
  const double scale = settings_.reset_noise_scale;
  for (int i = 0; i < model_->nq; ++i)
    data_->qpos[i] = model_->qpos0[i] + rng.uniform(-scale, scale);
  for (int i = 0; i < model_->nv; ++i) data_->qvel[i] = rng.uniform(-scale, scale);
}

void MujocoEnv::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  mj_resetData(model_.get(), data_.get());
  reset_model(rng_);
  mj_forward(model_.get(), data_.get());
  phase_.start();
  write_observation(observation.floats());
}

StepResult MujocoEnv::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  check_action(spec_, action);
  for (int i = 0; i < model_->nu; ++i) {
    controls_[i] =
        std::clamp(static_cast<double>(action.values[i]), model_->actuator_ctrlrange[2 * i],
                   model_->actuator_ctrlrange[2 * i + 1]);
    data_->ctrl[i] = controls_[i];
  }
  std::copy(data_->qpos, data_->qpos + model_->nq, qpos_before_.begin());
  for (int i = 0; i < settings_.frame_skip; ++i) mj_step(model_.get(), data_.get());
  // mj_step leaves cfrc_ext out of date (computed before integration, without constraint
  // forces); Gymnasium refreshes it the same way.
  if (settings_.contact_forces) mj_rnePostConstraint(model_.get(), data_.get());
  const StepResult result = evaluate({controls_.data(), qpos_before_.data()});
  phase_.finish_step(result.terminated);
  write_observation(observation.floats());
  return result;
}

void MujocoEnv::write_observation(float* observation) const {
  float* out = observation;
  for (int i = settings_.qpos_skip; i < model_->nq; ++i)
    *out++ = static_cast<float>(data_->qpos[i]);
  if (settings_.observe_qvel) {
    for (int i = 0; i < model_->nv; ++i) *out++ = static_cast<float>(data_->qvel[i]);
  }
  write_extra_observation(out);
}

double MujocoEnv::control_squared(const double* controls) const {
  double sum = 0.0;
  for (int i = 0; i < model_->nu; ++i) sum += controls[i] * controls[i];
  return sum;
}

double MujocoEnv::contact_force_squared(double low, double high) const {
  double sum = 0.0;
  for (int i = 0; i < 6 * model_->nbody; ++i) {
    const double force = std::clamp(data_->cfrc_ext[i], low, high);
    sum += force * force;
  }
  return sum;
}

bool MujocoEnv::state_is_finite() const {
  return std::all_of(data_->qpos, data_->qpos + model_->nq,
                     [](double v) { return std::isfinite(v); }) &&
         std::all_of(data_->qvel, data_->qvel + model_->nv,
                     [](double v) { return std::isfinite(v); });
}

int MujocoEnv::body_id(const std::string& name) const {
  const int id = mj_name2id(model_.get(), mjOBJ_BODY, name.c_str());
  if (id < 0) throw MujocoModelError(settings_.model_source + ": no body named '" + name + "'");
  return id;
}

int MujocoEnv::site_id(const std::string& name) const {
  const int id = mj_name2id(model_.get(), mjOBJ_SITE, name.c_str());
  if (id < 0) throw MujocoModelError(settings_.model_source + ": no site named '" + name + "'");
  return id;
}

void MujocoEnv::save_state(core::StateWriter& out) const {
  out.tag("MujocoEnv " + spec_.id);
  out.values(rng_.state());
  out.value(phase_);
  out.value(data_->time);
  out.values(data_->qpos, model_->nq);
  out.values(data_->qvel, model_->nv);
  out.values(data_->act, model_->na);
  out.values(data_->ctrl, model_->nu);
  out.values(data_->qacc_warmstart, model_->nv);
  save_task_state(out);
}

void MujocoEnv::load_state(core::StateReader& in) {
  in.expect_tag("MujocoEnv " + spec_.id);
  core::Rng::State rng;
  in.values(rng);
  EpisodePhase phase;
  in.value(phase);
  const auto time = in.value<double>();
  // Read into copies first: a state of another model is refused before anything changes.
  std::vector<double> qpos(model_->nq), qvel(model_->nv), act(model_->na), ctrl(model_->nu),
      warmstart(model_->nv);
  in.values(qpos);
  in.values(qvel);
  in.values(act);
  in.values(ctrl);
  in.values(warmstart);
  load_task_state(in);

  rng_.set_state(rng);
  phase_ = phase;
  mj_resetData(model_.get(), data_.get());
  data_->time = time;
  std::copy(qpos.begin(), qpos.end(), data_->qpos);
  std::copy(qvel.begin(), qvel.end(), data_->qvel);
  std::copy(act.begin(), act.end(), data_->act);
  std::copy(ctrl.begin(), ctrl.end(), data_->ctrl);
  mj_forward(model_.get(), data_.get());
  // After mj_forward, which overwrites it: the next step starts from the saved warm start.
  std::copy(warmstart.begin(), warmstart.end(), data_->qacc_warmstart);
}

bool MujocoEnv::render(RgbImage& image) const {
  render_mujoco(*model_, *data_, image);
  return true;
}

}  // namespace mnrl::envs
