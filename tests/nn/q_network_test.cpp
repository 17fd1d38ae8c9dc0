#include "nn/q_network.h"

#include <gtest/gtest.h>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/randn.h>
#include <torch/utils.h>

namespace mnrl::nn {
namespace {

TEST(QNetworkTest, GivesOneValuePerAction) {
  torch::manual_seed(0);
  QNetwork q(QNetworkOptions(4, 3).hidden_sizes({16, 16}));
  EXPECT_EQ(q->forward(at::randn({5, 4})).sizes(), (std::vector<std::int64_t>{5, 3}));
  EXPECT_EQ(q->named_parameters().size(), 6u);  // two hidden layers and the head
}

TEST(QNetworkTest, DuelingHeadCombinesValueAndCenteredAdvantages) {
  torch::manual_seed(0);
  QNetwork q(QNetworkOptions(4, 3).hidden_sizes({8}).dueling(true));
  const auto parameters = q->named_parameters();
  ASSERT_TRUE(parameters.contains("value_head.weight"));
  torch::NoGradGuard no_grad;
  const at::Tensor x = at::randn({6, 4});
  const at::Tensor values = q->forward(x);
  // The mean over actions of V + A - mean(A) is V.
  const at::Tensor features = q->named_children()[0].value()->as<MlpImpl>()->forward(x);
  const at::Tensor v = at::linear(features, parameters["value_head.weight"],
                                  parameters["value_head.bias"]).squeeze(-1);
  EXPECT_TRUE(at::allclose(values.mean(-1), v, 1e-5, 1e-6));
  // And differences between actions are the advantage head's.
  const at::Tensor a = at::linear(features, parameters["advantage_head.weight"],
                                  parameters["advantage_head.bias"]);
  EXPECT_TRUE(at::allclose(values.select(1, 0) - values.select(1, 2),
                           a.select(1, 0) - a.select(1, 2), 1e-5, 1e-6));
}

}  // namespace
}  // namespace mnrl::nn
