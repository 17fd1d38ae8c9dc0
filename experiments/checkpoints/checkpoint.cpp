#include "experiments/checkpoints/checkpoint.h"

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "core/build_info.h"
#include "core/crc32c.h"
#include "core/files.h"
#include "core/liveness.h"
#include "core/scalar_text.h"
#include "core/text.h"
#include "core/yaml_writer.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

// Raised whenever a state file's layout changes. 2: observations keep their dtype (uint8 images
// stay bytes) in the env, replay and agent states. 3: the training file holds the CUDA
// generators' states (train.device).
constexpr int kFormat = 3;
constexpr const char* kManifest = "manifest.yaml";
constexpr const char* kPrefix = "step_";

fs::path checkpoints_dir(const fs::path& run_dir) { return run_dir / "checkpoints"; }

std::string directory_name(std::int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "%s%012" PRId64, kPrefix, step);
  return name;
}

// A manifest lists a few files: far below this.
constexpr std::uint64_t kMaxManifestBytes = 1 << 20;

// The manifest's step must be a step and agree with the directory's name when that is a step's
// (step_<digits>: a checkpoint copied elsewhere under another name is still one).
void check_step(std::int64_t step, const fs::path& directory, const std::string& where) {
  if (step < 0) {
    throw CheckpointError(where + ": " + kManifest + " says step " + std::to_string(step) +
                          "; a step is never negative");
  }
  const std::optional<std::int64_t> named = checkpoint_step(directory);
  if (named && *named != step) {
    throw CheckpointError(where + ": " + kManifest + " says step " + std::to_string(step) +
                          ", the directory's name another");
  }
}

// Whether `directory`, named as a checkpoint but without a manifest, is what an interrupted
// removal of one leaves (a second Ctrl-C during rotation, before rotation renamed checkpoints
// aside first): only regular files named as a checkpoint's (config.yaml, *.state, *.tmp).
// Anything else (a directory someone made, with their own files) is not mnrl's to delete.
bool is_checkpoint_remnant(const fs::path& directory) {
  std::error_code error;
  if (fs::exists(fs::symlink_status(directory / kManifest, error))) return false;
  const auto ends_with = [](const std::string& name, const std::string& end) {
    return name.size() > end.size() && name.compare(name.size() - end.size(), end.size(), end) == 0;
  };
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(error) || entry.is_symlink(error)) return false;
    if (name != "config.yaml" && !ends_with(name, ".state") && !ends_with(name, ".tmp")) {
      return false;
    }
  }
  return !error;
}

}  // namespace

fs::path best_checkpoint_path(const fs::path& run_dir) {
  return checkpoints_dir(run_dir) / kBestCheckpoint;
}

CheckpointWriter::CheckpointWriter(const fs::path& run_dir, CheckpointInfo info,
                                   const std::string& directory)
    : info_(std::move(info)) {
  const fs::path parent = checkpoints_dir(run_dir);
  const std::string name = directory.empty() ? directory_name(info_.step) : directory;
  partial_ = parent / (".partial-" + name);
  final_ = parent / name;
  std::error_code error;
  fs::create_directories(parent, error);
  // Left by a process killed while writing or deleting: never complete, never needed.
  for (const auto& entry : fs::directory_iterator(parent, error)) {
    const std::string leftover = entry.path().filename().string();
    if (leftover.rfind(".partial-", 0) == 0 || leftover.rfind(".superseded-", 0) == 0 ||
        (checkpoint_step(entry.path()) && entry.is_directory(error) && !entry.is_symlink(error) &&
         is_checkpoint_remnant(entry.path()))) {
      fs::remove_all(entry.path(), error);
    }
  }
  if (!fs::create_directory(partial_, error) || error) {
    throw std::runtime_error("cannot create checkpoint directory '" + partial_.string() +
                             "': " + error.message());
  }
}

CheckpointWriter::~CheckpointWriter() {
  if (committed_) return;
  std::error_code ignored;
  fs::remove_all(partial_, ignored);
}

void CheckpointWriter::add(const std::string& name, const std::string& bytes) {
  core::report_alive();  // rank 0 writes alone while the other ranks wait
  core::write_file_atomically(partial_ / name, bytes);
}

