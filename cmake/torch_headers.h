// The LibTorch headers most of mnrl's LibTorch sources include, precompiled once for the targets
// that use LibTorch (mnrl_precompile_torch, option MNRL_PRECOMPILE_TORCH): parsing them is about
// four fifths of such a source's compile time. Sources still include what they use.
#pragma once

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>
