#include "nn/graphed_step.h"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>

#if MNRL_CUDA_HEADERS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include <map>
#include <mutex>
#endif

namespace mnrl::nn {

#if MNRL_CUDA_HEADERS

struct GraphedStep::Graph {
  at::cuda::CUDAGraph graph;
};

bool cuda_graphs_built() { return true; }

namespace {

// What every capture on one GPU shares: the side stream that warm-ups and captures run on
// (capture needs a stream other than the default one, and a stream whose cuBLAS workspace the
// warm-ups made already), and the memory pool the captures allocate from.
struct CaptureResources {
  c10::cuda::CUDAStream stream;
  decltype(at::cuda::graph_pool_handle()) pool;
};

const CaptureResources& capture_resources(c10::DeviceIndex device) {
  static std::mutex mutex;
  static std::map<c10::DeviceIndex, CaptureResources> by_device;
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = by_device.find(device);
  if (found == by_device.end()) {
    found = by_device
                .emplace(device, CaptureResources{c10::cuda::getStreamFromPool(false, device),
                                                  at::cuda::graph_pool_handle()})
                .first;
  }
  return found->second;
}

// Runs `work` on the device's side stream, with the device idle before and after, so that the
// caller's stream and that one need no events between them. Only around warm-ups and
// captures: a few steps in a run.
void on_side_stream(c10::DeviceIndex device, const std::function<void()>& work) {
  const c10::cuda::CUDAGuard on_device(device);
  torch::cuda::synchronize(device);
  {
    const c10::cuda::CUDAStreamGuard guard(capture_resources(device).stream);
    work();
  }
  torch::cuda::synchronize(device);
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
  const c10::DeviceIndex device =
      device_.has_index() ? device_.index() : c10::cuda::current_device();
  if (eager_calls_left_ > 0) {
    --eager_calls_left_;
    on_side_stream(device, step_);
    return;
  }
  auto captured = std::make_unique<Graph>();
  try {
    on_side_stream(device, [&] {
      captured->graph.capture_begin(capture_resources(device).pool);
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

GraphedStep::GraphedStep(std::function<void()> step, std::string name, c10::Device device,
                         bool required, int eager_calls)
    : step_(std::move(step)),
      name_(std::move(name)),
      device_(device),
      required_(required),
      eager_calls_left_(eager_calls),
      eager_only_(!device.is_cuda()) {}
GraphedStep::~GraphedStep() = default;
GraphedStep::GraphedStep(GraphedStep&&) noexcept = default;
GraphedStep& GraphedStep::operator=(GraphedStep&&) noexcept = default;

}  // namespace mnrl::nn
