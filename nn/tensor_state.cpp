#include "nn/tensor_state.h"

#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <c10/core/GradMode.h>
#include <torch/optim/adam.h>
#include <torch/optim/optimizer.h>
#include <torch/optim/rmsprop.h>

#include "nn/optimizer_state_key.h"

namespace mnrl::nn {

// The bytes do not depend on the device: a tensor on a GPU is written through a host copy and
// read back into one, so a checkpoint moves between CPU and CUDA runs.
void save_tensor(core::StateWriter& out, const at::Tensor& tensor) {
  TORCH_CHECK(tensor.is_contiguous() && tensor.scalar_type() == at::kFloat,
              "save_tensor: a contiguous float32 tensor is needed");
  const at::Tensor host = tensor.to(at::kCPU);
  out.values(host.data_ptr<float>(), static_cast<std::size_t>(host.numel()));
}

void load_tensor(core::StateReader& in, const at::Tensor& into) {
  TORCH_CHECK(into.is_contiguous() && into.scalar_type() == at::kFloat,
              "load_tensor: a contiguous float32 tensor is needed");
  c10::NoGradGuard no_grad;
  if (into.is_cpu()) {
    in.values(into.data_ptr<float>(), static_cast<std::size_t>(into.numel()));
    return;
  }
  at::Tensor host = at::empty(into.sizes(), into.options().device(at::kCPU));
  in.values(host.data_ptr<float>(), static_cast<std::size_t>(host.numel()));
  into.copy_(host);  // in place: FlatParameters' views keep pointing at it
}

namespace {

// The optimizer's one parameter: mnrl's optimizers all work on FlatParameters::values().
const at::Tensor& sole_parameter(const torch::optim::Optimizer& optimizer) {
  const auto& groups = optimizer.param_groups();
  TORCH_CHECK(groups.size() == 1 && groups.front().params().size() == 1,
              "checkpoints support optimizers over one (flat) parameter tensor");
  return groups.front().params().front();
}

// The key type of the optimizer's state map (it differs between LibTorch versions).
using StateKey = std::decay_t<decltype(std::declval<torch::optim::Optimizer&>().state())>::key_type;

void save_optional_tensor(core::StateWriter& out, const at::Tensor& tensor) {
  out.value(tensor.defined());
  if (tensor.defined()) save_tensor(out, tensor);
}

at::Tensor load_tensor_like(core::StateReader& in, const at::Tensor& like) {
  at::Tensor tensor = at::empty_like(like);
  load_tensor(in, tensor);
  return tensor;
}

at::Tensor load_optional_tensor(core::StateReader& in, const at::Tensor& like) {
  return in.value<bool>() ? load_tensor_like(in, like) : at::Tensor();
}

}  // namespace

// Written field by field rather than through LibTorch's archive, whose keys are memory
// addresses: the same state then gives the same bytes in every process.
void save_optimizer(core::StateWriter& out, const torch::optim::Optimizer& optimizer) {
  const at::Tensor& parameter = sole_parameter(optimizer);
  const auto& states = optimizer.state();
  const auto found = states.find(optimizer_state_key<StateKey>(parameter));
  if (found == states.end()) {
    out.tag("no_optimizer_state");  // before the first step
    return;
  }
  if (const auto* adam = dynamic_cast<const torch::optim::AdamParamState*>(found->second.get())) {
    out.tag("adam");
    out.value(adam->step());
    save_tensor(out, adam->exp_avg());
    save_tensor(out, adam->exp_avg_sq());
    save_optional_tensor(out, adam->max_exp_avg_sq());
  } else if (const auto* rmsprop =
                 dynamic_cast<const torch::optim::RMSpropParamState*>(found->second.get())) {
    out.tag("rmsprop");
    out.value(rmsprop->step());
    save_tensor(out, rmsprop->square_avg());
    save_optional_tensor(out, rmsprop->momentum_buffer());
    save_optional_tensor(out, rmsprop->grad_avg());
  } else {
    TORCH_CHECK(false, "checkpoints support the state of Adam and RMSprop only");
  }
}

void load_optimizer(core::StateReader& in, torch::optim::Optimizer& optimizer) {
  const at::Tensor& parameter = sole_parameter(optimizer);
  auto& states = optimizer.state();
  const auto key = optimizer_state_key<StateKey>(parameter);
  const std::string kind = in.text();
  if (kind == "no_optimizer_state") {
    states.erase(key);
    return;
  }
  const bool is_adam = dynamic_cast<torch::optim::Adam*>(&optimizer) != nullptr;
  const bool is_rmsprop = dynamic_cast<torch::optim::RMSprop*>(&optimizer) != nullptr;
  if ((kind == "adam" && !is_adam) || (kind == "rmsprop" && !is_rmsprop)) {
    in.fail(kind + " optimizer state for another optimizer (was the config's optimizer changed?)");
  }
  if (kind == "adam") {
    auto adam = std::make_unique<torch::optim::AdamParamState>();
    adam->step(in.value<std::int64_t>());
    adam->exp_avg(load_tensor_like(in, parameter));
    adam->exp_avg_sq(load_tensor_like(in, parameter));
    adam->max_exp_avg_sq(load_optional_tensor(in, parameter));
    states[key] = std::move(adam);
  } else if (kind == "rmsprop") {
    auto rmsprop = std::make_unique<torch::optim::RMSpropParamState>();
    rmsprop->step(in.value<std::int64_t>());
    rmsprop->square_avg(load_tensor_like(in, parameter));
    rmsprop->momentum_buffer(load_optional_tensor(in, parameter));
    rmsprop->grad_avg(load_optional_tensor(in, parameter));
    states[key] = std::move(rmsprop);
  } else {
    in.fail("optimizer state of kind '" + kind + "' (expected adam, rmsprop or none)");
  }
}

void save_torch_rng(core::StateWriter& out) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  const at::Tensor state = generator.get_state();
  out.values(state.data_ptr<std::uint8_t>(), static_cast<std::size_t>(state.numel()));
}

