#pragma once

#include <string>

#include "experiments/config/experiment_options.h"

namespace mnrl::experiments {

// train.device for this process: "cpu" or "cuda:N".
//  - cpu: the hand-written passes (and LibTorch's CPU kernels); every algorithm.
//  - cuda: the GPU of this rank's local rank (modulo the GPUs visible), so that the ranks of a
//    node take one GPU each; cuda:N: GPU N (one rank per node only).
//  - auto: cuda when this LibTorch has CUDA, a GPU is visible and the algorithm trains on one
//    (Algorithm::takes_device()), else cpu.
// Throws core::ConfigError naming train.device when cuda is asked for and cannot be had.
std::string resolve_train_device(const ExperimentOptions& options, int local_rank = 0,
                                 int ranks = 1);

// Whether the run's networks go to a GPU (train.device resolves to cuda:N): the job then
// all-reduces gradients with NCCL under distributed.backend auto, and checkpoints keep the
// CUDA generators' states.
bool trains_on_cuda(const ExperimentOptions& options);

}  // namespace mnrl::experiments
