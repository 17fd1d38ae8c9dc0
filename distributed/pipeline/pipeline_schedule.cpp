#include "distributed/pipeline/pipeline_schedule.h"

#include <algorithm>
#include <stdexcept>

namespace mnrl::distributed {

PipelineSchedule pipeline_schedule_named(const std::string& name) {
  if (name == "gpipe") return PipelineSchedule::kGpipe;
  if (name == "1f1b") return PipelineSchedule::kOneForwardOneBackward;
  throw std::invalid_argument("unknown pipeline schedule '" + name + "' (gpipe or 1f1b)");
}

const char* name_of(PipelineSchedule schedule) {
  return schedule == PipelineSchedule::kGpipe ? "gpipe" : "1f1b";
}

int warmup_forwards(int stage, int stages, int micro_batches) {
  return std::min(stages - 1 - stage, micro_batches);
}

std::vector<PipelineOperation> stage_operations(PipelineSchedule schedule, int stage, int stages,
                                                int micro_batches) {
  if (stages < 1 || stage < 0 || stage >= stages || micro_batches < 1) {
    throw std::invalid_argument("stage_operations: stage " + std::to_string(stage) + " of " +
                                std::to_string(stages) + ", " + std::to_string(micro_batches) +
                                " micro-batch(es)");
  }
  using Kind = PipelineOperation::Kind;
  std::vector<PipelineOperation> operations;
  if (schedule == PipelineSchedule::kGpipe) {
    for (int m = 0; m < micro_batches; ++m) operations.push_back({Kind::kForward, m});
    for (int m = 0; m < micro_batches; ++m) operations.push_back({Kind::kBackward, m});
    return operations;
  }
  const int warmup = warmup_forwards(stage, stages, micro_batches);
  for (int m = 0; m < warmup; ++m) operations.push_back({Kind::kForward, m});
  for (int m = warmup; m < micro_batches; ++m) {
    operations.push_back({Kind::kForward, m});
    operations.push_back({Kind::kBackward, m - warmup});
  }
  for (int m = micro_batches - warmup; m < micro_batches; ++m) {
    operations.push_back({Kind::kBackward, m});
  }
  return operations;
}

}  // namespace mnrl::distributed
