// An A3C worker alone is A2C: the same agent with the shared RMSprop in place of torch's
// RMSprop learns exactly the same weights from the same data.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <ATen/ops/equal.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

#include "agents/a2c/a2c.h"
#include "agents/a3c/shared_rmsprop.h"
#include "envs/env_options.h"

namespace mnrl::agents {
namespace {

at::Tensor train_a2c(bool shared_optimizer) {
  torch::manual_seed(7);
  nn::ActorCritic model(nn::ActorCriticOptions(4, 2).hidden_sizes({16}));
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  const auto options = torch::optim::RMSpropOptions(7e-4).alpha(0.99).eps(1e-5);
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (shared_optimizer) {
    optimizer = std::make_unique<SharedRmsprop>(
        parameters->values(), std::make_shared<SharedModel>(parameters->values()), options);
  } else {
    optimizer = std::make_unique<torch::optim::RMSprop>(
        std::vector<at::Tensor>{parameters->values()}, options);
  }
  A2c agent(A2cOptions{}, std::move(model), parameters, std::move(optimizer),
            replay::RolloutBuffer(5, 4, 4, 1), {});

  envs::EnvOptions env;
  env.num_envs = 4;
  auto vec = envs::make_vector_env(env, 3);
  vec->reset();
  std::vector<std::int64_t> actions(4);
  int updates = 0;
  while (updates < 200) {
    agent.act(vec->observations(), {actions.data(), nullptr});
    vec->step({actions.data(), nullptr, actions.size()});
    agent.observe({vec->observations(), vec->rewards(), vec->terminated(), vec->truncated(),
                   vec->final_observations()});
    if (agent.update_ready()) {
      agent.update({updates, 200});
      ++updates;
    }
  }
  return parameters->values().clone();
}

TEST(A3cWorkerTest, OneWorkerLearnsExactlyWhatA2cLearns) {
  const at::Tensor a2c = train_a2c(false);
  const at::Tensor a3c = train_a2c(true);
  EXPECT_TRUE(at::equal(a2c, a3c));
}

}  // namespace
}  // namespace mnrl::agents
