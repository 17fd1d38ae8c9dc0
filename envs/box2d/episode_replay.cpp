#include "envs/box2d/episode_replay.h"

#include <cstdint>
#include <string>

namespace mnrl::envs {

void EpisodeReplay::start(const core::Rng::State& rng) {
  started_ = true;
  start_rng_ = rng;
  actions_.clear();
}

void EpisodeReplay::record(const float* action) {
  actions_.insert(actions_.end(), action, action + action_size_);
}

void EpisodeReplay::save(core::StateWriter& out, const core::Rng& rng,
                         const EpisodePhase& phase) const {
  out.tag(env_id_);
  out.value(started_);
  out.values(start_rng_);
  out.value(static_cast<std::uint64_t>(actions_.size()));
  out.values(actions_);
  out.values(rng.state());
  out.value(phase);
}

void EpisodeReplay::load(core::StateReader& in, core::Rng& rng, EpisodePhase& phase,
                         const Env& env) {
  in.expect_tag(env_id_);
  const bool started = in.value<bool>();
  core::Rng::State start;
  in.values(start);
  const auto count = in.value<std::uint64_t>();
  if (count % action_size_ != 0 || count > in.remaining() / sizeof(float)) {
    in.fail("an action record of " + std::to_string(count) + " floats");
  }
  std::vector<float> actions(count);
  in.values(actions);
  for (std::size_t i = 0; i < actions.size(); i += action_size_) {
    if (!env.valid(&actions[i])) in.fail("an invalid action in the " + env_id_ + " action record");
  }
  core::Rng::State current;
  in.values(current);
  EpisodePhase saved_phase;
  in.value(saved_phase);

  started_ = started;
  actions_.clear();
  if (!started) {
    rng.set_state(current);
    env.clear();
    phase = saved_phase;
    return;
  }
  rng.set_state(start);
  start_rng_ = start;
  env.start();
  for (std::size_t i = 0; i < actions.size(); i += action_size_) {
    record(&actions[i]);
    const StepResult result = env.advance(&actions[i]);
    if (result.terminated && i + action_size_ < actions.size()) {
      in.fail("a " + env_id_ + " action record that goes on after its episode terminated");
    }
  }
  if (rng.state() != current) {
    in.fail("a " + env_id_ + " episode that does not replay to its saved state");
  }
  phase = saved_phase;
}

}  // namespace mnrl::envs
