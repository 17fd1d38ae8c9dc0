// TensorBoard event files read back with the same protocol buffer definitions: record framing,
// both CRCs of every record, and the values.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/crc32c.h"
#include "experiments/metrics/tensorboard_metrics.h"
#include "tensorboard_event.pb.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

std::uint64_t little_endian(const std::string& bytes, std::size_t at, int size) {
  std::uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  }
  return value;
}

// Every record of the file, each checked against its two CRCs.
std::vector<tensorboard::Event> read_events(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  std::vector<tensorboard::Event> events;
  std::size_t at = 0;
  while (at < bytes.size()) {
    EXPECT_LE(at + 12, bytes.size()) << "a truncated record header";
    const std::uint64_t length = little_endian(bytes, at, 8);
    EXPECT_EQ(little_endian(bytes, at + 8, 4), TensorBoardMetrics::masked_crc32c(&bytes[at], 8));
    EXPECT_LE(at + 12 + length + 4, bytes.size()) << "a truncated record";
    const std::string data = bytes.substr(at + 12, length);
    EXPECT_EQ(little_endian(bytes, at + 12 + length, 4),
              TensorBoardMetrics::masked_crc32c(data.data(), data.size()));
    tensorboard::Event event;
    EXPECT_TRUE(event.ParseFromString(data));
    events.push_back(event);
    at += 12 + length + 4;
  }
  return events;
}

class TensorBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mnrl_tensorboard_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(TensorBoardTest, MaskedCrcIsTensorFlows) {
  // masked_crc32c of "123456789": CRC-32C 0xE3069283 rotated right by 15, plus 0xa282ead8.
  const std::uint32_t crc = 0xE3069283u;
  EXPECT_EQ(TensorBoardMetrics::masked_crc32c("123456789", 9),
            ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
}

// The field numbers of TensorFlow's event.proto and summary.proto, as they appear on the wire
// (key byte = field number << 3 | wire type), so TensorBoard reads what mnrl writes.
TEST_F(TensorBoardTest, FieldNumbersAreTensorFlows) {
  tensorboard::Event version;
  version.set_file_version("brain.Event:2");
  EXPECT_EQ(version.SerializeAsString()[0], (3 << 3) | 2);
  tensorboard::Event scalar;
  auto* value = scalar.mutable_summary()->add_value();
  value->set_tag("a");
  value->set_simple_value(1.0f);
  // summary = 5 (length-delimited) { value = 1 { tag = 1 "a", simple_value = 2 (fixed32) } }
  const std::string expected = {(5 << 3) | 2, 10, (1 << 3) | 2, 8, (1 << 3) | 2, 1, 'a',
                                (2 << 3) | 5, 0, 0, static_cast<char>(0x80), 0x3f};
  EXPECT_EQ(scalar.SerializeAsString(), expected);
  tensorboard::Event start;
  start.mutable_session_log()->set_status(tensorboard::SessionLog::START);
  EXPECT_EQ(start.SerializeAsString(), std::string({(7 << 3) | 2, 2, (1 << 3) | 0, 1}));
  tensorboard::Event stepped;
  stepped.set_wall_time(1.0);
  stepped.set_step(3);
  EXPECT_EQ(stepped.SerializeAsString().substr(0, 1), std::string(1, (1 << 3) | 1));
  EXPECT_EQ(stepped.SerializeAsString().substr(9), std::string({(2 << 3) | 0, 3}));
}

TEST_F(TensorBoardTest, EventFileParsesBackWithItsValues) {
  fs::path path;
  {
    TensorBoardMetrics metrics(dir_);
    path = metrics.path();
    metrics.scalar(10, "charts/episodic_return", 21.5);
    metrics.scalar(10, "losses/value_loss", 0.125);
    metrics.scalar(20, "charts/episodic_return", -3.0);
    metrics.flush();
  }
  EXPECT_EQ(path.parent_path(), dir_);
  EXPECT_EQ(path.filename().string().rfind("events.out.tfevents.", 0), 0u) << path;

  const auto events = read_events(path);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_GT(events[0].wall_time(), 1.6e9);
  struct Expected {
    std::int64_t step;
    const char* tag;
    float value;
  };
  const Expected expected[] = {{10, "charts/episodic_return", 21.5f},
                               {10, "losses/value_loss", 0.125f},
                               {20, "charts/episodic_return", -3.0f}};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& event = events[i + 1];
    EXPECT_EQ(event.step(), expected[i].step);
    ASSERT_TRUE(event.has_summary());
    ASSERT_EQ(event.summary().value_size(), 1);
    EXPECT_EQ(event.summary().value(0).tag(), expected[i].tag);
    EXPECT_EQ(event.summary().value(0).simple_value(), expected[i].value);
    EXPECT_GE(event.wall_time(), events[0].wall_time());
  }
}

TEST_F(TensorBoardTest, AResumedRunStartsWithASessionStartAtItsStep) {
  fs::path path;
  {
    TensorBoardMetrics metrics(dir_, 4096);
    path = metrics.path();
    metrics.scalar(4100, "charts/SPS", 1000.0);
  }
  const auto events = read_events(path);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].step(), 4097);
  EXPECT_EQ(events[1].session_log().status(), tensorboard::SessionLog::START);
  EXPECT_EQ(events[2].summary().value(0).tag(), "charts/SPS");
}

}  // namespace
}  // namespace mnrl::experiments
