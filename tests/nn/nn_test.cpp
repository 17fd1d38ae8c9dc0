#include <gtest/gtest.h>

#include <cmath>

#include <ATen/ops/allclose.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include "nn/actor_critic.h"
#include "nn/categorical.h"
#include "nn/flat_parameters.h"

namespace mnrl::nn {
namespace {

TEST(ActorCriticTest, OutputsLogitsPerActionAndOneValuePerRow) {
  torch::manual_seed(0);
  for (const bool shared : {false, true}) {
    ActorCritic model(ActorCriticOptions(4, 3).hidden_sizes({16, 8}).shared_trunk(shared));
    const auto out = model->forward(at::randn({5, 4}));
    EXPECT_EQ(out.policy.sizes(), (std::vector<std::int64_t>{5, 3}));
    EXPECT_EQ(out.value.sizes(), (std::vector<std::int64_t>{5}));
    EXPECT_TRUE(at::allclose(model->value(at::ones({5, 4})), model->forward(at::ones({5, 4})).value));
  }
}

TEST(ActorCriticTest, SharedTrunkHasFewerParameters) {
  ActorCritic separate(ActorCriticOptions(4, 2));
  ActorCritic shared(ActorCriticOptions(4, 2).shared_trunk(true));
  EXPECT_EQ(separate->parameters().size(), 2 * 2 * 2 + 4u);  // two trunks of 2 layers + heads
  EXPECT_EQ(shared->parameters().size(), 2 * 2 + 4u);
}

TEST(ActorCriticTest, OrthogonalInitUsesSb3Gains) {
  torch::manual_seed(0);
  ActorCritic model(ActorCriticOptions(4, 2).hidden_sizes({64, 64}));
  const auto params = model->named_parameters();
  // Rows of an orthogonal [out, in] matrix with out <= in are orthonormal, times the gain.
  const at::Tensor hidden = params["policy_trunk.linear1.weight"];
  EXPECT_TRUE(at::allclose(hidden.mm(hidden.t()), 2.0 * at::eye(64), 1e-4, 1e-4));
  const at::Tensor policy_head = params["policy_head.weight"];
  EXPECT_TRUE(at::allclose(policy_head.mm(policy_head.t()), 1e-4 * at::eye(2), 1e-4, 1e-7));
  const at::Tensor value_head = params["value_head.weight"];
  EXPECT_NEAR(value_head.norm().item<double>(), 1.0, 1e-5);
  EXPECT_EQ(params["value_trunk.linear0.bias"].abs().sum().item<double>(), 0.0);
}

TEST(CategoricalTest, LogProbAndEntropyMatchClosedForm) {
  const at::Tensor logits = at::tensor({0.0f, std::log(3.0f)}).view({1, 2});  // p = 1/4, 3/4
  const Categorical dist(logits);
  EXPECT_NEAR(dist.log_prob(at::tensor({int64_t{1}})).item<double>(), std::log(0.75), 1e-6);
  EXPECT_NEAR(dist.log_prob(at::tensor({int64_t{0}})).item<double>(), std::log(0.25), 1e-6);
  const double entropy = -(0.25 * std::log(0.25) + 0.75 * std::log(0.75));
  EXPECT_NEAR(dist.entropy().item<double>(), entropy, 1e-6);
  EXPECT_EQ(dist.mode().item<std::int64_t>(), 1);
}

TEST(CategoricalTest, SamplesFollowTheProbabilities) {
  torch::manual_seed(3);
  const at::Tensor logits = at::tensor({0.0f, std::log(3.0f)}).view({1, 2}).expand({20000, 2});
  const double ones = Categorical(logits).sample().to(at::kDouble).mean().item<double>();
  EXPECT_NEAR(ones, 0.75, 0.015);
}

TEST(FlatParametersTest, ParametersAndGradientsAliasTheFlatBuffers) {
  torch::manual_seed(0);
  ActorCritic model(ActorCriticOptions(4, 2).hidden_sizes({8}));
  const at::Tensor before = model->forward(at::ones({2, 4})).policy.detach().clone();
  FlatParameters flat(*model);
  // Flattening keeps the values.
  EXPECT_TRUE(at::allclose(model->forward(at::ones({2, 4})).policy, before));

  std::int64_t total = 0;
  for (const auto& p : model->parameters()) total += p.numel();
  EXPECT_EQ(flat.numel(), total);

  // Writing the flat buffer changes the module.
  {
    torch::NoGradGuard no_grad;
    flat.values().zero_();
  }
  EXPECT_EQ(model->forward(at::ones({2, 4})).policy.abs().sum().item<double>(), 0.0);

  // Backward accumulates into the flat gradient buffer, twice -> doubled; zero_grad clears it.
  {
    torch::NoGradGuard no_grad;
    flat.values().fill_(0.1);
  }
  model->forward(at::ones({2, 4})).value.sum().backward();
  const at::Tensor once = flat.gradients().clone();
  EXPECT_GT(once.abs().sum().item<double>(), 0.0);
  model->forward(at::ones({2, 4})).value.sum().backward();
  EXPECT_TRUE(at::allclose(flat.gradients(), 2 * once));
  flat.zero_grad();
  EXPECT_EQ(flat.gradients().abs().sum().item<double>(), 0.0);
}

TEST(FlatParametersTest, AdamOnTheFlatBufferEqualsAdamPerParameter) {
  const auto make = [] {
    torch::manual_seed(7);
    return ActorCritic(ActorCriticOptions(3, 2).hidden_sizes({5, 5}));
  };
  ActorCritic reference = make();
  ActorCritic flattened = make();
  FlatParameters flat(*flattened);
  torch::optim::Adam reference_adam(reference->parameters(), torch::optim::AdamOptions(1e-2));
  torch::optim::Adam flat_adam({flat.values()}, torch::optim::AdamOptions(1e-2));

  torch::manual_seed(1);
  for (int step = 0; step < 5; ++step) {
    const at::Tensor x = at::randn({4, 3});
    reference_adam.zero_grad();
    reference->forward(x).policy.pow(2).sum().backward();
    reference_adam.step();
    flat.zero_grad();
    flattened->forward(x).policy.pow(2).sum().backward();
    flat_adam.step();
  }
  const auto a = reference->parameters();
  const auto b = flattened->parameters();
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::allclose(a[i], b[i], 1e-6, 1e-7));
}

}  // namespace
}  // namespace mnrl::nn
