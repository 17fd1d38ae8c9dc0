#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/kwargs.h"

namespace mnrl::apps {

// Loads each --plugin in order. Prints "mnrl <command>: cannot load plugin '...': <cause>" and
// returns false at the first that fails.
bool load_plugins(const std::vector<std::string>& paths, const std::string& command);

// The env kwargs of --kwarg KEY=VALUE arguments; VALUE is a scalar or [a, b, ...]. Prints
// "mnrl <command>: ..." and returns nullopt for one without '=' or a key given twice.
std::optional<core::Kwargs> parse_kwargs(const std::vector<std::string>& assignments,
                                         const std::string& command);

}  // namespace mnrl::apps
