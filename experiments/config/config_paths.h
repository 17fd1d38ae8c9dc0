#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/config.h"
#include "envs/env_options.h"

namespace mnrl::experiments {

// The files a config names: env.plugin, and the env kwargs whose key ends in `_path` or `_file`
// (files the env reads, such as a MuJoCo robot's model_path). A relative one is taken from the
// directory of the config file that names it, or from the working directory when a --set gives
// it (as a shell user expects); resolved, each is absolute, which config.yaml records, so that a
// run resumes, evaluates and exports from any directory.
bool is_path_kwarg(const std::string& key);

// Makes `env`'s plugin and path kwargs absolute as above. `config_dir` is the directory of the
// config file `document` was read from (the working directory for a config given as text).
void resolve_config_paths(envs::EnvOptions& env, const core::ConfigDocument& document,
                          const std::filesystem::path& config_dir);

// The values of `env`'s path kwargs (scalars only), sorted by key.
std::vector<std::string> env_data_files(const envs::EnvOptions& env);

}  // namespace mnrl::experiments
