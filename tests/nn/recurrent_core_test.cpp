// The recurrent core of an actor-critic: a sequence replayed at once equals the same steps taken
// one by one, and an episode start forgets what was carried into it.
#include "nn/recurrent_core.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/full.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>
#include <torch/utils.h>

#include <ostream>

#include "nn/actor_critic.h"
#include "nn/flat_parameters.h"
#include "nn/recurrent_core_pass.h"

namespace mnrl::nn {
namespace {

constexpr std::int64_t kSteps = 7, kBatch = 3, kInputs = 5, kHidden = 4;

struct CoreCase {
  RecurrentCell cell;
  std::int64_t layers;
  bool shared;
};

void PrintTo(const CoreCase& c, std::ostream* os) {
  *os << (c.cell == RecurrentCell::lstm ? "lstm" : "gru") << " x" << c.layers
      << (c.shared ? " shared" : " separate");
}

class RecurrentCoreTest : public ::testing::TestWithParam<CoreCase> {
 protected:
  RecurrentCore make_core() const {
    torch::manual_seed(11);
    return RecurrentCore(RecurrentCoreOptions(kInputs, kHidden)
                             .cell(GetParam().cell)
                             .layers(GetParam().layers)
                             .shared(GetParam().shared));
  }
};

// Episode starts inside the sequence: env 0 at steps 2 and 5, env 2 at step 4 (a step where
// another env continues), none for env 1.
at::Tensor episode_starts() {
  at::Tensor starts = at::zeros({kSteps, kBatch});
  starts[2][0] = 1;
  starts[5][0] = 1;
  starts[4][2] = 1;
  return starts;
}

TEST_P(RecurrentCoreTest, StateHoldsEveryLayerOfEveryRnn) {
  const CoreCase c = GetParam();
  const std::int64_t per_layer = c.cell == RecurrentCell::lstm ? 2 : 1;
  EXPECT_EQ(make_core()->state_size(), (c.shared ? 1 : 2) * c.layers * per_layer * kHidden);
}

TEST_P(RecurrentCoreTest, ASequenceEqualsItsStepsTakenOneByOne) {
  RecurrentCore core = make_core();
  torch::NoGradGuard no_grad;
  const at::Tensor inputs = at::randn({kSteps, kBatch, kInputs});
  const at::Tensor state = at::randn({kBatch, core->state_size()});
  const at::Tensor starts = episode_starts();
  const RecurrentOutput whole = core->forward(inputs, starts, state);

  at::Tensor carried = state;
  std::vector<at::Tensor> policy, value;
  for (std::int64_t t = 0; t < kSteps; ++t) {
    const RecurrentOutput step =
        core->forward(inputs.slice(0, t, t + 1), starts.slice(0, t, t + 1), carried);
    policy.push_back(step.policy_features);
    value.push_back(step.value_features);
    carried = step.state;
  }
  EXPECT_TRUE(at::allclose(whole.policy_features, at::cat(policy), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(whole.value_features, at::cat(value), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(whole.state, carried, 1e-5, 1e-6));
  EXPECT_EQ(whole.policy_features.sizes(), (at::IntArrayRef{kSteps, kBatch, kHidden}));
  // Separate RNNs see the same inputs but have their own weights.
  EXPECT_EQ(GetParam().shared, at::allclose(whole.policy_features, whole.value_features));
}

TEST_P(RecurrentCoreTest, AnEpisodeStartForgetsTheCarriedState) {
  RecurrentCore core = make_core();
  torch::NoGradGuard no_grad;
  const at::Tensor inputs = at::randn({kSteps, kBatch, kInputs});
  const at::Tensor starts = episode_starts();
  const RecurrentOutput from_one =
      core->forward(inputs, starts, at::randn({kBatch, core->state_size()}));
  const RecurrentOutput from_other =
      core->forward(inputs, starts, at::randn({kBatch, core->state_size()}));
  // Env 0 restarts at step 2: from there on, what it carried in makes no difference...
  const auto env0 = [](const RecurrentOutput& o, std::int64_t from) {
    return o.policy_features.slice(0, from).select(1, 0);
  };
  EXPECT_TRUE(at::allclose(env0(from_one, 2), env0(from_other, 2)));
  // ...and from its start it is where a zero state puts it.
  const RecurrentOutput fresh = core->forward(inputs.slice(0, 2, 5), at::zeros({3, kBatch}),
                                              at::zeros({kBatch, core->state_size()}));
  EXPECT_TRUE(at::allclose(env0(from_one, 2).slice(0, 0, 3), fresh.policy_features.select(1, 0),
                           1e-5, 1e-6));
  // Env 1 never restarts: its outputs keep depending on the state it started from.
  EXPECT_FALSE(at::allclose(from_one.policy_features.select(1, 1).slice(0, kSteps - 1),
                            from_other.policy_features.select(1, 1).slice(0, kSteps - 1)));
}

TEST_P(RecurrentCoreTest, NoGradientCrossesAnEpisodeStart) {
  RecurrentCore core = make_core();
  const at::Tensor inputs = at::randn({kSteps, kBatch, kInputs});
  const at::Tensor state = at::randn({kBatch, core->state_size()}).requires_grad_(true);
  const RecurrentOutput out = core->forward(inputs, episode_starts(), state);
  // Env 0's outputs after its first restart, and env 2's after its: nothing of the state
  // before them reaches them.
  (out.policy_features.slice(0, 2).select(1, 0).sum() +
   out.value_features.slice(0, 4).select(1, 2).sum())
      .backward();
  EXPECT_EQ(state.grad()[0].abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(state.grad()[2].abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(state.grad()[1].abs().sum().item<float>(), 0.0f);  // env 1's rows were not used
}

// The hand-written pass gives autograd's features, memory after the last step, parameter
// gradients and input gradients, with episode starts inside the sequence and at its first step.
TEST_P(RecurrentCoreTest, TheHandWrittenPassMatchesAutograd) {
  RecurrentCore core = make_core();
  FlatParameters parameters(*core);
  const std::int64_t rows = kSteps * kBatch;
  const at::Tensor inputs = at::randn({rows, kInputs}).requires_grad_(true);
  const at::Tensor state = at::randn({kBatch, core->state_size()});
  at::Tensor starts = episode_starts();
  starts[0][1] = 1;  // env 1 forgets the state it was given
  const at::Tensor policy_weights = at::randn({kSteps, kBatch, kHidden});
  const at::Tensor value_weights = at::randn({kSteps, kBatch, kHidden});
  const RecurrentOutput expected =
      core->forward(inputs.view({kSteps, kBatch, kInputs}), starts, state);
  parameters.zero_grad();
  ((expected.policy_features * policy_weights).sum() +
   (expected.value_features * value_weights).sum())
      .backward();
  const at::Tensor expected_gradients = parameters.gradients().clone();
  parameters.gradients().fill_(123.0f);  // the pass must overwrite every gradient

  RecurrentCorePass pass(core, kSteps, kBatch);
  const at::Tensor flat_starts = starts.reshape({-1}).contiguous();
  const at::Tensor pass_inputs = inputs.detach().clone();
  pass.forward(pass_inputs, flat_starts.data_ptr<float>(), state.data_ptr<float>());
  const auto rows_of = [&](const at::Tensor& t) { return t.detach().reshape({rows, kHidden}); };
  EXPECT_TRUE(at::allclose(pass.policy_features(), rows_of(expected.policy_features), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(pass.value_features(), rows_of(expected.value_features), 1e-5, 1e-6));
  at::Tensor state_after = at::full({kBatch, core->state_size()}, 7.0f);
  pass.write_state(state_after.data_ptr<float>());
  EXPECT_TRUE(at::allclose(state_after, expected.state.detach(), 1e-5, 1e-6));

  if (pass.shared()) {
    pass.policy_features_gradient().copy_(rows_of(policy_weights + value_weights));
  } else {
    pass.policy_features_gradient().copy_(rows_of(policy_weights));
    pass.value_features_gradient().copy_(rows_of(value_weights));
  }
  at::Tensor input_gradient = at::full({rows, kInputs}, 5.0f);
  pass.backward(&input_gradient);
  EXPECT_TRUE(at::allclose(parameters.gradients(), expected_gradients, 1e-4, 1e-5))
      << "max difference "
      << (parameters.gradients() - expected_gradients).abs().max().item<float>();
  EXPECT_TRUE(at::allclose(input_gradient, inputs.grad(), 1e-4, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(Cells, RecurrentCoreTest,
                         ::testing::Values(CoreCase{RecurrentCell::lstm, 1, false},
                                           CoreCase{RecurrentCell::lstm, 2, true},
                                           CoreCase{RecurrentCell::gru, 1, true},
                                           CoreCase{RecurrentCell::gru, 2, false}));

// An actor-critic with memory takes rows [step][batch] and gives the same heads as stepping.
TEST(RecurrentActorCriticTest, RowsOfASequenceEqualStepByStepOutputs) {
  torch::manual_seed(5);
  ActorCritic model(
      ActorCriticOptions(kInputs, 2).hidden_sizes({6}).recurrent(RecurrentCoreOptions(0, kHidden)));
  torch::NoGradGuard no_grad;
  const at::Tensor observations = at::randn({kSteps * kBatch, kInputs});
  const at::Tensor starts = episode_starts().reshape({-1});
  const at::Tensor state = at::randn({kBatch, model->state_size()});
  at::Tensor after;
  const PolicyValue whole = model->forward(observations, starts, state, &after);
  at::Tensor carried = state;
  for (std::int64_t t = 0; t < kSteps; ++t) {
    const PolicyValue step =
        model->forward(observations.slice(0, t * kBatch, (t + 1) * kBatch),
                       starts.slice(0, t * kBatch, (t + 1) * kBatch), carried, &carried);
    EXPECT_TRUE(
        at::allclose(whole.policy.slice(0, t * kBatch, (t + 1) * kBatch), step.policy, 1e-5, 1e-6));
    EXPECT_TRUE(
        at::allclose(whole.value.slice(0, t * kBatch, (t + 1) * kBatch), step.value, 1e-5, 1e-6));
  }
  EXPECT_TRUE(at::allclose(after, carried, 1e-5, 1e-6));
  EXPECT_THROW(model->forward(observations), c10::Error);  // a memory is needed
}

// The optimizers step a flat buffer the parameters were moved into (FlatParameters): the
// RNNs must compute with the buffer's values, not with the tensors they were built with.
TEST(RecurrentActorCriticTest, FlatParametersReachTheRecurrentLayers) {
  const auto make = [] {
    torch::manual_seed(9);
    return ActorCritic(ActorCriticOptions(kInputs, 2)
                           .hidden_sizes({6})
                           .recurrent(RecurrentCoreOptions(0, kHidden)));
  };
  ActorCritic flat = make();
  FlatParameters parameters(*flat);
  ActorCritic plain = make();
  torch::NoGradGuard no_grad;
  parameters.values().add_(0.25);
  for (auto& p : plain->parameters()) p.add_(0.25);
  const at::Tensor observations = at::randn({kSteps * kBatch, kInputs});
  const at::Tensor starts = at::zeros({kSteps * kBatch});
  const at::Tensor state = at::zeros({kBatch, flat->state_size()});
  const PolicyValue a = flat->forward(observations, starts, state);
  const PolicyValue b = plain->forward(observations, starts, state);
  EXPECT_TRUE(at::allclose(a.policy, b.policy, 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(a.value, b.value, 1e-5, 1e-6));
}

}  // namespace
}  // namespace mnrl::nn
