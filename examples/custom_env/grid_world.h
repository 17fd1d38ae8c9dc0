#pragma once

// GridWorld-v0: walk from a random cell of a size x size grid to the far corner. A complete
// mnrl environment in one header: it needs mnrl's env headers only, no LibTorch.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>

#include "core/kwargs.h"
#include "envs/env.h"

class GridWorld final : public mnrl::envs::Env {
 public:
  // kwargs (env.kwargs in YAML): size (default 5), slip = chance that a move goes a random way.
  explicit GridWorld(const mnrl::core::Kwargs& kwargs)
      : size_(kwargs.get<int>("size", 5)), slip_(kwargs.get<double>("slip", 0.0)) {
    if (size_ < 2) throw kwargs.error("size", "must be at least 2");
    if (slip_ < 0 || slip_ > 1) throw kwargs.error("slip", "must be in [0, 1]");
    spec_.id = "GridWorld-v0";
    spec_.observation_space = mnrl::envs::Box{{2}, {0, 0}, {1, 1}};  // (x, y) / (size - 1)
    spec_.action_space = mnrl::envs::Discrete{4};                    // right, up, left, down
    spec_.max_episode_steps = 4 * size_;                             // then truncated
  }

  const mnrl::envs::EnvSpec& spec() const override { return spec_; }

  void reset(mnrl::core::TypedPtr observation, std::optional<std::uint64_t> seed) override {
    if (seed) rng_.seed(*seed);
    do {
      x_ = std::uniform_int_distribution<int>(0, size_ - 1)(rng_);
      y_ = std::uniform_int_distribution<int>(0, size_ - 1)(rng_);
    } while (at_goal());
    running_ = true;
    observe(observation.floats());
  }

  mnrl::envs::StepResult step(const mnrl::envs::ActionRef& action,
                              mnrl::core::TypedPtr observation) override {
    if (!running_) throw std::logic_error("GridWorld: step() before reset() or after the goal");
    if (action.index < 0 || action.index > 3) throw std::invalid_argument("GridWorld: action");
    int move = static_cast<int>(action.index);
    if (std::uniform_real_distribution<double>(0, 1)(rng_) < slip_)
      move = static_cast<int>(rng_() % 4);
    const int dx[] = {1, 0, -1, 0};
    const int dy[] = {0, 1, 0, -1};
    x_ = std::clamp(x_ + dx[move], 0, size_ - 1);
    y_ = std::clamp(y_ + dy[move], 0, size_ - 1);
    observe(observation.floats());
    running_ = !at_goal();
    return {at_goal() ? 1.0 : -0.01, at_goal(), false};  // terminated at the goal
  }

 private:
  bool at_goal() const { return x_ == size_ - 1 && y_ == size_ - 1; }
  void observe(float* observation) const {
    observation[0] = static_cast<float>(x_) / static_cast<float>(size_ - 1);
    observation[1] = static_cast<float>(y_) / static_cast<float>(size_ - 1);
  }

  mnrl::envs::EnvSpec spec_;
  int size_;
  double slip_;
  std::mt19937_64 rng_{0};
  int x_ = 0;
  int y_ = 0;
  bool running_ = false;
};