void load_torch_rng(core::StateReader& in) {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  at::Tensor state = generator.get_state();  // a copy of the right size, overwritten
  in.values(state.data_ptr<std::uint8_t>(), static_cast<std::size_t>(state.numel()));
  generator.set_state(state);
}

namespace {

int cuda_generators() {
  return at::globalContext().hasCUDA() ? static_cast<int>(at::detail::getCUDAHooks().getNumGPUs())
                                       : 0;
}

// A generator's state is a few bytes (seed and offset); more is not a generator's.
constexpr std::int64_t kMaxGeneratorStateBytes = 1 << 16;

}  // namespace

void save_cuda_rng(core::StateWriter& out, bool on_cuda) {
  const int count = on_cuda ? cuda_generators() : 0;
  out.value(count);
  for (int i = 0; i < count; ++i) {
    at::Generator generator = at::globalContext().defaultGenerator(at::Device(at::kCUDA, i));
    std::lock_guard<std::mutex> lock(generator.mutex());
    const at::Tensor state = generator.get_state();
    out.value(state.numel());
    out.values(state.data_ptr<std::uint8_t>(), static_cast<std::size_t>(state.numel()));
  }
}

void load_cuda_rng(core::StateReader& in) {
  const int count = in.value<int>();
  if (count < 0 || count > 1024) in.fail("a count of " + std::to_string(count) + " CUDA generators");
  const int here = cuda_generators();
  for (int i = 0; i < count; ++i) {
    const auto size = in.value<std::int64_t>();
    if (size < 0 || size > kMaxGeneratorStateBytes) {
      in.fail("a CUDA generator state of " + std::to_string(size) + " bytes");
    }
    at::Tensor state = at::empty({size}, at::kByte);
    in.values(state.data_ptr<std::uint8_t>(), static_cast<std::size_t>(size));
    if (i >= here) continue;  // resumed with fewer GPUs (or on the CPU): nothing draws from it
    at::Generator generator = at::globalContext().defaultGenerator(at::Device(at::kCUDA, i));
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
  }
}

}  // namespace mnrl::nn
