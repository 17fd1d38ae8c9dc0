// R2D2's loss on hand-made sequences: burn-in steps pass no gradient (except in sequences that
// begin an episode), and targets are n-step returns within the sequence, bootstrapped from the
// target network unless the episode terminated, with priorities mixing max and mean |TD error|.
#include "agents/r2d2/r2d2_loss.h"

#include "nn/flat_parameters.h"

#include <ATen/ops/all.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <gtest/gtest.h>
#include <torch/nn/init.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <vector>

namespace mnrl::agents {
namespace {

constexpr std::int64_t kSequenceLength = 6, kSequenceCount = 2, kSequenceObservation = 3,
                       kSequenceActions = 2;

nn::RecurrentQNetwork make_recurrent_q_network() {
  torch::manual_seed(11);
  return nn::RecurrentQNetwork(nn::RecurrentQNetworkOptions(kSequenceObservation, kSequenceActions,
                                                            nn::RecurrentCoreOptions(0, 8))
                                   .hidden_sizes({16}));
}

// Two sequences of kSequenceLength steps: the first begins an episode, the second does not; the
// second's episode terminated after its 4th step (2 steps of padding).
replay::SequenceBatch hand_made_sequences(std::int64_t state_size) {
  replay::SequenceBatch batch;
  batch.size = kSequenceCount;
  for (std::int64_t i = 0; i < (kSequenceLength + 1) * kSequenceCount * kSequenceObservation; ++i) {
    batch.observations.push_back(std::sin(0.7f * static_cast<float>(i)));
  }
  for (std::int64_t t = 0; t < kSequenceLength; ++t) {
    for (std::int64_t b = 0; b < kSequenceCount; ++b) {
      const bool padding = b == 1 && t >= 4;
      batch.actions.push_back(padding ? 0.0f : static_cast<float>((t + b) % kSequenceActions));
      batch.rewards.push_back(padding ? 0.0f : 1.0f + static_cast<float>(t) + 10.0f * b);
    }
  }
  batch.states.assign(static_cast<std::size_t>(kSequenceCount * state_size), 0.0f);
  for (std::int64_t i = state_size; i < 2 * state_size; ++i) batch.states[i] = 0.3f;
  batch.steps = {kSequenceLength, 4};
  batch.terminated = {0, 1};
  batch.episode_start = {1, 0};
  batch.indices = {0, 1};
  batch.weights = {1.0f, 1.0f};
  return batch;
}

SequenceTensors sequence_tensors_of(replay::SequenceBatch& batch, std::int64_t state_size) {
  return {torch::from_blob(batch.observations.data(),
                           {(kSequenceLength + 1) * kSequenceCount, kSequenceObservation})
              .clone(),
          torch::from_blob(batch.states.data(), {kSequenceCount, state_size}).clone(),
          torch::from_blob(batch.weights.data(), {kSequenceCount}).clone()};
}

TEST(R2d2LossTest, BurnInStepsPassNoGradientUnlessTheSequenceBeginsAnEpisode) {
  nn::RecurrentQNetwork online = make_recurrent_q_network(), target = make_recurrent_q_network();
  replay::SequenceBatch batch = hand_made_sequences(online->state_size());
  SequenceTensors tensors = sequence_tensors_of(batch, online->state_size());
  tensors.observations.requires_grad_(true);
  R2d2LossOptions options;
  options.burn_in = 2;
  options.n_step = 2;
  r2d2_loss(*online, *target, batch, tensors, options).loss.backward();
  const at::Tensor gradient = tensors.observations.grad()
                                  .view({kSequenceLength + 1, kSequenceCount, kSequenceObservation})
                                  .abs()
                                  .sum(2);
  for (std::int64_t t = 0; t < 2; ++t) {
    EXPECT_GT(gradient[t][0].item<float>(), 0.0f) << "step " << t;  // an episode's start: trained
    EXPECT_EQ(gradient[t][1].item<float>(), 0.0f) << "step " << t;  // burn-in only
  }
  for (std::int64_t t = 2; t < 4; ++t) {
    EXPECT_GT(gradient[t][1].item<float>(), 0.0f) << "step " << t;
  }
  for (std::int64_t t = 4; t <= kSequenceLength; ++t) {  // padding, and the terminal observation
    EXPECT_EQ(gradient[t][1].item<float>(), 0.0f) << "step " << t;
  }
}

// With every weight zero the online network's Q is 0 and the target network's is its head's
// bias c: the TD errors are the targets themselves, computed here by hand.
// With value rescaling the outputs are h(Q): a target is h(rewards + discount h^-1(output)).
TEST(R2d2LossTest, NStepTargetsWithinTheSequenceAndPriorities) {
  for (const bool rescaling : {false, true}) {
    SCOPED_TRACE(rescaling ? "value rescaling" : "plain values");
    nn::RecurrentQNetwork online = make_recurrent_q_network(), target = make_recurrent_q_network();
    constexpr float c = 5.0f;
    {
      torch::NoGradGuard no_grad;
      for (auto& p : online->parameters()) p.zero_();
      for (auto& p : target->parameters()) p.zero_();
      target->advantage_head()->bias.fill_(c);
    }
    replay::SequenceBatch batch = hand_made_sequences(online->state_size());
    const SequenceTensors tensors = sequence_tensors_of(batch, online->state_size());
    R2d2LossOptions options;
    options.burn_in = 2;
    options.n_step = 3;
    options.gamma = 0.5;
    options.huber = false;
    options.priority_eta = 0.25;
    options.value_rescaling = rescaling;
    const R2d2Loss loss = r2d2_loss(*online, *target, batch, tensors, options);

    // Sequence 0 (rewards 1..6, trained from step 0, not terminated: every target bootstraps).
    // Sequence 1 (rewards 11..14, trained from step 2, terminated after step 3: no bootstrap).
    const auto reward = [&](std::int64_t t, std::int64_t b) {
      return batch.rewards[t * kSequenceCount + b];
    };
    const auto h = [&](double x) { return rescaling ? rescaled_value(x) : x; };
    const double bootstrap = rescaling ? unrescaled_value(c) : c;
    std::vector<double> errors[2];
    for (std::int64_t t = 0; t < kSequenceLength; ++t) {
      const std::int64_t m = std::min<std::int64_t>(3, kSequenceLength - t);
      double g = 0, discount = 1;
      for (std::int64_t k = 0; k < m; ++k, discount *= 0.5) g += discount * reward(t + k, 0);
      errors[0].push_back(h(g + discount * bootstrap));
    }
    errors[1].push_back(h(reward(2, 1) + 0.5 * reward(3, 1)));  // step 2: 2 steps to the end
    errors[1].push_back(h(reward(3, 1)));                       // step 3: the last
    double squares = 0, count = 0;
    std::vector<double> expected_priorities;
    for (const auto& sequence : errors) {
      double largest = 0, sum = 0;
      for (const double e : sequence) {
        squares += e * e;
        largest = std::max(largest, e);
        sum += e;
        ++count;
      }
      expected_priorities.push_back(0.25 * largest +
                                    0.75 * sum / static_cast<double>(sequence.size()));
    }
    EXPECT_NEAR(loss.td_loss, squares / count, 1e-3);
    ASSERT_EQ(loss.priorities.size(), 2u);
    EXPECT_NEAR(loss.priorities[0], expected_priorities[0], 1e-4);
    EXPECT_NEAR(loss.priorities[1], expected_priorities[1], 1e-4);
    EXPECT_EQ(loss.q_values, 0.0);
  }
}

// h(x) = sign(x) (sqrt(|x| + 1) - 1) + 0.001 x, and its inverse undoes it.
TEST(R2d2LossTest, ValueRescalingAndItsInverse) {
  EXPECT_EQ(rescaled_value(0.0), 0.0);
  EXPECT_NEAR(rescaled_value(3.0), 1.003, 1e-12);
  EXPECT_NEAR(rescaled_value(-8.0), -2.008, 1e-12);
  for (const double x : {-1000.0, -37.5, -1.0, -1e-3, 0.0, 0.25, 1.0, 99.0, 1e4}) {
    EXPECT_NEAR(unrescaled_value(rescaled_value(x)), x, 1e-9 * std::max(1.0, std::abs(x))) << x;
  }
}

struct HandWrittenCase {
  const char* name;
  nn::RecurrentCell cell;
  std::int64_t layers;
  bool dueling, huber, double_q, rescaling;
  std::int64_t sequences;  // 1-3 go through the few-rows products
  bool encoder = false;    // 2 x 4 x 4 images through a convolutional encoder
};

void PrintTo(const HandWrittenCase& c, std::ostream* os) { *os << c.name; }

class R2d2HandWrittenLossTest : public ::testing::TestWithParam<HandWrittenCase> {};

// Random sequences of random networks: the hand-written loss gives autograd's loss, priorities,
// mean Q and gradient of every online parameter (burn-in cut where a sequence began
// mid-episode), and writes nothing without `differentiate`.
TEST_P(R2d2HandWrittenLossTest, MatchesAutograd) {
  const HandWrittenCase& c = GetParam();
  const std::int64_t n = c.sequences, length = 7, actions = 3;
  const std::int64_t observation_size = c.encoder ? 2 * 4 * 4 : 4;
  const auto make = [&](std::uint64_t seed) {
    torch::manual_seed(seed);
    nn::RecurrentQNetworkOptions options(
        observation_size, actions,
        nn::RecurrentCoreOptions(0, 6).cell(c.cell).layers(c.layers));
    options.hidden_sizes({8}).dueling(c.dueling);
    if (c.encoder) {
      options.encoder(nn::ConvEncoderOptions({2, 4, 4}).channels({3}).kernel_sizes({3}).strides({1}).features(10));
    }
    return nn::RecurrentQNetwork(options);
  };
  nn::RecurrentQNetwork online = make(3), target = make(4);
  nn::FlatParameters parameters(*online);
  nn::FlatParameters target_parameters(*target);
  torch::manual_seed(5);
  replay::SequenceBatch batch;
  batch.size = n;
  const at::Tensor observations = at::rand({(length + 1) * n, observation_size});
  batch.observations.assign(observations.data_ptr<float>(),
                            observations.data_ptr<float>() + observations.numel());
  const at::Tensor states = at::randn({n, online->state_size()}) * 0.5;
  batch.states.assign(states.data_ptr<float>(), states.data_ptr<float>() + states.numel());
  for (std::int64_t b = 0; b < n; ++b) {
    batch.steps.push_back(b % 3 == 1 ? length - 3 : length);  // some end early, padded
    batch.terminated.push_back(b % 2);
    batch.episode_start.push_back(b % 3 == 2);
    batch.indices.push_back(b);
    batch.weights.push_back(0.5f + 0.25f * static_cast<float>(b));
  }
  for (std::int64_t t = 0; t < length; ++t) {
    for (std::int64_t b = 0; b < n; ++b) {
      const bool padding = t >= batch.steps[b];
      batch.actions.push_back(padding ? 0.0f : static_cast<float>((t * 7 + b) % actions));
      batch.rewards.push_back(padding ? 0.0f : std::sin(static_cast<float>(t + 3 * b)) * 2.0f);
    }
  }
  R2d2LossOptions options;
  options.burn_in = 2;
  options.n_step = 3;
  options.huber = c.huber;
  options.double_q = c.double_q;
  options.value_rescaling = c.rescaling;
  options.priority_eta = 0.8;

  const SequenceTensors tensors{observations, states, at::tensor(batch.weights)};
  parameters.zero_grad();
  const R2d2Loss expected = r2d2_loss(*online, *target, batch, tensors, options);
  expected.loss.backward();
  const at::Tensor expected_gradients = parameters.gradients().clone();

  nn::RecurrentQNetworkPass online_pass(online, length + 1, n), target_pass(target, length + 1, n);
  parameters.gradients().fill_(123.0f);
  const R2d2Loss measured = r2d2_loss_by_hand(online_pass, target_pass, batch, options, false);
  EXPECT_TRUE(at::all(parameters.gradients() == 123.0f).item<bool>()) << "no gradient asked for";
  const R2d2Loss loss = r2d2_loss_by_hand(online_pass, target_pass, batch, options, true);

  EXPECT_NEAR(loss.td_loss, expected.td_loss, 1e-5 * (1.0 + std::abs(expected.td_loss)));
  EXPECT_NEAR(loss.q_values, expected.q_values, 1e-5);
  EXPECT_DOUBLE_EQ(measured.td_loss, loss.td_loss);
  ASSERT_EQ(loss.priorities.size(), static_cast<std::size_t>(n));
  for (std::int64_t b = 0; b < n; ++b) {
    EXPECT_NEAR(loss.priorities[b], expected.priorities[b], 1e-5) << "sequence " << b;
  }
  EXPECT_TRUE(at::allclose(parameters.gradients(), expected_gradients, 1e-4, 1e-6))
      << "max difference "
      << (parameters.gradients() - expected_gradients).abs().max().item<float>();
}

INSTANTIATE_TEST_SUITE_P(
    Networks, R2d2HandWrittenLossTest,
    ::testing::Values(
        HandWrittenCase{"LstmHuberDouble", nn::RecurrentCell::lstm, 1, false, true, true, false, 5},
        HandWrittenCase{"LstmDuelingRescaledFewSequences", nn::RecurrentCell::lstm, 1, true, true,
                        true, true, 2},
        HandWrittenCase{"GruOfTwoLayersSquaredNotDouble", nn::RecurrentCell::gru, 2, false, false,
                        false, false, 6},
        HandWrittenCase{"GruDuelingOverImages", nn::RecurrentCell::gru, 1, true, true, true, true,
                        4, true}),
    [](const ::testing::TestParamInfo<HandWrittenCase>& info) { return info.param.name; });

}  // namespace
}  // namespace mnrl::agents
