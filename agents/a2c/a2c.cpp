#include "agents/a2c/a2c.h"

#include "agents/schedule.h"

namespace mnrl::agents {

A2c::A2c(A2cOptions options, nn::ActorCritic model, std::shared_ptr<nn::FlatParameters> parameters,
         std::unique_ptr<torch::optim::Optimizer> optimizer, replay::RolloutBuffer buffer,
         ActionBounds bounds)
    : ActorCriticAgent(std::move(model), std::move(parameters), std::move(optimizer),
                       std::move(buffer), std::move(bounds), options.sde_sample_freq),
      options_(std::move(options)) {}

Statistics A2c::update(const TrainingProgress& progress) {
  const RolloutBatch rollout = finish_rollout(options_.gamma, options_.gae_lambda);
  const double learning_rate =
      scheduled(options_.learning_rate, options_.lr_schedule, progress.remaining());
  return whole_rollout_step(rollout, learning_rate,
                            {std::nullopt, std::nullopt, options_.vf_coef, options_.ent_coef,
                             options_.normalize_advantage},
                            options_.max_grad_norm);
}

}  // namespace mnrl::agents
