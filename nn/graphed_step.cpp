#include "nn/graphed_step.h"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>

#if MNRL_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#endif

namespace mnrl::nn {

#if MNRL_CUDA_GRAPHS

struct GraphedStep::Graph {
  at::cuda::CUDAGraph graph;
};

bool cuda_graphs_built() { return true; }

namespace {

// Runs `work` on a stream of the pool, as capture requires (never the legacy default stream),
// with the device idle before and after, so that the caller's stream and that one need no
// events between them. Only around warm-up and capture: a few times per step.
void on_side_stream(const std::function<void()>& work) {
  torch::cuda::synchronize();
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  {
    const c10::cuda::CUDAStreamGuard guard(side);
    work();
  }
  torch::cuda::synchronize();
}

}  // namespace

void GraphedStep::run() {
  if (graph_) {
    graph_->graph.replay();
    return;
  }
  if (eager_only_) {
    step_();
    return;
  }
  if (eager_calls_left_ > 0) {
    --eager_calls_left_;
    on_side_stream(step_);
    return;
  }
  auto captured = std::make_unique<Graph>();
  try {
    on_side_stream([&] {
      captured->graph.capture_begin();
      try {
        step_();
      } catch (...) {
        // End the capture, so the stream runs work again; the step's own error is the news.
        try {
          captured->graph.capture_end();
        } catch (...) {
        }
        throw;
      }
      captured->graph.capture_end();
    });
  } catch (const std::exception& e) {
    if (required_) {
      throw std::runtime_error(name_ + " could not be captured as a CUDA graph: " + e.what());
    }
    eager_only_ = true;
    std::fprintf(stderr, "mnrl: %s runs without a CUDA graph: capturing it failed: %s\n",
                 name_.c_str(), e.what());
    step_();
    return;
  }
  graph_ = std::move(captured);
  graph_->graph.replay();  // a capture records the step without running it
}

#else

struct GraphedStep::Graph {};

bool cuda_graphs_built() { return false; }

void GraphedStep::run() { step_(); }

#endif

GraphedStep::GraphedStep(std::function<void()> step, std::string name, bool required,
                         int eager_calls)
    : step_(std::move(step)),
      name_(std::move(name)),
      required_(required),
      eager_calls_left_(eager_calls) {}
GraphedStep::~GraphedStep() = default;
GraphedStep::GraphedStep(GraphedStep&&) noexcept = default;
GraphedStep& GraphedStep::operator=(GraphedStep&&) noexcept = default;

}  // namespace mnrl::nn