fs::path CheckpointWriter::commit(const std::string& created) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(partial_)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  core::YamlWriter manifest;
  manifest.key("mnrl_checkpoint").integer(kFormat);
  manifest.key("step").integer(info_.step);
  manifest.key("algo").text(info_.algo);
  manifest.key("env").text(info_.env);
  manifest.key("mnrl_version").text(core::version());
  manifest.key("created").text(created);
  if (info_.eval_mean_return) manifest.key("eval_mean_return").number(*info_.eval_mean_return);
  manifest.key("files").begin_map();
  for (const auto& file : files) {
    const std::optional<core::FileDigest> digest = core::digest_file(file);
    if (!digest) throw std::runtime_error("cannot read back checkpoint file '" + file.string() + "'");
    manifest.key(file.filename().string()).begin_map(/*flow=*/true);
    manifest.key("bytes").integer(static_cast<std::int64_t>(digest->bytes));
    manifest.key("crc32c").text(core::crc32c_hex(digest->crc32c)).end_map();
  }
  manifest.end_map();
  manifest.key("complete").boolean(true);  // last: a manifest cut short lacks it
  core::write_file_atomically(partial_ / kManifest, manifest.str());
  // A checkpoint of the same step is moved aside first and deleted only once this one is in
  // place: some complete checkpoint of this step exists at every moment.
  std::error_code error;
  const fs::path superseded = final_.parent_path() / (".superseded-" + final_.filename().string());
  if (fs::exists(final_, error)) fs::rename(final_, superseded, error);
  if (!error) fs::rename(partial_, final_, error);
  if (error) {
    throw std::runtime_error("cannot move checkpoint into '" + final_.string() +
                             "': " + error.message());
  }
  core::sync_directory(final_.parent_path());
  committed_ = true;
  fs::remove_all(superseded, error);
  return final_;
}

Checkpoint Checkpoint::open(const fs::path& directory) {
  const std::string where = "checkpoint '" + directory.string() + "'";
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    throw CheckpointError(where + ": no such directory");
  }
  if (!fs::exists(directory / kManifest, error)) {
    throw CheckpointError(where + ": no " + kManifest +
                          " (not a mnrl checkpoint, or its writing was interrupted)");
  }
  Checkpoint checkpoint;
  checkpoint.directory_ = directory;
  checkpoint.read_manifest(where);
  checkpoint.check_files(where);
  return checkpoint;
}

void Checkpoint::read_manifest(const std::string& where) {
  try {
    const YAML::Node manifest =
        YAML::Load(core::read_regular_file(directory_ / kManifest, kMaxManifestBytes, kManifest));
    if (!manifest.IsMap() || !manifest["mnrl_checkpoint"]) {
      throw CheckpointError(where + ": " + kManifest + " is not a mnrl checkpoint manifest");
    }
    const int format = manifest["mnrl_checkpoint"].as<int>();
    if (format != kFormat) {
      throw CheckpointError(where + ": checkpoint format " + std::to_string(format) +
                            ", this mnrl (" + core::version() + ") reads format " +
                            std::to_string(kFormat) +
                            ": use the mnrl that wrote it, or train the run anew");
    }
    if (!manifest["complete"] || !manifest["complete"].as<bool>()) {
      throw CheckpointError(where + ": " + kManifest + " is incomplete (truncated)");
    }
    info_.step = manifest["step"].as<std::int64_t>();
    check_step(info_.step, directory_, where);
    info_.algo = manifest["algo"].as<std::string>();
    info_.env = manifest["env"].as<std::string>();
    if (manifest["eval_mean_return"]) {
      info_.eval_mean_return = manifest["eval_mean_return"].as<double>();
    }
    for (const auto& file : manifest["files"]) {
      FileEntry entry;
      entry.bytes = file.second["bytes"].as<std::uint64_t>();
      entry.crc32c = static_cast<std::uint32_t>(
          std::stoul(file.second["crc32c"].as<std::string>(), nullptr, 16));
      const std::string name = file.first.as<std::string>();
      // A file of this directory: never a path that leads out of it.
      if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
          name.find('\0') != std::string::npos) {
        throw CheckpointError(where + ": " + kManifest + " lists '" + name +
                              "', which is not a file name in the checkpoint");
      }
      if (!files_.emplace(name, entry).second) {
        throw CheckpointError(where + ": " + kManifest + " lists '" + name + "' twice");
      }
    }
  } catch (const CheckpointError&) {
    throw;
  } catch (const core::FileError& e) {
    throw CheckpointError(where + ": " + e.what());
  } catch (const std::exception& e) {
    throw CheckpointError(where + ": malformed " + kManifest + ": " + e.what());
  }
}

