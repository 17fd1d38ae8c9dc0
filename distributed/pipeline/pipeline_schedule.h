#pragma once

#include <string>
#include <vector>

namespace mnrl::distributed {

// How a stage orders the forward and backward passes of one minibatch's micro-batches:
//  - kGpipe (Huang et al. 2019): every forward, then every backward; the gradients of all
//    micro-batches add up and are applied once, at the flush: the minibatch's gradient, as
//    unsplit. A stage idles (K-1)/(M+K-1) of the time (the bubble).
//  - kOneForwardOneBackward (PipeDream, Narayanan et al. 2019): K-1-s forwards to fill the
//    pipe, then one backward after each forward, then the remaining backwards; each backward's
//    gradient is applied at once (asynchronous: a micro-batch is its own update), with the
//    weights its forward used (weight stashing).
enum class PipelineSchedule { kGpipe, kOneForwardOneBackward };

// "gpipe" / "1f1b" (distributed.pipeline_schedule).
PipelineSchedule pipeline_schedule_named(const std::string& name);
const char* name_of(PipelineSchedule schedule);

struct PipelineOperation {
  enum class Kind { kForward, kBackward };
  Kind kind;
  int micro_batch;
  bool operator==(const PipelineOperation& other) const {
    return kind == other.kind && micro_batch == other.micro_batch;
  }
};

// What stage `stage` of `stages` does with `micro_batches` micro-batches, in order. Every
// micro-batch's forward comes before its backward; the stages' orders fit together (each
// message is received in the order its sender sends it), so blocking receives never deadlock.
std::vector<PipelineOperation> stage_operations(PipelineSchedule schedule, int stage, int stages,
                                                int micro_batches);

// Of a 1F1B stage: how many forwards run before the first backward (min(K-1-s, M)). Micro-batch
// m's forward there sees the weights after max(0, m - warmup) of the stage's updates.
int warmup_forwards(int stage, int stages, int micro_batches);

}  // namespace mnrl::distributed
