#pragma once

#include <memory>
#include <string>

#include "agents/agent_setup.h"
#include "agents/off_policy/continuous_off_policy_agent.h"
#include "agents/off_policy/off_policy_networks.h"
#include "agents/off_policy/off_policy_options.h"
#include "agents/registry.h"
#include "replay/replay.h"

namespace mnrl::agents {

// The parts SAC, TD3 and DDPG register and build their agents from.

// The checks they share, located at `algo`'s keys: a Box action space with finite bounds (the
// actor's [-1, 1] is mapped onto them), and a batch that fits in the buffer.
void check_off_policy(const std::string& algo, const OffPolicyOptions& options,
                      const AgentCheck& check);

// A uniform replay (n-step with options.n_step) for setup's envs, storing actions as floats.
std::unique_ptr<replay::Replay> make_off_policy_replay(const OffPolicyOptions& options,
                                                       const AgentSetup& setup);

struct ActorKind {
  bool stochastic = false;             // SAC's squashed Gaussian, else deterministic
  bool state_dependent_noise = false;  // gSDE (stochastic only)
};

// `critics` critics and an actor of `kind` as setup.network describes them (gSDE's log-std
// from network.log_std_init, full_std and use_expln), and with `initial_log_alpha` a learned
// entropy coefficient; initialized from LibTorch's generator on the CPU (the same weights on
// every device), then moved to setup.device.
std::shared_ptr<OffPolicyNetworks> make_off_policy_networks(
    const AgentSetup& setup, int critics, ActorKind kind, std::optional<double> initial_log_alpha);

// How an agent whose networks are on `device` ("cpu" or "cuda:N") takes its gradient steps.
GradientPath gradient_path_for(const std::string& device);

// What the replay holds, for the memory check.
StoredTransitions off_policy_stored(const std::string& algo, const OffPolicyOptions& options);

}  // namespace mnrl::agents
