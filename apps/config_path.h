#pragma once

#include <string>

namespace mnrl::apps {

// The experiment file a command line names: the path as given when a file is there; else, for
// a bare name ("cartpole_ppo" or "cartpole_ppo.yaml"), the bundled config of that name, from
// the installed share/mnrl/configs next to the program or from the source tree it was built
// from. Returns `given` unchanged when nothing matches (reading it then says why).
std::string find_config(const std::string& given);

// For a bare name that is neither a file nor a bundled config: why, with the closest bundled
// name and the list of them ("'cartpol_ppo' is neither a file nor a bundled config (did you
// mean 'cartpole_ppo'?); bundled: acrobot_dqn, ..."). "" for a path or a name that find_config
// found.
std::string unknown_config_message(const std::string& given);

}  // namespace mnrl::apps
