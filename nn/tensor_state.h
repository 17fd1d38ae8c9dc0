#pragma once

#include <ATen/core/Tensor.h>

#include <utility>

#include "core/state_stream.h"

namespace torch::optim {
class Optimizer;
}

namespace mnrl::nn {

// Torch objects in a checkpoint's core::StateWriter stream (see agents' save_state()).

// A contiguous float32 tensor's values (on any device, the same bytes); load_tensor() copies
// into `into` in place (so FlatParameters' aliasing survives) and refuses another element count.
void save_tensor(core::StateWriter& out, const at::Tensor& tensor);
void load_tensor(core::StateReader& in, const at::Tensor& into);

// The per-parameter state (step count, moments) of an Adam or RMSprop optimizer (FusedAdam and
// SharedRmsprop included) over one flat parameter tensor; the options come from the config.
// load_optimizer() throws core::StateError for another kind or size of state.
void save_optimizer(core::StateWriter& out, const torch::optim::Optimizer& optimizer);
void load_optimizer(core::StateReader& in, torch::optim::Optimizer& optimizer);

// A tensor's values and an optimizer's state as fields of a saved state (core/state_fields.h).
struct TensorValues {
  at::Tensor tensor;
  void save_state(core::StateWriter& out) const { save_tensor(out, tensor); }
  void load_state(core::StateReader& in) { load_tensor(in, tensor); }
};
inline TensorValues tensor_values(at::Tensor tensor) { return {std::move(tensor)}; }
struct OptimizerState {
  torch::optim::Optimizer& optimizer;
  void save_state(core::StateWriter& out) const { save_optimizer(out, optimizer); }
  void load_state(core::StateReader& in) { load_optimizer(in, optimizer); }
};
inline OptimizerState optimizer_state(torch::optim::Optimizer& optimizer) { return {optimizer}; }

// LibTorch's default CPU generator (sampling, minibatch permutations, initialization).
void save_torch_rng(core::StateWriter& out);
void load_torch_rng(core::StateReader& in);
// The generators of the CUDA devices (what sampling on a GPU draws from), written when
// `on_cuda` and CUDA is there (else none); read back into the devices this process has.
void save_cuda_rng(core::StateWriter& out, bool on_cuda);
void load_cuda_rng(core::StateReader& in);

}  // namespace mnrl::nn
