// captured_update: how fast one PPO-shaped update runs on a GPU, eager vs captured whole (forward,
// loss, backward, gradient clipping, Adam) as one CUDA graph and replayed; and one act step
// (observations in, sampled actions out) eager vs captured. The measurement issue 44 starts from:
// the CPU's hand-written passes run PPO CartPole [64, 64] at ~23k env steps/s, cuda at ~3.5k.
//
//   captured_update [ITERATIONS]
//
// Adam is written here with its step count and bias corrections on the device: LibTorch's
// optim::Adam keeps the step on the host and bakes its bias corrections into a capture as
// constants. Each graph is checked against the same eager step from the same state first.
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <vector>

namespace {

constexpr int kObservations = 4;
constexpr int kActions = 2;

torch::nn::Sequential mlp(int width, int outputs) {
  return torch::nn::Sequential(torch::nn::Linear(kObservations, width), torch::nn::Tanh(),
                               torch::nn::Linear(width, width), torch::nn::Tanh(),
                               torch::nn::Linear(width, outputs));
}

// Adam whose step count lives on the device, so a captured step stays right on every replay.
struct DeviceAdam {
  std::vector<torch::Tensor> parameters, first_moments, second_moments;
  torch::Tensor step;
  double learning_rate = 1e-3, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;

  explicit DeviceAdam(std::vector<torch::Tensor> to_train) : parameters(std::move(to_train)) {
    for (const auto& p : parameters) {
      first_moments.push_back(torch::zeros_like(p));
      second_moments.push_back(torch::zeros_like(p));
    }
    step = torch::zeros({}, parameters.front().options());
  }
  void update() {
    torch::NoGradGuard no_grad;
    step.add_(1);
    auto first_correction = 1 - torch::pow(beta1, step);
    auto second_correction_root = torch::sqrt(1 - torch::pow(beta2, step));
    auto step_size = learning_rate / first_correction;
    for (size_t i = 0; i < parameters.size(); ++i) {
      auto& g = parameters[i].mutable_grad();
      first_moments[i].mul_(beta1).add_(g, 1 - beta1);
      second_moments[i].mul_(beta2).addcmul_(g, g, 1 - beta2);
      auto denominator = (second_moments[i].sqrt() / second_correction_root).add_(epsilon);
      parameters[i].sub_(first_moments[i] / denominator * step_size);
    }
  }
};

// Gradients scaled to a total norm of at most max_norm, without reading the norm on the host.
void clip_on_device(const std::vector<torch::Tensor>& parameters, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> squares;
  for (const auto& p : parameters) squares.push_back(p.grad().pow(2).sum());
  auto scale = (max_norm / (torch::stack(squares).sum().sqrt() + 1e-6)).clamp_max(1.0);
  for (const auto& p : parameters) p.mutable_grad().mul_(scale);
}

struct Batch {
  torch::Tensor observations, actions, old_log_probs, advantages, returns;
};

struct Learner {
  torch::nn::Sequential actor, critic;
  std::vector<torch::Tensor> parameters;
  DeviceAdam adam;
  Batch batch;

  Learner(int width, int batch_size)
      : actor(mlp(width, kActions)), critic(mlp(width, 1)), parameters(all_parameters()),
        adam(parameters) {
    auto on_gpu = torch::TensorOptions().device(torch::kCUDA);
    batch.observations = torch::randn({batch_size, kObservations}, on_gpu);
    batch.actions = torch::randint(0, kActions, {batch_size}, on_gpu.dtype(torch::kLong));
    batch.old_log_probs = torch::full({batch_size}, std::log(0.5), on_gpu);
    batch.advantages = torch::randn({batch_size}, on_gpu);
    batch.returns = torch::randn({batch_size}, on_gpu);
  }
  std::vector<torch::Tensor> all_parameters() {
    actor->to(torch::kCUDA);
    critic->to(torch::kCUDA);
    auto all = actor->parameters();
    for (auto& p : critic->parameters()) all.push_back(p);
    return all;
  }
  torch::Tensor loss() {
    auto log_probs = torch::log_softmax(actor->forward(batch.observations), 1);
    auto taken = log_probs.gather(1, batch.actions.unsqueeze(1)).squeeze(1);
    auto ratio = (taken - batch.old_log_probs).exp();
    auto surrogate = torch::min(ratio * batch.advantages,
                                ratio.clamp(0.8, 1.2) * batch.advantages);
    auto values = critic->forward(batch.observations).squeeze(1);
    auto entropy = -(log_probs.exp() * log_probs).sum(1);
    return -surrogate.mean() + 0.5 * (values - batch.returns).pow(2).mean() -
           0.0 * entropy.mean();
  }
  void update() {
    for (auto& p : parameters) p.mutable_grad() = torch::Tensor();
    loss().backward();
    clip_on_device(parameters, 0.5);
    adam.update();
  }
  std::vector<torch::Tensor> snapshot() {
    std::vector<torch::Tensor> state;
    for (auto* group : {&parameters, &adam.first_moments, &adam.second_moments})
      for (auto& t : *group) state.push_back(t.detach().clone());
    state.push_back(adam.step.clone());
    return state;
  }
  void restore(const std::vector<torch::Tensor>& state) {
    torch::NoGradGuard no_grad;
    size_t next = 0;
    for (auto* group : {&parameters, &adam.first_moments, &adam.second_moments})
      for (auto& t : *group) t.copy_(state[next++]);
    adam.step.copy_(state[next]);
  }
};

double microseconds_per_call(int iterations, const std::function<void()>& call) {
  for (int i = 0; i < 20; ++i) call();
  torch::cuda::synchronize();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) call();
  torch::cuda::synchronize();
  std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / iterations;
}

