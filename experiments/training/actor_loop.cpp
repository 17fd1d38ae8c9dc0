#include "experiments/training/actor_loop.h"

#include "agents/agent.h"
#include "core/state_stream.h"
#include "envs/normalize_observation.h"
#include "envs/vector_env.h"
#include "experiments/checkpoints/training_checkpoint.h"
#include "experiments/training/actor_learner_links.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/env_stepper.h"
#include "experiments/training/episode_tally.h"
#include "experiments/training/train_device.h"
#include "experiments/training/worker_envs.h"
#include "nn/tensor_state.h"

namespace mnrl::experiments {

Actor make_actor(const ExperimentOptions& options, int rank, const Checkpoint* resume_from,
                 const std::function<void(ExperimentOptions&)>& adjust) {
  set_compute_threads(options.train.threads);
  std::optional<std::int64_t> resumed_at;
  if (resume_from) resumed_at = resume_from->info().step;
  auto [mine, envs] = make_worker_envs(on_the_cpu(options), rank, resumed_at);
  if (adjust) adjust(mine);
  auto agent = make_agent(mine, envs->spec());
  return {std::move(mine), std::move(envs), std::move(agent), resumed_at.value_or(0)};
}

std::string save_actor_state(const agents::Agent& agent, const envs::VectorEnv& envs) {
  core::StateWriter out;
  out.tag("actor");
  agent.save_state(out);
  envs.save_state(out);
  nn::save_torch_rng(out);
  return out.bytes();
}

bool load_actor_state(const std::string& state, const std::string& where, agents::Agent& agent,
                      envs::VectorEnv& envs) {
  core::StateReader in(state, where);
  in.expect_tag("actor");
  agent.load_state(in);
  const bool episodes_restored = envs.load_state(in);
  nn::load_torch_rng(in);
  in.expect_end();
  return episodes_restored;
}

std::int64_t act_until_stopped(LearnerLink& learner, Actor& actor, const Checkpoint* resume_from,
                               const std::function<bool()>& payload_ready,
                               const std::function<void(float*)>& write_payload) {
  agents::Agent& agent = *actor.agent;
  envs::VectorEnv& envs = *actor.envs;
  bool episodes_restored = false;
  if (resume_from) {
    const ActorsLearnersLayout& layout = learner.layout();
    const std::optional<std::string> saved = saved_actor_state(
        *resume_from, learner.rank(), layout.learners, layout.ranks - layout.learners);
    if (saved) {
      episodes_restored = load_actor_state(*saved,
                                           resume_from->directory().string() + " (rank " +
                                               std::to_string(learner.rank()) + "'s actor state)",
                                           agent, envs);
    }
  }
  if (const auto* normalize = envs.find_transform<envs::NormalizeObservation>()) {
    learner.send_observation_statistics(*normalize->statistics());
  }
  // After the actor's own state: its parameters are the learner's.
  learner.share_initial();
  if (!episodes_restored) envs.reset();
  EpisodeTally tally;
  EnvStepper stepper(agent, envs);
  while (learner.take_parameters()) {
    const bool state_requested = learner.state_requested();
    while (!payload_ready()) {
      stepper.step();
      tally.steps += stepper.num_envs();
      stepper.report_episodes(tally, 0);
    }
    write_payload(learner.next_payload());
    learner.send(tally, state_requested);
    tally = EpisodeTally();
    if (state_requested) learner.send_state(save_actor_state(agent, envs));
  }
  learner.finish();
  return learner.global_step();
}

}  // namespace mnrl::experiments
