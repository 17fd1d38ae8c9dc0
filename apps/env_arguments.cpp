#include "apps/env_arguments.h"

#include <cstdio>

#include "envs/plugin_loader.h"

namespace mnrl::apps {
namespace {

std::string trimmed(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

}  // namespace

bool load_plugins(const std::vector<std::string>& paths, const std::string& command) {
  for (const auto& path : paths) {
    try {
      envs::load_plugin(path);
    } catch (const envs::PluginError& e) {
      std::fprintf(stderr, "mnrl %s: %s\n", command.c_str(), e.what());
      return false;
    }
  }
  return true;
}

std::optional<core::Kwargs> parse_kwargs(const std::vector<std::string>& assignments,
                                         const std::string& command) {
  core::Kwargs kwargs("kwargs", "");
  for (const auto& assignment : assignments) {
    const auto equals = assignment.find('=');
    const std::string key = equals == std::string::npos ? "" : trimmed(assignment.substr(0, equals));
    const std::string origin = "--kwarg " + assignment;
    if (key.empty()) {
      std::fprintf(stderr, "mnrl %s: %s: expected KEY=VALUE\n", command.c_str(), origin.c_str());
      return std::nullopt;
    }
    if (kwargs.contains(key)) {
      std::fprintf(stderr, "mnrl %s: %s: '%s' is given twice\n", command.c_str(), origin.c_str(),
                   key.c_str());
      return std::nullopt;
    }
    const std::string value = trimmed(assignment.substr(equals + 1));
    if (value.size() < 2 || value.front() != '[' || value.back() != ']') {
      kwargs.set(key, value, origin);
      continue;
    }
    std::vector<std::string> items;
    const std::string inside = value.substr(1, value.size() - 2);
    if (!trimmed(inside).empty()) {
      std::size_t start = 0;
      for (std::size_t comma; (comma = inside.find(',', start)) != std::string::npos;
           start = comma + 1) {
        items.push_back(trimmed(inside.substr(start, comma - start)));
      }
      items.push_back(trimmed(inside.substr(start)));
    }
    kwargs.set_list(key, std::move(items), origin);
  }
  return kwargs;
}

}  // namespace mnrl::apps
