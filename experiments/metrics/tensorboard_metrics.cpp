#include "experiments/metrics/tensorboard_metrics.h"

#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "core/crc32c.h"
#include "core/host_name.h"
#include "experiments/metrics/tensorboard_event.h"

namespace mnrl::experiments {
namespace {

double wall_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void append_little_endian(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xffu);
}

}  // namespace

std::uint32_t TensorBoardMetrics::masked_crc32c(const void* data, std::size_t size) {
  const std::uint32_t crc = core::crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

TensorBoardMetrics::TensorBoardMetrics(const std::filesystem::path& run_dir,
                                       std::int64_t resumed_at) {
  const double now = wall_time();
  // TensorFlow's name plus the process id: two resumes within a second get files of their own.
  out_.emplace(run_dir / ("events.out.tfevents." +
                          std::to_string(static_cast<std::int64_t>(now)) + "." + core::host_name() +
                          "." + std::to_string(::getpid())),
               /*truncate=*/true);
  write_record(tensorboard::file_version_event(now, "brain.Event:2"));
  if (resumed_at > 0) {
    // the points at resumed_at itself stay
    write_record(tensorboard::session_start_event(now, resumed_at + 1));
  }
}

void TensorBoardMetrics::scalar(std::int64_t step, const std::string& name, double value) {
  write_record(tensorboard::scalar_event(wall_time(), step, name, static_cast<float>(value)));
}

void TensorBoardMetrics::write_record(const std::string& event) {
  std::string record;
  append_little_endian(record, event.size(), 8);
  append_little_endian(record, masked_crc32c(record.data(), 8), 4);
  record += event;
  append_little_endian(record, masked_crc32c(event.data(), event.size()), 4);
  out_->append(record);
}

}  // namespace mnrl::experiments
