#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/files.h"

#include "experiments/metrics/metrics.h"

namespace mnrl::experiments {

// A TensorBoard event file (events.out.tfevents.<time>.<host>) in the run directory, with every
// scalar under its metrics.csv name, so `tensorboard --logdir runs` shows each run's curves.
//
// File format (TensorFlow's TFRecord framing of Event protocol buffers, little endian): per
// record a uint64 length, the masked CRC-32C of those 8 bytes, the serialized Event, and the
// masked CRC-32C of it; masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8. The first
// record holds file_version "brain.Event:2". Records go to the file as they come (a failed
// write stops the run at once, as metrics.csv's).
class TensorBoardMetrics final : public MetricsSink {
 public:
  // A run resumed at step `resumed_at` > 0 writes a new file that starts with a SessionLog
  // START at resumed_at + 1, which makes TensorBoard drop the earlier files' points after the
  // checkpoint (the resumed run writes them again).
  TensorBoardMetrics(const std::filesystem::path& run_dir, std::int64_t resumed_at = 0);

  void scalar(std::int64_t step, const std::string& name, double value) override;

  const std::filesystem::path& path() const { return out_->path(); }

  // masked CRC-32C of TFRecord framing.
  static std::uint32_t masked_crc32c(const void* data, std::size_t size);

 private:
  void write_record(const std::string& event);

  std::optional<core::AppendOnlyFile> out_;
};

}  // namespace mnrl::experiments
