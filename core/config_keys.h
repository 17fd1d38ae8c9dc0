#pragma once

#include <string>
#include <vector>

#include "core/config.h"

namespace mnrl::core {

// One entry of the config key reference (`mnrl config keys`, docs/configuration.md), taken
// from the same visit lists that read the YAML, so it cannot disagree with what is read.
struct ConfigKey {
  std::string path;           // "ppo.n_steps"; "env.wrappers[].type" for a list item's key
  std::string type;           // bool, integer, number, string, ...; "section" / "list" for those
  std::string default_value;  // as YAML text
  std::string range;          // what it accepts beyond its type ("in [0, 1]"); "" if anything
  std::string help;
};

// Every key of the root Options visited by `visit_root` (which should visit default options),
// sections and lists included, in visit order. A list is described by one default item.
std::vector<ConfigKey> config_keys(const VisitFunction& visit_root);

// The keys as a Markdown reference: one table per top-level section.
std::string config_keys_markdown(const std::vector<ConfigKey>& keys);

}  // namespace mnrl::core
