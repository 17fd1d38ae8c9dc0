// The hand-written actor-critic loss and pass against autograd: the same loss parts and the same
// gradient of every parameter, for each policy head and loss option.
#include "agents/actor_critic_loss_gradients.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <torch/utils.h>

#include "agents/actor_critic_loss.h"
#include "agents/policy_sampling.h"
#include "nn/categorical.h"
#include "nn/conv_encoder.h"
#include "nn/diag_gaussian.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {
namespace {

struct Case {
  std::string name;
  bool continuous;
  bool shared_trunk;
  nn::Activation activation;
  std::vector<std::int64_t> hidden;
  ActorCriticLossOptions loss;
  // Images: the encoder shared by both sides, whose gradient is the sum of theirs.
  std::optional<nn::ConvEncoderOptions> encoder = std::nullopt;
  // Memory: rows are sequences, with episode starts inside them and a memory to start from.
  std::optional<nn::RecurrentCoreOptions> recurrent = std::nullopt;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ActorCriticLossGradientsTest : public ::testing::TestWithParam<Case> {};

TEST_P(ActorCriticLossGradientsTest, MatchesAutograd) {
  const Case& c = GetParam();
  torch::manual_seed(7);
  // A recurrent model's rows: 6 steps of 6 sequences.
  const std::int64_t steps = c.recurrent ? 6 : 1, batch = c.recurrent ? 36 : 37, action_size = 3;
  const std::int64_t observation_size =
      c.encoder ? c.encoder->image_shape()[0] * c.encoder->image_shape()[1] * c.encoder->image_shape()[2]
                : 5;
  nn::ActorCritic model(nn::ActorCriticOptions(observation_size, action_size)
                            .encoder(c.encoder)
                            .recurrent(c.recurrent)
                            .hidden_sizes(c.hidden)
                            .activation(c.activation)
                            .shared_trunk(c.shared_trunk)
                            .continuous(c.continuous)
                            .log_std_init(-0.3));
  nn::FlatParameters parameters(*model);
  {
    torch::NoGradGuard no_grad;
    // Heads away from 0; less over images, whose many inputs would make the outputs large.
    parameters.values().add_(at::randn({parameters.numel()}) * (c.encoder ? 0.05 : 0.3));
  }
  // Images are scaled to [0, 1].
  const at::Tensor observations = c.encoder ? at::rand({batch, observation_size})
                                            : at::randn({batch, observation_size});
  const at::Tensor actions = c.continuous ? at::randn({batch, action_size})
                                          : at::randint(action_size, {batch}, at::kLong);
  // Memory rows (the first `sequences` are read) and episode starts, some at the first step.
  const std::int64_t sequences = batch / steps;
  at::Tensor memory, episode_starts;
  if (c.recurrent) {
    memory = at::randn({batch, model->state_size()}) * 0.5;
    episode_starts = (at::rand({batch}) < 0.15).to(at::kFloat);
  }
  // Old log-probs and values off the current ones, so that ratios and values get clipped.
  at::Tensor old_log_probs, old_values;
  {
    torch::NoGradGuard no_grad;
    const nn::PolicyValue output =
        c.recurrent ? model->forward(observations, episode_starts, memory.narrow(0, 0, sequences))
                    : model->forward(observations);
    old_log_probs = model->distribution(output)->log_prob(actions) + at::randn({batch}) * 0.3;
    old_values = output.value + at::randn({batch}) * 0.5;
  }
  const at::Tensor advantages = at::randn({batch}) * 2 + 0.5;
  const at::Tensor returns = at::randn({batch});
  const RolloutBatch rollout{observations, actions, old_log_probs, old_values, advantages, returns,
                             memory,       episode_starts};

  parameters.zero_grad();
  const ActorCriticLoss expected = actor_critic_loss(*model, rollout, c.loss, sequences);
  expected.total.backward();
  const at::Tensor expected_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);  // the pass and the loss must overwrite every gradient

