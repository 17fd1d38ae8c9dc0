#pragma once

#include <string>

#include "experiments/config/experiment_options.h"

namespace mnrl::experiments {

// train.device for the rank of local rank `local_rank` on its host: "cpu" or "cuda:N".
//  - cpu: the hand-written passes (and LibTorch's CPU kernels); every algorithm.
//  - cuda: GPU `local_rank` modulo the GPUs visible, so that the ranks of a host take one GPU
//    each; cuda:N: GPU N, for one rank per host only.
//  - auto: cuda when this LibTorch has CUDA, the host has a GPU for each of its ranks
//    (distributed::ranks_on_this_host()) and the algorithm trains on one
//    (Algorithm::takes_device(), not with gSDE), else cpu.
// In an actors-and-learners job (IMPALA, Ape-X) only the learners count as the host's ranks:
// its actors act on the CPU (on_the_cpu()).
// Throws core::ConfigError naming train.device when cuda is asked for and cannot be had.
std::string resolve_train_device(const ExperimentOptions& options, int local_rank = 0);

// Throws core::ConfigError naming the key where train.cuda_graphs: on or train.precision (other
// than fp32) cannot be had on the device train.device resolves to for `local_rank`: the CPU
// (auto found no GPU), or for bf16 a GPU without bfloat16; and where that GPU has less memory
// free than the networks take (options.network_bytes). Throws as resolve_train_device().
void check_device_options(const ExperimentOptions& options, int local_rank = 0);

// Why a GPU with `free_bytes` free cannot hold networks of `network_bytes` (naming
// network.hidden_sizes), or empty where it can.
std::string why_gpu_memory_short(double network_bytes, double free_bytes,
                                 const std::string& device);

// `options` training on the CPU, in float32, capturing nothing: what a checkpoint's evaluation
// and an actor of an actors-and-learners job (whose learners may train on a GPU) run with.
ExperimentOptions on_the_cpu(ExperimentOptions options);

// Whether the run's networks go to a GPU: the job then all-reduces gradients with NCCL under
// distributed.backend auto, and checkpoints keep the CUDA generators' states. Throws as
// resolve_train_device() does.
bool trains_on_cuda(const ExperimentOptions& options);

}  // namespace mnrl::experiments
