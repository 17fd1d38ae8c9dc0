// TensorBoard event files: the record framing and both CRCs of every record, the exact bytes of
// each message mnrl encodes by hand, and every record decoded by protoc (a real protocol buffer
// implementation) against TensorFlow's field numbers (tests/data/tensorboard_event.proto).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/metrics/tensorboard_event.h"
#include "experiments/metrics/tensorboard_metrics.h"

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

// The serialized events of the file, each record checked against its two CRCs.
std::vector<std::string> read_records(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  std::vector<std::string> events;
  std::size_t at = 0;
  while (at < bytes.size()) {
    EXPECT_LE(at + 12, bytes.size()) << "a truncated record header";
    const std::uint64_t length = little_endian(bytes, at, 8);
    EXPECT_EQ(little_endian(bytes, at + 8, 4), TensorBoardMetrics::masked_crc32c(&bytes[at], 8));
    EXPECT_LE(at + 12 + length + 4, bytes.size()) << "a truncated record";
    std::string data = bytes.substr(at + 12, length);
    EXPECT_EQ(little_endian(bytes, at + 12 + length, 4),
              TensorBoardMetrics::masked_crc32c(data.data(), data.size()));
    events.push_back(std::move(data));
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

  // protoc's text rendering of one serialized Event (with TensorFlow's field names).
  std::string decode(const std::string& event) {
    const fs::path input = dir_ / "event.bin";
    std::ofstream(input, std::ios::binary) << event;
    const std::string command = std::string(MNRL_PROTOC) + " --proto_path=" MNRL_SOURCE_DIR
                                "/tests/data --decode=mnrl.tensorboard.Event "
                                "tensorboard_event.proto < " + input.string() + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    std::string text;
    char chunk[256];
    while (std::fgets(chunk, sizeof chunk, pipe.get())) text += chunk;
    return text;
  }

  void skip_without_protoc() {
    if (std::string(MNRL_PROTOC).empty()) {
      GTEST_SKIP() << "protoc not found when mnrl was configured (Debian: protobuf-compiler)";
    }
  }
  fs::path dir_;
};

TEST_F(TensorBoardTest, MaskedCrcIsTensorFlows) {
  // masked_crc32c of "123456789": CRC-32C 0xE3069283 rotated right by 15, plus 0xa282ead8.
  const std::uint32_t crc = 0xE3069283u;
  EXPECT_EQ(TensorBoardMetrics::masked_crc32c("123456789", 9),
            ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
}

// The bytes protobuf itself writes for these messages (key byte = field number << 3 | wire
// type): wall_time 1.0 is fixed64 0x3ff0000000000000, a step of 0 is left out.
TEST_F(TensorBoardTest, MessagesAreEncodedAsProtobufEncodesThem) {
  const std::string one = {0, 0, 0, 0, 0, 0, static_cast<char>(0xf0), 0x3f};
  const std::string wall_time = std::string(1, (1 << 3) | 1) + one;
  EXPECT_EQ(tensorboard::file_version_event(1.0, "v"),
            wall_time + std::string({(3 << 3) | 2, 1, 'v'}));
  // step = 2 (varint 300 = 0xac 0x02), summary = 5 { value = 1 { tag = 1 "a",
  // simple_value = 2 (fixed32 1.0f) } }
  EXPECT_EQ(tensorboard::scalar_event(1.0, 300, "a", 1.0f),
            wall_time + std::string({(2 << 3) | 0, static_cast<char>(0xac), 2, (5 << 3) | 2, 10,
                                     (1 << 3) | 2, 8, (1 << 3) | 2, 1, 'a', (2 << 3) | 5, 0, 0,
                                     static_cast<char>(0x80), 0x3f}));
  EXPECT_EQ(tensorboard::session_start_event(1.0, 3),
            wall_time + std::string({(2 << 3) | 0, 3, (7 << 3) | 2, 2, (1 << 3) | 0, 1}));
}

TEST_F(TensorBoardTest, EventFileDecodesWithTensorFlowsSchema) {
  skip_without_protoc();
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

  const auto events = read_records(path);
  ASSERT_EQ(events.size(), 4u);
  const std::string header = decode(events[0]);
  EXPECT_NE(header.find("file_version: \"brain.Event:2\""), std::string::npos) << header;
  EXPECT_NE(header.find("wall_time: 1"), std::string::npos) << header;  // 1.7e9 and on
  EXPECT_EQ(header.find("step"), std::string::npos) << header;
  const std::string expected[] = {
      "step: 10\nsummary {\n  value {\n    tag: \"charts/episodic_return\"\n"
      "    simple_value: 21.5\n  }\n}\n",
      "step: 10\nsummary {\n  value {\n    tag: \"losses/value_loss\"\n"
      "    simple_value: 0.125\n  }\n}\n",
      "step: 20\nsummary {\n  value {\n    tag: \"charts/episodic_return\"\n"
      "    simple_value: -3\n  }\n}\n"};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string text = decode(events[i + 1]);
    ASSERT_EQ(text.rfind("wall_time: ", 0), 0u) << text;
    EXPECT_EQ(text.substr(text.find('\n') + 1), expected[i]);
  }
}

TEST_F(TensorBoardTest, AResumedRunStartsWithASessionStartAtItsStep) {
  skip_without_protoc();
  fs::path path;
  {
    TensorBoardMetrics metrics(dir_, 4096);
    path = metrics.path();
    metrics.scalar(4100, "charts/SPS", 1000.0);
  }
  const auto events = read_records(path);
  ASSERT_EQ(events.size(), 3u);
  const std::string start = decode(events[1]);
  EXPECT_EQ(start.substr(start.find('\n') + 1),
            "step: 4097\nsession_log {\n  status: START\n}\n");
  EXPECT_NE(decode(events[2]).find("tag: \"charts/SPS\""), std::string::npos);
}

}  // namespace
}  // namespace mnrl::experiments
