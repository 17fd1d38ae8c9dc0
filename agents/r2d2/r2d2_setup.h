#pragma once

#include <memory>
#include <string>

#include "agents/agent_setup.h"
#include "agents/r2d2/r2d2.h"
#include "agents/registry.h"

namespace mnrl::agents {

// What R2D2 and Ape-X's R2D2 share in their registrations.

// Throws core::ConfigError naming the key for an env without Discrete actions, a network
// without network.recurrent, a batch_size larger than buffer_size or a period longer than a
// sequence; `section`: the options' section ("r2d2", "apex_r2d2").
void check_r2d2_options(const R2d2Options& r2d2, const std::string& section,
                        const AgentCheck& check);

// The agent `r2d2` and `setup` describe: online and target recurrent Q-networks
// (network.recurrent after the encoder, network.dueling), Adam, and its sequence replay.
std::unique_ptr<R2d2> make_r2d2(const R2d2Options& r2d2, const AgentSetup& setup);

}  // namespace mnrl::agents