// Captures `work` on a side stream after warm-up there (autograd and the allocator settle
// first, as whole-network capture needs).
void capture(at::cuda::CUDAGraph& graph, const std::function<void()>& work) {
  torch::cuda::synchronize();
  auto side = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard on_side(side);
  for (int i = 0; i < 3; ++i) work();
  side.synchronize();
  graph.capture_begin();
  work();
  graph.capture_end();
  side.synchronize();
}

double max_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double largest = 0;
  for (size_t i = 0; i < a.size(); ++i)
    largest = std::max(largest, (a[i] - b[i]).abs().max().item<double>());
  return largest;
}

void time_update(int width, int batch_size, int iterations) {
  torch::manual_seed(1);
  Learner learner(width, batch_size);
  auto initial = learner.snapshot();

  // Eager, reading the loss on the host every step (what the cuda path does today).
  double eager_synced = microseconds_per_call(iterations, [&] {
    for (auto& p : learner.parameters) p.mutable_grad() = torch::Tensor();
    auto loss = learner.loss();
    loss.backward();
    clip_on_device(learner.parameters, 0.5);
    learner.adam.update();
    (void)loss.item<float>();
  });
  double eager = microseconds_per_call(iterations, [&] { learner.update(); });

  // The same 10 steps eager and replayed from one state must agree.
  learner.restore(initial);
  for (int i = 0; i < 10; ++i) learner.update();
  auto eager_after = learner.snapshot();
  at::cuda::CUDAGraph graph;
  learner.restore(initial);
  capture(graph, [&] { learner.update(); });
  learner.restore(initial);
  for (int i = 0; i < 10; ++i) graph.replay();
  torch::cuda::synchronize();
  double difference = max_difference(eager_after, learner.snapshot());
  double replayed = microseconds_per_call(iterations, [&] { graph.replay(); });
  std::printf("update [%4d,%4d] batch %3d: eager+sync %7.1f us, eager %7.1f us, graph %6.1f us "
              "(%.1fx), graph vs eager after 10 steps: max |diff| %.2e\n",
              width, width, batch_size, eager_synced, eager, replayed, eager_synced / replayed,
              difference);
}

// One act step of 8 envs: observations from pinned host memory, Gumbel-max sampling on the
// device (capture-safe random numbers), actions back to the host.
void time_act(int width, int iterations) {
  torch::manual_seed(1);
  torch::NoGradGuard no_grad;
  auto actor = mlp(width, kActions);
  actor->to(torch::kCUDA);
  auto host_observations = torch::randn({8, kObservations}).pin_memory();
  auto host_actions = torch::empty({8}, torch::kLong).pin_memory();
  auto device_observations = host_observations.to(torch::kCUDA);
  auto act = [&] {
    device_observations.copy_(host_observations, /*non_blocking=*/true);
    auto logits = actor->forward(device_observations);
    auto gumbel = -torch::log(-torch::log(torch::rand_like(logits)));
    host_actions.copy_((logits + gumbel).argmax(1), /*non_blocking=*/true);
  };
  double eager = microseconds_per_call(iterations, [&] {
    act();
    c10::cuda::getCurrentCUDAStream().synchronize();
  });
  at::cuda::CUDAGraph graph;
  capture(graph, act);
  double replayed = microseconds_per_call(iterations, [&] {
    graph.replay();
    c10::cuda::getCurrentCUDAStream().synchronize();
  });
  std::printf("act [%4d,%4d] 8 envs: eager %6.1f us, graph %6.1f us (%.1fx)\n", width, width,
              eager, replayed, eager / replayed);
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "captured_update: no CUDA device\n");
    return 1;
  }
  for (int width : {64, 256, 1024}) {
    for (int batch_size : {64, 256}) {
      try {
        time_update(width, batch_size, iterations);
      } catch (const std::exception& e) {
        std::printf("update [%d] batch %d failed: %s\n", width, batch_size, e.what());
      }
    }
    try {
      time_act(width, iterations);
    } catch (const std::exception& e) {
      std::printf("act [%d] failed: %s\n", width, e.what());
    }
  }
  return 0;
}
