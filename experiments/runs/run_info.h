#pragma once

#include <filesystem>
#include <functional>
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

// How a process was started: its job's ranks and the launcher's command or description.
struct LaunchRecord {
  int ranks = 0;       // 0: not recorded (runs of earlier versions)
  std::string launch;  // empty: started by no launcher
};

// One `mnrl train --resume` of a run.
struct ResumeRecord {
  std::string command;
  LaunchRecord launch;
  std::string from_checkpoint;
  std::string started;                     // UTC, ISO 8601
  std::optional<PluginRecord> env_plugin;  // set when the plugin changed since the run started
  std::vector<core::ConfigChange> config_changes;  // accepted with --allow-changes
};

// RUN_DIR/run_info.yaml: how a run was started (command line, program, source revision, BLAS
// kernel, physics engines, env plugin) and each time it was resumed.
struct RunInfo {
  std::string command;
  LaunchRecord launch;
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

// The env plugin at `path` (absolute) with the CRC-32C of its bytes as loaded (of the file, for
// one not loaded); nothing for "" (an env built into mnrl).
std::optional<PluginRecord> plugin_record(const std::string& path);

// The warning for a run (`info`) now using `plugin`, when that is not the plugin the run was last
// trained with: "the env plugin is not the one the run was trained with (run_info.yaml); now
// PATH, CRC-32C X". Said by a resume, an evaluation and an export alike.
std::optional<std::string> plugin_change_warning(const RunInfo& info,
                                                 const std::optional<PluginRecord>& plugin);

// What started this process for a run's record (`environment` reads a variable, null when
// unset; `parent_command` is the parent process's words): the launcher's command line where it
// is the parent (mpirun, mpiexec: "mpirun -np 4 mnrl train x.yaml"); else, under srun, the
// Slurm step ("srun: Slurm job 812 step 0, 4 tasks on 2 nodes"), or under another MPI launcher
// what it says ("an MPI launcher (PMI_SIZE=4)"); empty for a process started by none.
std::string describe_launch(const std::function<const char*(const char*)>& environment,
                            const std::vector<std::string>& parent_command);
// describe_launch() of this process (its environment and /proc/PPID/cmdline).
std::string this_launch();

std::string run_info_yaml(const RunInfo& info);
// Reads what run_info_yaml() wrote (a missing key reads as empty). Throws std::runtime_error
// naming `source` for text that is not such a document.
RunInfo parse_run_info(const std::string& text, const std::string& source);
// RUN_DIR/run_info.yaml, read and parsed. Throws core::FileError or std::runtime_error.
RunInfo read_run_info(const std::filesystem::path& run_dir);

}  // namespace mnrl::experiments
