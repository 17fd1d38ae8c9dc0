#include "experiments/metrics/tensorboard_metrics.h"

#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "core/crc32c.h"
#include "tensorboard_event.pb.h"

namespace mnrl::experiments {
namespace {

double wall_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
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
                          std::to_string(static_cast<std::int64_t>(now)) + "." + host_name() +
                          "." + std::to_string(::getpid())),
               /*truncate=*/true);
  tensorboard::Event header;
  header.set_wall_time(now);
  header.set_file_version("brain.Event:2");
  write_record(header.SerializeAsString());
  if (resumed_at > 0) {
    tensorboard::Event start;
    start.set_wall_time(now);
    start.set_step(resumed_at + 1);  // the points at resumed_at itself stay
    start.mutable_session_log()->set_status(tensorboard::SessionLog::START);
    write_record(start.SerializeAsString());
  }
}

void TensorBoardMetrics::scalar(std::int64_t step, const std::string& name, double value) {
  tensorboard::Event event;
  event.set_wall_time(wall_time());
  event.set_step(step);
  auto* entry = event.mutable_summary()->add_value();
  entry->set_tag(name);
  entry->set_simple_value(static_cast<float>(value));
  write_record(event.SerializeAsString());
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
