#include "agents/impala/impala.h"

#include <algorithm>
#include <string>

#include "agents/schedule.h"

namespace mnrl::agents {
namespace {

// A saved rollout's env count is read before its arrays: bounded, so that a damaged state
// cannot ask for unbounded memory (env.num_envs times impala.batch_trajectories).
constexpr std::int64_t kMaxRolloutEnvs = 1 << 20;

}  // namespace

Impala::Impala(ImpalaOptions options, nn::ActorCritic model,
               std::shared_ptr<nn::FlatParameters> parameters,
               std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
               ActionBounds bounds)
    : ActorCriticAgent(std::move(model), std::move(parameters), std::move(optimizer),
                       std::move(buffer), std::move(bounds), /*sde_sample_freq=*/-1),
      options_(std::move(options)) {}

Statistics Impala::update(const TrainingProgress& progress) {
  replay::RolloutBuffer::VtraceOptions vtrace;
  vtrace.gamma = static_cast<float>(options_.gamma);
  vtrace.rho_bar = static_cast<float>(options_.rho_bar);
  vtrace.c_bar = static_cast<float>(options_.c_bar);
  vtrace.pg_rho_bar = static_cast<float>(options_.pg_rho_bar);
  const RolloutBatch rollout = finish_rollout_vtrace(vtrace);
  const double learning_rate =
      scheduled(options_.learning_rate, options_.lr_schedule, progress.remaining());
  return whole_rollout_step(
      rollout, learning_rate,
      {std::nullopt, std::nullopt, options_.vf_coef, options_.ent_coef, /*normalize=*/false},
      options_.max_grad_norm);
}

void Impala::save_state(core::StateWriter& out) const {
  out.tag("impala");
  out.value(rollout_envs());
  ActorCriticAgent::save_state(out);
}

void Impala::load_state(core::StateReader& in) {
  in.expect_tag("impala");
  const auto envs = in.value<std::int64_t>();
  if (envs < 1 || envs > kMaxRolloutEnvs) {
    in.fail("a rollout of " + std::to_string(envs) + " envs (at most " +
            std::to_string(kMaxRolloutEnvs) + ")");
  }
  if (envs == rollout_envs()) {
    ActorCriticAgent::load_state(in);
  } else {
    load_state_dropping_rollout(in, envs);
  }
}

std::int64_t Impala::trajectory_floats(std::int64_t envs) {
  const replay::RolloutBuffer& buffer = rollout();
  const RolloutMemory* recurrent = memory();
  return buffer.packed_floats(envs) + envs * buffer.observation_size() +
         (recurrent ? recurrent->packed_floats(envs) : 0);
}

void Impala::pack_trajectory(float* out) {
  replay::RolloutBuffer& buffer = rollout();
  buffer.pack(out);
  out = std::copy(next_observations().begin(), next_observations().end(),
                  out + buffer.packed_floats());
  if (const RolloutMemory* recurrent = memory()) recurrent->pack(out);
  clear_rollout();
}

void Impala::unpack_trajectory(const float* in, std::int64_t envs, std::int64_t first_env) {
  replay::RolloutBuffer& buffer = rollout();
  buffer.unpack_envs(in, envs, first_env);
  const std::int64_t size = buffer.observation_size();
  const float* next = in + buffer.packed_floats(envs);
  std::copy(next, next + envs * size, next_observations().begin() + first_env * size);
  if (RolloutMemory* recurrent = memory()) {
    recurrent->unpack_envs(next + envs * size, envs, first_env);
  }
}

}  // namespace mnrl::agents
