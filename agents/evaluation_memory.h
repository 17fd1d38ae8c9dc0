#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

namespace mnrl::agents {

// A recurrent agent's memory over evaluation episodes, apart from its training envs': one row
// per evaluation env, which the network restarts from zero where an episode starts (every row
// at first, after reset(), and when the batch size changes).
class EvaluationMemory {
 public:
  // Before a step of `batch` rows of a memory `state_size` wide on `device`.
  void prepare(std::int64_t batch, std::int64_t state_size, c10::Device device);
  // The memory, [batch, state_size]: what the step starts from, then what it leaves.
  at::Tensor& state() { return state_; }
  // 1 for each row whose episode starts at this step, else 0 (the network's episode_starts).
  const float* starts() const { return starts_.data(); }
  // After the step: no row starts an episode until episodes_ended() says so.
  void stepped();
  void episodes_ended(const std::uint8_t* terminated, const std::uint8_t* truncated,
                      std::int64_t batch);
  void reset() { state_ = at::Tensor(); }

 private:
  at::Tensor state_;
  std::vector<float> starts_;
};

}  // namespace mnrl::agents
