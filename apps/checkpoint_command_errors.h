#pragma once

#include <functional>
#include <string>

namespace mnrl::apps {

// Runs `body`, a command that reads a checkpoint (eval, export), and maps what it throws to an
// exit code with a message prefixed by "mnrl <command>: ": an unusable checkpoint, its config
// or its state files, an output file that cannot be written and a --video of an env that draws
// nothing are usage errors (2); anything else is a failure (1).
int run_checkpoint_command(const std::string& command, const std::function<int()>& body);

}  // namespace mnrl::apps
