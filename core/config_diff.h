#pragma once

#include <string>
#include <vector>

namespace mnrl::core {

// A key whose value differs between two YAML documents (resolved configs).
struct ConfigChange {
  std::string key;     // dotted path, list items indexed: "env.wrappers[1].num_frames"
  std::string before;  // the value as YAML flow text; "(absent)" when the key is missing
  std::string after;
};

// Every scalar key that differs between the YAML documents `before` and `after`, in key order.
// A sequence of scalars counts as one value ("[64, 64]"). Throws ConfigError for malformed
// YAML.
std::vector<ConfigChange> config_changes(const std::string& before, const std::string& after);

}  // namespace mnrl::core
