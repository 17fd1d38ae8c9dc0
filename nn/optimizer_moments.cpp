#include "nn/optimizer_moments.h"

#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>

#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "nn/optimizer_state_key.h"

namespace mnrl::nn {
namespace {

using StateKey = std::decay_t<decltype(std::declval<torch::optim::Optimizer&>().state())>::key_type;

}  // namespace

int moment_count(const torch::optim::Optimizer& optimizer) {
  const auto& options = optimizer.param_groups().front().options();
  if (const auto* adam = dynamic_cast<const torch::optim::AdamOptions*>(&options)) {
    if (!adam->amsgrad()) return 2;
  }
  if (const auto* rmsprop = dynamic_cast<const torch::optim::RMSpropOptions*>(&options)) {
    if (rmsprop->momentum() == 0.0 && !rmsprop->centered()) return 1;
  }
  throw std::invalid_argument(
      "optimizer moments: Adam without amsgrad, or RMSprop without momentum or centering");
}

std::optional<ParameterMoments> moments_of(const torch::optim::Optimizer& optimizer,
                                           const at::Tensor& parameter) {
  moment_count(optimizer);
  const auto& states = optimizer.state();
  const auto found = states.find(optimizer_state_key<StateKey>(parameter));
  if (found == states.end()) return std::nullopt;
  if (const auto* adam = dynamic_cast<const torch::optim::AdamParamState*>(found->second.get())) {
    return ParameterMoments{adam->step(), {adam->exp_avg(), adam->exp_avg_sq()}};
  }
  const auto& rmsprop = dynamic_cast<const torch::optim::RMSpropParamState&>(*found->second);
  return ParameterMoments{rmsprop.step(), {rmsprop.square_avg()}};
}

void set_moments(torch::optim::Optimizer& optimizer, const at::Tensor& parameter,
                 const ParameterMoments& moments) {
  if (static_cast<int>(moments.tensors.size()) != moment_count(optimizer)) {
    throw std::invalid_argument("optimizer moments: " + std::to_string(moments.tensors.size()) +
                                " tensors for an optimizer that keeps " +
                                std::to_string(moment_count(optimizer)));
  }
  const auto copy = [&](const at::Tensor& t) { return t.reshape(parameter.sizes()).clone(); };
  auto& slot = optimizer.state()[optimizer_state_key<StateKey>(parameter)];
  if (moments.tensors.size() == 2) {
    auto adam = std::make_unique<torch::optim::AdamParamState>();
    adam->step(moments.step);
    adam->exp_avg(copy(moments.tensors[0]));
    adam->exp_avg_sq(copy(moments.tensors[1]));
    slot = std::move(adam);
  } else {
    auto rmsprop = std::make_unique<torch::optim::RMSpropParamState>();
    rmsprop->step(moments.step);
    rmsprop->square_avg(copy(moments.tensors[0]));
    slot = std::move(rmsprop);
  }
}

}  // namespace mnrl::nn