void Checkpoint::check_files(const std::string& where) const {
  for (const auto& [name, expected] : files_) {
    std::error_code missing;
    if (fs::exists(directory_ / name, missing)) {
      try {
        core::check_regular_file(directory_ / name, "checkpoint file");  // not /dev/zero
      } catch (const core::FileError& e) {
        throw CheckpointError(where + ": " + e.what());
      }
    }
    const std::optional<core::FileDigest> digest =
        core::digest_file(directory_ / name, expected.bytes);
    if (!digest) {
      throw CheckpointError(where + ": file '" + name + "' listed in the manifest is missing");
    }
    const core::FileDigest& found = *digest;
    if (found.bytes != expected.bytes) {
      const std::string size = found.bytes > expected.bytes
                                   ? "more than " + std::to_string(expected.bytes)
                                   : std::to_string(found.bytes);
      throw CheckpointError(where + ": file '" + name + "' has " + size +
                            " bytes, the manifest says " + std::to_string(expected.bytes) +
                            " (truncated or overwritten)");
    }
    if (found.crc32c != expected.crc32c) {
      throw CheckpointError(where + ": file '" + name + "' is corrupted (CRC-32C " +
                            core::crc32c_hex(found.crc32c) + ", the manifest says " + core::crc32c_hex(expected.crc32c) +
                            ")");
    }
  }
}

std::string Checkpoint::read(const std::string& name) const {
  const auto entry = files_.find(name);
  const std::string where = "checkpoint '" + directory_.string() + "'";
  if (entry == files_.end()) throw CheckpointError(where + ": no file '" + name + "'");
  std::string bytes;
  try {
    bytes = core::read_regular_file(directory_ / name, entry->second.bytes, "checkpoint file");
  } catch (const core::FileError& e) {
    throw CheckpointError(where + ": " + e.what());
  }
  if (bytes.size() != entry->second.bytes ||
      core::crc32c(bytes.data(), bytes.size()) != entry->second.crc32c) {
    throw CheckpointError(where + ": file '" + name + "' changed after it was checked");
  }
  return bytes;
}

std::optional<std::int64_t> checkpoint_step(const fs::path& directory) {
  const std::string name = directory.filename().string();
  const std::size_t digits = std::strlen(kPrefix);
  if (name.rfind(kPrefix, 0) != 0 || name.size() == digits ||
      name.find_first_not_of("0123456789", digits) != std::string::npos) {
    return std::nullopt;
  }
  std::int64_t step = 0;
  const auto [end, error] = std::from_chars(name.data() + digits, name.data() + name.size(), step);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;  // > int64
  return step;
}

std::vector<fs::path> list_checkpoints(const fs::path& run_dir) {
  std::vector<std::pair<std::int64_t, fs::path>> found;
  std::error_code error;
  const fs::path parent = checkpoints_dir(run_dir);
  if (!fs::is_directory(parent, error)) return {};
  for (const auto& entry : fs::directory_iterator(parent)) {
    const std::optional<std::int64_t> step = checkpoint_step(entry.path());
    if (step && entry.is_directory()) found.emplace_back(*step, entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> paths;
  for (auto& step_and_path : found) paths.push_back(std::move(step_and_path.second));
  return paths;
}

Checkpoint open_latest_checkpoint(const fs::path& run_dir,
                                  const std::function<void(const std::string&)>& skipped) {
  const std::vector<fs::path> all = list_checkpoints(run_dir);
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    try {
      return Checkpoint::open(*it);
    } catch (const CheckpointError& e) {
      skipped(e.what());
    }
  }
  throw CheckpointError("run directory '" + run_dir.string() + "' has no usable checkpoint" +
                        (all.empty() ? " (no " + checkpoints_dir(run_dir).string() + "/step_*)"
                                     : ""));
}

void prune_checkpoints(const fs::path& run_dir, int keep) {
  const std::vector<fs::path> all = list_checkpoints(run_dir);
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < all.size(); ++i) {
    // Only what is a checkpoint: a directory of that name holding something else (a run
    // someone started there) is left alone.
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(all[i] / kManifest, error))) continue;
    // Renamed aside first, so that a removal cut short (a second Ctrl-C) leaves a .superseded-
    // directory, which the next checkpoint deletes, never a step_ one without its manifest.
    const fs::path aside = all[i].parent_path() / (".superseded-" + all[i].filename().string());
    fs::rename(all[i], aside, error);
    if (!error) fs::remove_all(aside, error);
  }
}

}  // namespace mnrl::experiments
