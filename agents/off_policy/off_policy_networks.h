#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "nn/continuous_actor.h"
#include "nn/continuous_q_network.h"
#include "nn/flat_parameters.h"

namespace mnrl::agents {

// Every trained parameter of an off-policy actor-critic in one module, for one FlatParameters
// buffer laid out as [critics | actor | log alpha]: each optimizer, and each data-parallel
// all-reduce, then covers one contiguous range (see the *_range() accessors).
class OffPolicyNetworks : public torch::nn::Module {
 public:
  struct Range {
    std::int64_t offset = 0, count = 0;
    // This range of a flat tensor (values or gradients).
    at::Tensor of(const at::Tensor& flat) const { return flat.narrow(0, offset, count); }
  };

  // `initial_log_alpha` adds SAC's learned entropy coefficient, log alpha, as a parameter.
  OffPolicyNetworks(std::vector<nn::ContinuousQNetwork> critics, nn::ContinuousActor actor,
                    std::optional<double> initial_log_alpha);

  const std::vector<nn::ContinuousQNetwork>& critics() const { return critics_; }
  const nn::ContinuousActor& actor() const { return actor_; }
  bool has_log_alpha() const { return log_alpha_.defined(); }
  // The learned entropy coefficient's log [1], a parameter (undefined without one).
  const at::Tensor& log_alpha() const { return log_alpha_; }

  Range critics_range() const;
  Range actor_range() const;
  Range log_alpha_range() const;  // count 0 without log alpha

 private:
  std::vector<nn::ContinuousQNetwork> critics_;
  nn::ContinuousActor actor_;
  at::Tensor log_alpha_;
  std::int64_t critic_parameters_ = 0, actor_parameters_ = 0;
};

// Adam over `range` of `parameters`: nn::FusedAdam on the CPU, nn::CapturableAdam on a GPU
// (which CUDA graphs need).
std::unique_ptr<torch::optim::Optimizer> adam_over(const nn::FlatParameters& parameters,
                                                   OffPolicyNetworks::Range range,
                                                   double learning_rate);

// A copy of `critic`'s architecture (initialized anew: copy the values after).
nn::ContinuousQNetwork same_critic(const nn::ContinuousQNetwork& critic);

}  // namespace mnrl::agents
