#pragma once

#include <memory>
#include <string>

#include "agents/agent_setup.h"
#include "agents/dqn/dqn.h"
#include "agents/registry.h"

namespace mnrl::agents {

// What DQN and Ape-X DQN share in their registrations.

// Throws core::ConfigError naming the key for an env without Discrete actions, or a batch_size
// larger than buffer_size; `section`: the options' section ("dqn", "apex_dqn").
void check_dqn_options(const DqnOptions& dqn, const std::string& section, const AgentCheck& check);

// The agent `dqn` and `setup` describe: online and target Q-networks (network.dueling, an
// encoder for images) on setup.device, Adam, and its replay.
std::unique_ptr<Dqn> make_dqn(const DqnOptions& dqn, const AgentSetup& setup);

}  // namespace mnrl::agents
