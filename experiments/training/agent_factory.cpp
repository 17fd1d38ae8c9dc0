#include "experiments/training/agent_factory.h"

#include <ATen/Parallel.h>
#include <torch/utils.h>

#include <algorithm>
#include <thread>

#include "core/memory_reuse.h"
#include "core/openblas.h"
#include "core/rng.h"
#include "core/seed_streams.h"
#include "distributed/communicator.h"
#include "distributed/gradient_synchronizer.h"
#include "experiments/training/train_device.h"
#include "nn/compute_threads.h"
#include "nn/flat_parameters.h"
#include "nn/precision.h"

namespace mnrl::experiments {

void seed_initial_weights(std::int64_t seed) {
  torch::manual_seed(core::derive_seed(static_cast<std::uint64_t>(seed), core::kTorchStream));
}

agents::AgentSetup agent_setup(const ExperimentOptions& options, const envs::EnvSpec& spec,
                               int local_rank) {
  agents::AgentSetup setup{spec,
                           options.network,
                           options.env.num_envs,
                           options.train.total_steps,
                           static_cast<std::uint64_t>(options.seed),
                           {},
                           {},
                           {}};
  check_device_options(options, local_rank);
  setup.device = resolve_train_device(options, local_rank);
  if (setup.device != "cpu") {
    const std::string& graphs = options.train.cuda_graphs;
    const nn::Precision precision = nn::precision_named(options.train.precision);
    setup.cuda_graphs = graphs == "on"    ? agents::CudaGraphs::required
                        : graphs == "off" ? agents::CudaGraphs::off
                                          : agents::CudaGraphs::where_possible;
    nn::set_tf32(precision == nn::Precision::tf32);
    setup.bf16_autocast = precision == nn::Precision::bf16;
  }
  return setup;
}

std::unique_ptr<agents::Agent> make_agent(
    const ExperimentOptions& options, const envs::EnvSpec& spec,
    const std::function<void(agents::AgentSetup&)>& customize) {
  agents::AgentSetup setup = agent_setup(options, spec);
  if (customize) customize(setup);
  seed_initial_weights(options.seed);
  return options.algorithm().make_agent(options.algorithm_section(), setup);
}

ReplicatedAgent::ReplicatedAgent() = default;
ReplicatedAgent::ReplicatedAgent(ReplicatedAgent&&) noexcept = default;
ReplicatedAgent& ReplicatedAgent::operator=(ReplicatedAgent&&) noexcept = default;
ReplicatedAgent::~ReplicatedAgent() = default;

ReplicatedAgent make_replicated_agent(const ExperimentOptions& options, const envs::EnvSpec& spec,
                                      distributed::Communicator& communicator,
                                      const std::function<void(agents::AgentSetup&)>& customize) {
  ReplicatedAgent replica;
  agents::AgentSetup setup = agent_setup(options, spec, communicator.local_rank());
  setup.gradient_hook = [&](nn::FlatParameters& parameters) {
    distributed::GradientSynchronizerOptions sync_options;
    sync_options.bucket_bytes = std::max<std::int64_t>(
        4, static_cast<std::int64_t>(options.distributed.bucket_mb * (1 << 20)));
    replica.synchronizer = std::make_unique<distributed::GradientSynchronizer>(
        communicator, parameters.values(), parameters.gradients(), sync_options);
    return [synchronizer = replica.synchronizer.get()](std::int64_t offset, std::int64_t count) {
      synchronizer->average_gradients(offset, count);
    };
  };
  if (customize) customize(setup);
  seed_initial_weights(options.seed);
  replica.agent = options.algorithm().make_agent(options.algorithm_section(), setup);
  return replica;
}

ReplicatedAgent make_learner_agent(const ExperimentOptions& options, const envs::EnvSpec& spec,
                                   distributed::Communicator* learners) {
  if (learners) return make_replicated_agent(options, spec, *learners);
  ReplicatedAgent alone;
  alone.agent = make_agent(options, spec);
  return alone;
}

void set_compute_threads(int threads) {
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (cpus > 0) threads = std::min(threads, cpus);
  at::set_num_threads(1);
  core::set_openblas_threads(1);
  core::keep_freed_memory_for_reuse();
  nn::set_compute_threads(std::min(threads, 2));
}

}  // namespace mnrl::experiments
