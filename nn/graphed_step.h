#pragma once

#include <c10/core/Device.h>

#include <functional>
#include <memory>
#include <string>

namespace mnrl::nn {

// A step of device work of fixed shapes (a whole optimizer step: forward, loss, backward, clip,
// Adam) run as one CUDA graph: one launch instead of hundreds, with no host work between them.
// Its first few calls run eagerly (real steps, which also settle the allocator and autograd, as
// capture needs); the next call captures the step and replays the capture; every later call
// replays it. Warm-up and capture run on one side stream per GPU, and every capture of a GPU
// allocates from one memory pool (steps replay one after another on one stream, and keep no
// tensor made during capture), so recapturing does not grow memory.
//
// The step must read and write only tensors that stay in place between calls (inputs copied
// into them before run(), outputs accumulated in them), never wait for the device (no .item(),
// no copy to the host) and draw no random numbers. Where capture fails, every later call runs
// the step eagerly, and the failure is said once on stderr; or, for a step that is `required`
// to be captured, it throws std::runtime_error. Work on the CPU, or where this LibTorch has no
// CUDA, runs eagerly (callers check cuda_graphs_built() to say so).
class GraphedStep {
 public:
  static constexpr int kEagerCalls = 3;

  // `device`: where the step's work runs. `name` names the step in the message of a failed
  // capture. `eager_calls`: how many calls run eagerly before the capture (0 where the same
  // work ran already, and only a constant of the step changed).
  GraphedStep(std::function<void()> step, std::string name, c10::Device device,
              bool required = false, int eager_calls = kEagerCalls);
  ~GraphedStep();
  GraphedStep(GraphedStep&&) noexcept;
  GraphedStep& operator=(GraphedStep&&) noexcept;

  void run();
  // Whether calls now replay a capture.
  bool replaying() const { return graph_ != nullptr; }

 private:
  struct Graph;  // the captured CUDA graph (where LibTorch has CUDA)

  std::function<void()> step_;
  std::string name_;
  c10::Device device_;
  bool required_;
  int eager_calls_left_;
  bool eager_only_;  // on the CPU, or after a failed capture
  std::unique_ptr<Graph> graph_;
};

// Whether this build's LibTorch can capture CUDA graphs (a CUDA LibTorch).
bool cuda_graphs_built();

}  // namespace mnrl::nn
