#pragma once

#include <cstdint>

#include "experiments/config/experiment_options.h"

namespace mnrl::apps {

// What a learner's updates cost, alone: the part of a training step that is not the envs.
struct LearnerThroughput {
  std::int64_t updates = 0;        // timed update() calls
  double seconds = 0.0;            // their time, together
  std::int64_t env_steps = 0;      // env steps the agent observed for those updates
  std::int64_t multiply_adds = 0;  // of their products through the hand-written passes; 0 on
                                   // a path without them (autograd, a GPU)
  // Env steps/s the updates alone would keep up with: the training speed with free envs.
  double env_steps_per_second() const { return static_cast<double>(env_steps) / seconds; }
  double gflops() const { return 2e-9 * static_cast<double>(multiply_adds) / seconds; }
};

// Times the update() calls of `options`' agent fed by its own vector env (acting and stepping
// are not timed): steps until the agent is ready, updates once untimed (buffers are allocated
// there), then times updates until `min_seconds` have passed and at least 3 ran. The agent is
// the one make_agent() makes: for A3C, one worker with a shared model of its own.
LearnerThroughput learner_throughput(const experiments::ExperimentOptions& options,
                                     double min_seconds);

// This thread's sgemm rate in GFLOP/s on 256 x 256 x 256 products (nn::row_major_gemm, the
// BLAS the passes call), the best of a few tries: what a pass's products could reach.
double sgemm_gflops();

}  // namespace mnrl::apps
