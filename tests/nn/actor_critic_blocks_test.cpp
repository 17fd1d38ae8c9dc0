// An actor-critic cut into blocks (for pipeline stages) computes what the model computes, over
// the model's own parameters; a clone of the blocks (PipeDream's stash) holds copies.
#include <gtest/gtest.h>

#include <ATen/ops/rand.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <torch/utils.h>

#include <set>
#include <string>

#include "nn/actor_critic_blocks.h"

namespace mnrl::nn {
namespace {

struct Case {
  std::string name;
  ActorCriticOptions options;
};

std::vector<Case> cases() {
  return {
      {"separate trunks", ActorCriticOptions(6, 3).hidden_sizes({16, 8})},
      {"shared trunk", ActorCriticOptions(6, 3).hidden_sizes({16, 8}).shared_trunk(true)},
      {"no trunk", ActorCriticOptions(6, 3).hidden_sizes({})},
      {"continuous", ActorCriticOptions(6, 2).hidden_sizes({16, 16}).continuous(true)
                         .log_std_init(-0.5)},
      {"squashed, relu", ActorCriticOptions(6, 2).hidden_sizes({8}).continuous(true)
                             .squash(true).activation(Activation::relu)},
      {"conv encoder", ActorCriticOptions(2 * 5 * 5, 4).hidden_sizes({16, 16})
                           .encoder(ConvEncoderOptions::minatar({2, 5, 5}).features(32))},
  };
}

std::set<const void*> storages(const std::vector<at::Tensor>& parameters) {
  std::set<const void*> pointers;
  for (const auto& p : parameters) pointers.insert(p.data_ptr());
  return pointers;
}

TEST(ActorCriticBlocksTest, TheChainComputesTheModelsOutputsWithItsParameters) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    torch::manual_seed(3);
    ActorCritic model(c.options);
    if (c.options.continuous()) {
      torch::NoGradGuard no_grad;
      model->log_std().uniform_(-1.0, 0.5);  // rows that differ
    }
    torch::nn::Sequential blocks = actor_critic_blocks(model);
    const std::size_t trunk_layers = c.options.hidden_sizes().size();
    EXPECT_EQ(blocks->size(), trunk_layers + 1 + (c.options.encoder() ? 1 : 0));
    const auto parameters = blocks->parameters();
    EXPECT_EQ(parameters.size(), model->parameters().size());
    EXPECT_EQ(storages(parameters), storages(model->parameters()));

    const at::Tensor observations = at::rand({7, c.options.observation_size()});
    const PolicyValue expected = model->forward(observations);
    const ChainOutput got = chain_output(*model, blocks->forward(observations));
    EXPECT_TRUE(got.output.policy.allclose(expected.policy, 1e-6, 1e-6));
    EXPECT_TRUE(got.output.value.allclose(expected.value, 1e-6, 1e-6));
    const at::Tensor actions = c.options.continuous()
                                   ? at::rand({7, c.options.action_size()}).mul_(1.8).sub_(0.9)
                                   : at::randint(c.options.action_size(), {7}).to(at::kLong);
    const auto distribution = model->distribution(expected);
    const at::Tensor log_prob = got.distribution->log_prob(actions);
    EXPECT_TRUE(log_prob.allclose(distribution->log_prob(actions), 1e-5, 1e-5));
    if (!c.options.squash()) {
      EXPECT_TRUE(got.distribution->entropy().allclose(distribution->entropy(), 1e-6, 1e-6));
    }

    // The chain's gradients are the model's: the same loss through either gives the same .grad.
    model->zero_grad();
    const PolicyValue again = model->forward(observations);
    (model->distribution(again)->log_prob(actions).sum() + again.value.sum()).backward();
    std::vector<at::Tensor> through_model;
    for (const auto& p : model->parameters()) through_model.push_back(p.grad().clone());
    model->zero_grad();
    const ChainOutput chained = chain_output(*model, blocks->forward(observations));
    (chained.distribution->log_prob(actions).sum() + chained.output.value.sum()).backward();
    const auto model_parameters = model->parameters();
    for (std::size_t i = 0; i < model_parameters.size(); ++i) {
      EXPECT_TRUE(model_parameters[i].grad().allclose(through_model[i], 1e-5, 1e-6)) << i;
    }

    // A clone computes the same from copies of the parameters.
    auto copy = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(blocks->clone());
    ASSERT_TRUE(copy);
    EXPECT_TRUE(copy->forward(observations).equal(blocks->forward(observations)));
    const auto copied = storages(copy->parameters());
    for (const void* pointer : storages(parameters)) EXPECT_EQ(copied.count(pointer), 0u);
  }
}

TEST(ActorCriticBlocksTest, MemoryAndStateDependentNoiseAreRefused) {
  EXPECT_THROW(actor_critic_blocks(ActorCritic(
                   ActorCriticOptions(4, 2).recurrent(RecurrentCoreOptions(4, 8)))),
               std::invalid_argument);
  EXPECT_THROW(actor_critic_blocks(ActorCritic(
                   ActorCriticOptions(4, 2).continuous(true).use_sde(true))),
               std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::nn
