#include "experiments/agent_factory.h"

#include <dlfcn.h>

#include <ATen/Parallel.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include "agents/ppo/ppo.h"
#include "core/rng.h"

namespace mnrl::experiments {

std::unique_ptr<agents::Agent> make_agent(const ExperimentOptions& options,
                                          const envs::EnvSpec& spec) {
  torch::manual_seed(core::derive_seed(static_cast<std::uint64_t>(options.seed), 0x746f7263));
  const auto& actions = std::get<envs::Discrete>(spec.action_space);
  const std::int64_t observation_size = envs::flat_size(spec.observation_space);

  nn::ActorCritic model(nn::ActorCriticOptions(observation_size, actions.n)
                            .hidden_sizes(options.network.hidden_sizes)
                            .activation(nn::activation_from_name(options.network.activation))
                            .shared_trunk(options.network.shared_trunk)
                            .orthogonal_init(options.network.orthogonal_init));
  auto parameters = std::make_shared<nn::FlatParameters>(*model);
  auto optimizer = std::make_unique<torch::optim::Adam>(
      std::vector<at::Tensor>{parameters->values()},
      torch::optim::AdamOptions(options.ppo.learning_rate).eps(options.ppo.adam_eps));
  replay::RolloutBuffer buffer(options.ppo.n_steps, options.env.num_envs, observation_size,
                               /*action_size=*/1);
  return std::make_unique<agents::Ppo>(options.ppo, std::move(model), std::move(parameters),
                                       std::move(optimizer), std::move(buffer));
}

void set_compute_threads(int threads) {
  at::set_num_threads(threads);
  // Resolved at run time: present only when libblas.so.3 is OpenBLAS.
  using SetThreads = void (*)(int);
  if (auto* set_openblas_threads =
          reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set_openblas_threads(threads);
  }
}

}  // namespace mnrl::experiments
