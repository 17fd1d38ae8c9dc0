#include "nn/compute_threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <ATen/ops/cat.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/randn.h>
#include <torch/utils.h>

#include "nn/actor_critic_pass.h"
#include "nn/flat_parameters.h"
#include "nn/fused_adam.h"
#include "nn/q_network_pass.h"

namespace mnrl::nn {
namespace {

// The pool is per process: every test leaves it at one thread, as it found it.
class ComputeThreadsTest : public ::testing::Test {
 protected:
  void TearDown() override { set_compute_threads(1); }
};

// Waits up to 10 s for `flag`; true if it was set.
bool wait_for(const std::atomic<bool>& flag) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST_F(ComputeThreadsTest, RunsBothPiecesAtOnceWithTwoThreads) {
  set_compute_threads(2);
  std::atomic<bool> first_started{false}, second_started{false};
  bool first_saw_second = false, second_saw_first = false;
  // Each piece waits for the other to have started: only two threads can finish this.
  run_both(kWorthASecondThread,
           [&] { first_started = true; first_saw_second = wait_for(second_started); },
           [&] { second_started = true; second_saw_first = wait_for(first_started); });
  EXPECT_TRUE(first_saw_second);
  EXPECT_TRUE(second_saw_first);
}

TEST_F(ComputeThreadsTest, RunsThePiecesInOrderOnTheCallersThreadWithOneThread) {
  std::vector<int> order;
  const auto caller = std::this_thread::get_id();
  bool on_caller = true;
  run_both(kWorthASecondThread,
           [&] { order.push_back(1); on_caller &= std::this_thread::get_id() == caller; },
           [&] { order.push_back(2); on_caller &= std::this_thread::get_id() == caller; });
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_TRUE(on_caller);
}

TEST_F(ComputeThreadsTest, PiecesTooSmallForAHandOffRunOnTheCallersThread) {
  set_compute_threads(2);
  const auto caller = std::this_thread::get_id();
  bool on_caller = true;
  const auto piece = [&] { on_caller &= std::this_thread::get_id() == caller; };
  for (int i = 0; i < 100; ++i) run_both(kWorthASecondThread - 1, piece, piece);
  EXPECT_TRUE(on_caller);
}

TEST_F(ComputeThreadsTest, ACallFromInsideAPieceRunsOnThatPiecesThread) {
  set_compute_threads(2);
  std::atomic<int> nested_on_own_thread{0};
  const auto nested = [&] {
    const auto outer = std::this_thread::get_id();
    const auto count = [&] { nested_on_own_thread += std::this_thread::get_id() == outer; };
    run_both(kWorthASecondThread, count, count);
  };
  run_both(kWorthASecondThread, nested, nested);
  EXPECT_EQ(nested_on_own_thread.load(), 4);
}

TEST_F(ComputeThreadsTest, ACallWhileAnotherThreadUsesThePoolRunsOnItsOwnThread) {
  set_compute_threads(2);
  std::atomic<bool> pool_busy{false}, other_done{false};
  bool other_on_own_thread = true;
  std::thread other([&] {
    wait_for(pool_busy);
    const auto self = std::this_thread::get_id();
    const auto piece = [&] { other_on_own_thread &= std::this_thread::get_id() == self; };
    run_both(kWorthASecondThread, piece, piece);
    other_done = true;
  });
  // The pool stays busy until the other thread's call has finished without it.
  bool other_finished = false;
  run_both(kWorthASecondThread, [&] { pool_busy = true; other_finished = wait_for(other_done); },
           [] {});
  other.join();
  EXPECT_TRUE(other_finished);
  EXPECT_TRUE(other_on_own_thread);
}

TEST_F(ComputeThreadsTest, RethrowsAPiecesExceptionAfterBothFinished) {
  set_compute_threads(2);
  std::atomic<bool> second_finished{false};
  EXPECT_THROW(run_both(kWorthASecondThread, [] { throw std::runtime_error("first"); },
                        [&] {
                          std::this_thread::sleep_for(std::chrono::milliseconds(20));
                          second_finished = true;
                        }),
               std::runtime_error);
  EXPECT_TRUE(second_finished.load());
}

TEST_F(ComputeThreadsTest, RefusesFewerThanOneThread) {
  EXPECT_THROW(set_compute_threads(0), std::invalid_argument);
  EXPECT_EQ(compute_threads(), 1);
}

// The gradients a QNetworkPass writes after a forward over random observations.
at::Tensor q_network_gradients(bool dueling) {
  torch::manual_seed(5);
  // Large enough that the second layer's gradients split (64 x 256 x 256 multiply-adds).
  QNetwork network(QNetworkOptions(6, 4).hidden_sizes({256, 256}).dueling(dueling));
  FlatParameters parameters(*network);
  const std::int64_t batch = 64;
  const at::Tensor observations = at::randn({batch, 6});
  const at::Tensor q_gradients = at::randn({batch, 4});
  QNetworkPass pass(network, batch);
  pass.forward(observations.data_ptr<float>());
  pass.backward(q_gradients.data_ptr<float>());
  return parameters.gradients().clone();
}

TEST_F(ComputeThreadsTest, QNetworkGradientsAreTheSameBitsOnTwoThreads) {
  for (const bool dueling : {false, true}) {
    const at::Tensor one_thread = q_network_gradients(dueling);
    set_compute_threads(2);
    const at::Tensor two_threads = q_network_gradients(dueling);
    set_compute_threads(1);
    EXPECT_TRUE(at::equal(one_thread, two_threads)) << "dueling " << dueling;
  }
}

// The outputs and gradients of an ActorCriticPass over random observations and output gradients.
at::Tensor actor_critic_results(bool shared_trunk) {
  torch::manual_seed(6);
  // Large enough that the trunks and the layers' gradients split (256 x 128 x 128 and more).
  ActorCritic model(ActorCriticOptions(5, 3).hidden_sizes({128, 128}).shared_trunk(shared_trunk));
  FlatParameters parameters(*model);
  const std::int64_t batch = 256;
  const at::Tensor observations = at::randn({batch, 5});
  const at::Tensor policy_gradient = at::randn({batch, 3});
  const at::Tensor value_gradient = at::randn({batch});
  ActorCriticPass pass(model, batch);
  pass.forward(observations.data_ptr<float>());
  std::copy_n(policy_gradient.data_ptr<float>(), batch * 3, pass.policy_output_gradient());
  std::copy_n(value_gradient.data_ptr<float>(), batch, pass.value_gradient());
  const at::Tensor outputs = at::cat({at::from_blob(const_cast<float*>(pass.policy_output()),
                                                    {batch * 3}).clone(),
                                      at::from_blob(const_cast<float*>(pass.values()),
                                                    {batch}).clone()});
  pass.backward();
  return at::cat({outputs, parameters.gradients()});
}

TEST_F(ComputeThreadsTest, ActorCriticOutputsAndGradientsAreTheSameBitsOnTwoThreads) {
  for (const bool shared_trunk : {false, true}) {
    const at::Tensor one_thread = actor_critic_results(shared_trunk);
    set_compute_threads(2);
    const at::Tensor two_threads = actor_critic_results(shared_trunk);
    set_compute_threads(1);
    EXPECT_TRUE(at::equal(one_thread, two_threads)) << "shared trunk " << shared_trunk;
  }
}

// A parameter large enough that FusedAdam splits its update, after a few steps.
at::Tensor adam_result() {
  torch::manual_seed(7);
  at::Tensor parameter = at::randn({70001}).requires_grad_();
  FusedAdam adam({parameter}, torch::optim::AdamOptions(1e-2));
  for (int i = 0; i < 5; ++i) {
    parameter.mutable_grad() = at::randn({70001});
    adam.step();
  }
  return parameter.detach().clone();
}

TEST_F(ComputeThreadsTest, FusedAdamIsTheSameBitsOnTwoThreads) {
  const at::Tensor one_thread = adam_result();
  set_compute_threads(2);
  EXPECT_TRUE(at::equal(one_thread, adam_result()));
}

}  // namespace
}  // namespace mnrl::nn
