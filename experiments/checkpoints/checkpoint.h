#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mnrl::experiments {

// A checkpoint cannot be used: missing, incomplete, truncated, corrupted or not a mnrl
// checkpoint. The message names the directory or file and what is wrong.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a checkpoint is of, recorded in its manifest.
struct CheckpointInfo {
  std::int64_t step = 0;
  std::string algo;
  std::string env;
  // A best checkpoint's: the mean return of the evaluation that chose it.
  std::optional<double> eval_mean_return;
};

// RUN_DIR/checkpoints/best: the policy of the run's best evaluation (BestCheckpoint). Never
// resumed from nor pruned: list_checkpoints() lists step_ directories only.
inline constexpr const char* kBestCheckpoint = "best";
std::filesystem::path best_checkpoint_path(const std::filesystem::path& run_dir);

// A checkpoint is a directory RUN_DIR/checkpoints/step_<12-digit step>/ of files plus
// manifest.yaml, which lists every file with its size and CRC-32C and is written last.
//
// Protocol: the files go to a hidden sibling directory (.partial-step_...), each flushed to
// disk; then the manifest; then the directory is renamed to its final name and the parent
// synced. A crash leaves either no step_ directory or a complete one, and an older checkpoint
// is deleted (prune_checkpoints) only after a newer one is complete.
class CheckpointWriter {
 public:
  // The checkpoint's directory is step_<info.step>, or `name` when given.
  CheckpointWriter(const std::filesystem::path& run_dir, CheckpointInfo info,
                   const std::string& name = {});
  // Removes the partial directory unless commit() succeeded.
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Writes a file of the checkpoint (durably).
  void add(const std::string& name, const std::string& bytes);
  // Writes the manifest over every file now in the directory and moves the checkpoint into
  // place (replacing one of the same step). Returns its final path.
  std::filesystem::path commit(const std::string& created);

 private:
  std::filesystem::path partial_, final_;
  CheckpointInfo info_;
  bool committed_ = false;
};

// A checkpoint opened for reading: every file listed in the manifest was found with its size
// and CRC-32C when it was opened.
class Checkpoint {
 public:
  // Throws CheckpointError naming `directory` when it is not a complete, intact checkpoint.
  static Checkpoint open(const std::filesystem::path& directory);

  const std::filesystem::path& directory() const { return directory_; }
  const CheckpointInfo& info() const { return info_; }
  bool has(const std::string& name) const { return files_.count(name) != 0; }
  // The file's bytes, checked again against the manifest. Throws CheckpointError.
  std::string read(const std::string& name) const;
  std::filesystem::path path_of(const std::string& name) const { return directory_ / name; }

 private:
  struct FileEntry {
    std::uint64_t bytes = 0;
    std::uint32_t crc32c = 0;
  };
  // Reads info_ and files_ from the manifest; `where` names the checkpoint in errors.
  void read_manifest(const std::string& where);
  // Every listed file is a regular file of its size and CRC-32C.
  void check_files(const std::string& where) const;

  std::filesystem::path directory_;
  CheckpointInfo info_;
  std::map<std::string, FileEntry> files_;
};

// The step a checkpoint directory's name says: step_<digits> within int64 (the writer's
// step_<12 digits>, or more digits past 10^12 steps); nullopt for any other name.
std::optional<std::int64_t> checkpoint_step(const std::filesystem::path& directory);

// A run's checkpoint directories (named as checkpoint_step() reads), by step, oldest first.
// Only these are resumed from or pruned: a copy named step_good is neither.
std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& run_dir);

// The newest checkpoint of the run that opens. Each newer one that does not is reported
// through `skipped` ("<dir>: <reason>"). Throws CheckpointError when none does.
Checkpoint open_latest_checkpoint(const std::filesystem::path& run_dir,
                                  const std::function<void(const std::string&)>& skipped);

// Deletes all but the newest `keep` checkpoints of the run, each renamed aside first (a
// removal cut short leaves no step_ directory without its manifest).
void prune_checkpoints(const std::filesystem::path& run_dir, int keep);

}  // namespace mnrl::experiments
