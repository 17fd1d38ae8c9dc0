#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config_diff.h"

namespace mnrl::experiments {

// An env plugin by absolute path and CRC-32C ("unreadable" when it could not be read): what a
// run trained with, to compare with the plugin a resume loads.
struct PluginRecord {
  std::string path;
  std::string crc32c;
  bool operator==(const PluginRecord& other) const {
    return path == other.path && crc32c == other.crc32c;
  }
};

// One `mnrl train --resume` of a run.
struct ResumeRecord {
  std::string command;
  std::string from_checkpoint;
  std::string started;                     // UTC, ISO 8601
  std::optional<PluginRecord> env_plugin;  // set when the plugin changed since the run started
  std::vector<core::ConfigChange> config_changes;  // accepted with --allow-changes
};

// RUN_DIR/run_info.yaml: how a run was started (command line, program, source revision, BLAS
// kernel, physics engines, env plugin) and each time it was resumed.
struct RunInfo {
  std::string command;
  std::string mnrl_version;
  std::string source_revision;
  std::string blas;
  std::string physics;  // physics_engines_description(): "Box2D 2.4.1, MuJoCo 2.2.2"
  std::string started;  // UTC, ISO 8601
  std::optional<PluginRecord> env_plugin;
  std::vector<ResumeRecord> resumed;

  // Whether `plugin` is the one the run started or was last resumed with.
  bool trained_with(const PluginRecord& plugin) const;
};

std::string run_info_yaml(const RunInfo& info);
// Reads what run_info_yaml() wrote (a missing key reads as empty). Throws std::runtime_error
// naming `source` for text that is not such a document.
RunInfo parse_run_info(const std::string& text, const std::string& source);

}  // namespace mnrl::experiments
