#include "agents/agent_setup.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "nn/flat_parameters.h"
#include "nn/graphed_step.h"

namespace mnrl::agents {

GradientHook AgentSetup::hook_for(nn::FlatParameters& parameters) const {
  if (!gradient_hook) return {};
  return [range = gradient_hook(parameters), count = parameters.numel()] { range(0, count); };
}

bool cuda_graphs_chosen(CudaGraphs mode, bool on_cpu, const char* why_not) {
  if (mode == CudaGraphs::off || on_cpu) return false;
  if (!nn::cuda_graphs_built()) why_not = "this LibTorch has no CUDA";
  if (!why_not) return true;
  if (mode == CudaGraphs::required) {
    throw std::runtime_error(
        std::string("train.cuda_graphs: on, but gradient steps cannot run as CUDA graphs: ") +
        why_not);
  }
  std::fprintf(stderr, "mnrl: train.cuda_graphs: auto: gradient steps run eagerly: %s\n", why_not);
  return false;
}

}  // namespace mnrl::agents
