#include "core/config_diff.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "core/config.h"

namespace mnrl::core {
namespace {

using Flat = std::map<std::string, std::string>;

std::string flow_text(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

bool all_scalars(const YAML::Node& sequence) {
  for (const auto& item : sequence) {
    if (!item.IsScalar() && !item.IsNull()) return false;
  }
  return true;
}

void flatten(const YAML::Node& node, const std::string& path, Flat& out) {
  if (node.IsMap()) {
    for (const auto& pair : node) {
      const std::string key = pair.first.Scalar();
      flatten(pair.second, path.empty() ? key : path + "." + key, out);
    }
  } else if (node.IsSequence() && !all_scalars(node)) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      flatten(node[i], path + "[" + std::to_string(i) + "]", out);
    }
  } else {
    out[path] = node.IsScalar() ? node.Scalar() : flow_text(node);
  }
}

Flat flatten_document(const std::string& text) {
  Flat flat;
  try {
    flatten(YAML::Load(text), "", flat);
  } catch (const YAML::Exception& e) {
    throw ConfigError(std::string("malformed YAML: ") + e.what());
  }
  return flat;
}

}  // namespace

std::vector<ConfigChange> config_changes(const std::string& before, const std::string& after) {
  const Flat a = flatten_document(before);
  const Flat b = flatten_document(after);
  std::vector<ConfigChange> changes;
  for (const auto& [key, value] : a) {
    const auto other = b.find(key);
    if (other == b.end()) {
      changes.push_back({key, value, "(absent)"});
    } else if (other->second != value) {
      changes.push_back({key, value, other->second});
    }
  }
  for (const auto& [key, value] : b) {
    if (a.count(key) == 0) changes.push_back({key, "(absent)", value});
  }
  std::sort(changes.begin(), changes.end(),
            [](const ConfigChange& x, const ConfigChange& y) { return x.key < y.key; });
  return changes;
}

}  // namespace mnrl::core