  const at::Tensor action_floats = actions.to(at::kFloat).contiguous();
  const RolloutRows rows{batch,
                         observations.data_ptr<float>(),
                         action_floats.data_ptr<float>(),
                         old_log_probs.data_ptr<float>(),
                         old_values.data_ptr<float>(),
                         advantages.data_ptr<float>(),
                         returns.data_ptr<float>()};
  PolicyHead head{action_size};
  at::Tensor log_std_gradient;
  if (c.continuous) {
    log_std_gradient = model->log_std().grad();
    head.log_std = model->log_std().data_ptr<float>();
    head.log_std_gradient = log_std_gradient.data_ptr<float>();
  }
  nn::ActorCriticPass pass(model, batch, steps);
  if (c.recurrent) {
    pass.forward(rows.observations, episode_starts.data_ptr<float>(), memory.data_ptr<float>());
  } else {
    pass.forward(rows.observations);
  }
  const LossValues loss = actor_critic_loss_gradients(pass, head, rows, c.loss);
  pass.backward();

  EXPECT_NEAR(loss.policy_loss, expected.policy_loss.item<double>(), 1e-5);
  EXPECT_NEAR(loss.value_loss, expected.value_loss.item<double>(), 1e-5);
  EXPECT_NEAR(loss.entropy, expected.entropy.item<double>(), 1e-5);
  EXPECT_NEAR(loss.old_approx_kl, (-expected.log_ratio).mean().item<double>(), 1e-5);
  if (c.loss.clip_range) {
    const at::Tensor change = expected.log_ratio.exp() - 1;
    const double fraction = (change.abs() > *c.loss.clip_range).to(at::kFloat).mean().item<double>();
    EXPECT_GT(fraction, 0.0) << "the case must clip some ratios";
    EXPECT_NEAR(loss.clip_fraction, fraction, 1e-6);
  }
  EXPECT_TRUE(at::allclose(parameters.gradients(), expected_gradients, 1e-4, 1e-5))
      << "max difference "
      << (parameters.gradients() - expected_gradients).abs().max().item<float>();
}

ActorCriticLossOptions ppo(std::optional<double> clip_vf, double ent_coef, bool normalize) {
  return {0.2, clip_vf, 0.5, ent_coef, normalize};
}
ActorCriticLossOptions a2c(double ent_coef, bool normalize) {
  return {std::nullopt, std::nullopt, 0.25, ent_coef, normalize};
}

INSTANTIATE_TEST_SUITE_P(
    Heads, ActorCriticLossGradientsTest,
    ::testing::Values(
        Case{"CategoricalPpo", false, false, nn::Activation::tanh, {16, 16}, ppo({}, 0, false)},
        Case{"CategoricalPpoAllOptions", false, true, nn::Activation::relu, {16, 8},
             ppo(0.2, 0.01, true)},
        Case{"CategoricalA2c", false, false, nn::Activation::tanh, {8}, a2c(0.01, false)},
        Case{"GaussianPpo", true, false, nn::Activation::tanh, {16, 16}, ppo({}, 0, true)},
        Case{"GaussianPpoAllOptions", true, true, nn::Activation::relu, {8, 8},
             ppo(0.3, 0.02, true)},
        Case{"GaussianA2c", true, false, nn::Activation::tanh, {16}, a2c(0.001, true)},
        Case{"NoHiddenLayers", false, false, nn::Activation::tanh, {}, ppo(0.2, 0.01, false)},
        // The MinAtar configs' model: the encoder straight into both heads.
        Case{"CategoricalPpoOverImages", false, false, nn::Activation::relu, {},
             ppo(0.2, 0.01, true), nn::ConvEncoderOptions::minatar({2, 6, 6})},
        Case{"CategoricalA2cOverImagesSeparateTrunks", false, false, nn::Activation::tanh, {8},
             a2c(0.01, false),
             nn::ConvEncoderOptions({3, 9, 9}).channels({4, 3}).kernel_sizes({3, 3}).strides({2, 1}).features(12)},
        Case{"GaussianPpoOverImagesSharedTrunk", true, true, nn::Activation::relu, {8},
             ppo(0.2, 0.0, false), nn::ConvEncoderOptions::minatar({2, 5, 5})},
        // Memory: separate LSTMs (SB3-contrib's default), a shared core under separate trunks
        // or one trunk, GRUs of two layers, and cores over an encoder.
        Case{"CategoricalPpoLstms", false, false, nn::Activation::relu, {16},
             ppo(0.2, 0.01, true), std::nullopt, nn::RecurrentCoreOptions(0, 8)},
        Case{"GaussianPpoSharedLstmSeparateTrunks", true, false, nn::Activation::tanh, {},
             ppo(0.2, 0.0, false), std::nullopt, nn::RecurrentCoreOptions(0, 8).shared(true)},
        Case{"GaussianA2cSharedGruOfTwoLayersSharedTrunk", true, true, nn::Activation::tanh, {8},
             a2c(0.01, true), std::nullopt,
             nn::RecurrentCoreOptions(0, 6).cell(nn::RecurrentCell::gru).layers(2).shared(true)},
        Case{"CategoricalPpoGrusOfTwoLayers", false, false, nn::Activation::relu, {8},
             ppo(0.2, 0.0, true), std::nullopt,
             nn::RecurrentCoreOptions(0, 6).cell(nn::RecurrentCell::gru).layers(2)},
        Case{"CategoricalPpoOverImagesLstms", false, false, nn::Activation::relu, {},
             ppo(0.2, 0.01, true), nn::ConvEncoderOptions::minatar({2, 6, 6}),
             nn::RecurrentCoreOptions(0, 8)},
        Case{"GaussianA2cOverImagesSharedGruSeparateTrunks", true, false, nn::Activation::tanh,
             {8}, a2c(0.01, false), nn::ConvEncoderOptions::minatar({2, 5, 5}),
             nn::RecurrentCoreOptions(0, 8).cell(nn::RecurrentCell::gru).shared(true)}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// Rollout actions drawn by hand: frequencies as the softmax says, log-probs as the distribution.
TEST(PolicySamplingTest, CategoricalDrawsFollowTheSoftmaxWithTheirLogProbs) {
  torch::manual_seed(11);
  const std::int64_t rows = 20000, n = 3;
  const std::vector<float> row_logits{0.5f, -1.0f, 1.5f};
  std::vector<float> logits;
  for (std::int64_t i = 0; i < rows; ++i) logits.insert(logits.end(), row_logits.begin(), row_logits.end());
  std::vector<float> actions(rows), log_probs(rows);
  sample_actions(PolicyHead{n}, logits.data(), rows, actions.data(), log_probs.data());

  const at::Tensor logit_tensor = at::from_blob(logits.data(), {rows, n});
  const at::Tensor probabilities = at::softmax(logit_tensor[0], 0);
  std::vector<double> counts(n, 0.0);
  for (const float a : actions) counts[static_cast<std::size_t>(a)] += 1.0;
  for (std::int64_t k = 0; k < n; ++k) {
    // 20,000 draws: the standard error of a frequency is below 0.0036.
    EXPECT_NEAR(counts[k] / rows, probabilities[k].item<double>(), 0.015) << "action " << k;
  }
  const at::Tensor indices = at::tensor(std::vector<float>(actions.begin(), actions.end())).to(at::kLong);
  const at::Tensor expected = nn::Categorical(logit_tensor).log_prob(indices);
  EXPECT_TRUE(at::allclose(at::from_blob(log_probs.data(), {rows}), expected, 1e-5, 1e-6));
}

TEST(PolicySamplingTest, GaussianDrawsHaveTheMeanAndStdWithTheirLogProbs) {
  torch::manual_seed(12);
  const std::int64_t rows = 20000, n = 2;
  std::vector<float> means;
  for (std::int64_t i = 0; i < rows; ++i) means.insert(means.end(), {1.0f, -2.0f});
  std::vector<float> log_std{-0.5f, 0.3f};
  std::vector<float> actions(rows * n), log_probs(rows);
  PolicyHead head{n};
  head.log_std = log_std.data();
  sample_actions(head, means.data(), rows, actions.data(), log_probs.data());

  const at::Tensor drawn = at::from_blob(actions.data(), {rows, n});
  const at::Tensor mean = drawn.mean(0), std_dev = drawn.std(0);
  for (std::int64_t j = 0; j < n; ++j) {
    EXPECT_NEAR(mean[j].item<double>(), means[j], 0.03) << "value " << j;
    EXPECT_NEAR(std_dev[j].item<double>(), std::exp(log_std[j]), 0.03) << "value " << j;
  }
  const at::Tensor expected =
      nn::DiagGaussian(at::from_blob(means.data(), {rows, n}), at::from_blob(log_std.data(), {n}))
          .log_prob(drawn);
  EXPECT_TRUE(at::allclose(at::from_blob(log_probs.data(), {rows}), expected, 1e-4, 1e-5));
}

}  // namespace
}  // namespace mnrl::agents
