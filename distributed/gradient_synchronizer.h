#pragma once

#include <cstdint>
#include <stdexcept>

#include <ATen/core/Tensor.h>

#include "distributed/communicator.h"

namespace mnrl::distributed {

// The replicas of a data-parallel job no longer hold the same parameters. The message names
// the ranks that differ from rank 0.
class ReplicaDivergenceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GradientSynchronizerOptions {
  // Gradient bytes per all-reduce call: large enough to amortize a call's latency, small
  // enough to bound the time between the first and the last byte of a bucket.
  std::int64_t bucket_bytes = 25 << 20;
};

// Keeps the replicas of one model identical across the ranks of a job, over the model's flat
// parameter and gradient tensors (nn::FlatParameters' values() and gradients()):
//  - broadcast_parameters(): rank 0's parameters to every rank (at the start, after loading);
//  - average_gradients(): after backward, each gradient becomes its mean over the ranks, in
//    ceil(bytes / bucket_bytes) all-reduce calls over consecutive slices of the flat gradient;
//  - check_in_sync(): all-gathers a CRC-32C of every rank's parameter bytes and throws
//    ReplicaDivergenceError on every rank if any differs from rank 0's.
// Since every rank then applies the same optimizer step to the same bits, replicas stay bitwise
// equal; the check catches what breaks that (a nondeterministic op, a rank that skipped a step).
class GradientSynchronizer {
 public:
  // `parameters` and `gradients`: contiguous float32 tensors of the same size.
  GradientSynchronizer(Communicator& communicator, at::Tensor parameters, at::Tensor gradients,
                       GradientSynchronizerOptions options = {});

  void broadcast_parameters();
  void average_gradients();
  // Only gradients[offset, offset + count): an agent whose networks take their steps one after
  // another (an off-policy critic, then its actor) averages each one's range before its step.
  // A range outside the gradients throws std::out_of_range.
  void average_gradients(std::int64_t offset, std::int64_t count);
  void check_in_sync();

  // All-reduce calls per average_gradients().
  std::int64_t buckets() const;

 private:
  Communicator& communicator_;
  at::Tensor parameters_, gradients_;
  std::int64_t bucket_elements_;
};

}  // namespace mnrl::distributed
