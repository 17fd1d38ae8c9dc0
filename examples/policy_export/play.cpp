// Plays episodes of an mnrl env with a policy written by `mnrl export`, greedy, and prints
// each episode's return: `play policy.pt CartPoleNoVel-v1 [EPISODES]`. A recurrent policy's
// memory (network.recurrent) is carried from step to step and starts from zero with each
// episode. Needs LibTorch and mnrl's env layer (mnrl::envs), not mnrl's training.
#include <torch/script.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "envs/registry.h"
#include "envs/space.h"

namespace {

// Plays one episode; returns its return and counts its steps.
double play_episode(torch::jit::Module& policy, mnrl::envs::Env& env, std::uint64_t seed,
                    int& steps) {
  const mnrl::envs::EnvSpec& spec = env.spec();
  const bool pixels = mnrl::envs::element_dtype(spec.observation_space) == mnrl::core::Dtype::uint8;
  // One observation as the env gives it, float32 or uint8: normalization is inside the module.
  at::Tensor observation = torch::zeros({1, mnrl::envs::flat_size(spec.observation_space)},
                                        pixels ? torch::kUInt8 : torch::kFloat32);
  const auto into = [&]() -> mnrl::core::TypedPtr {
    if (pixels) return observation.data_ptr<std::uint8_t>();
    return observation.data_ptr<float>();
  };
  const bool recurrent = policy.find_method("initial_state").has_value();
  at::Tensor state;
  if (recurrent) state = policy.run_method("initial_state", 1).toTensor();  // zero memory
  env.reset(into(), seed);
  double total = 0.0;
  for (steps = 1;; ++steps) {
    at::Tensor action;
    if (recurrent) {
      const auto outputs = policy.forward({observation, state}).toTuple();
      action = outputs->elements()[0].toTensor()[0];
      state = outputs->elements()[1].toTensor();  // what the next step starts from
    } else {
      action = policy.forward({observation}).toTensor()[0];
    }
    mnrl::envs::ActionRef taken;
    const at::Tensor values = action.to(torch::kFloat32).contiguous();
    if (mnrl::envs::is_discrete(spec.action_space)) {
      taken.index = action.item<std::int64_t>();
    } else {
      taken.values = values.data_ptr<float>();
      taken.size = values.numel();
    }
    const mnrl::envs::StepResult result = env.step(taken, into());
    total += result.reward;
    if (result.terminated || result.truncated) return total;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: play POLICY.pt ENV_ID [EPISODES]\n");
    return 2;
  }
  try {
    torch::jit::Module policy = torch::jit::load(argv[1]);
    // Built-in ids, with their time limits, as `mnrl train` makes them.
    const std::unique_ptr<mnrl::envs::Env> env = mnrl::envs::Registry::global().make(argv[2]);
    const int episodes = argc > 3 ? std::stoi(argv[3]) : 5;
    torch::NoGradGuard no_gradients;
    for (int episode = 0; episode < episodes; ++episode) {
      int steps = 0;
      const double total = play_episode(policy, *env, static_cast<std::uint64_t>(episode), steps);
      std::printf("episode %d: return %.2f in %d steps\n", episode + 1, total, steps);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "play: %s\n", e.what());
    return 1;
  }
}
