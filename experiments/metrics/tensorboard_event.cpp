#include "experiments/metrics/tensorboard_event.h"

#include <cstring>

namespace mnrl::experiments::tensorboard {
namespace {

// Wire types of the protocol buffer encoding.
enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void put_key(std::string& out, std::uint32_t field, WireType type) {
  put_varint(out, (field << 3) | type);
}

template <typename Bits>
void put_fixed(std::string& out, Bits bits) {
  for (std::size_t i = 0; i < sizeof bits; ++i) {
    out += static_cast<char>((bits >> (8 * i)) & 0xffu);
  }
}

void put_double(std::string& out, std::uint32_t field, double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  put_key(out, field, kFixed64);
  put_fixed(out, bits);
}

void put_float(std::string& out, std::uint32_t field, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  put_key(out, field, kFixed32);
  put_fixed(out, bits);
}

void put_int64(std::string& out, std::uint32_t field, std::int64_t value) {
  if (value == 0) return;  // proto3 default
  put_key(out, field, kVarint);
  put_varint(out, static_cast<std::uint64_t>(value));  // negative: ten bytes, as protobuf
}

void put_bytes(std::string& out, std::uint32_t field, const std::string& bytes) {
  put_key(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out += bytes;
}

// Event's field numbers.
constexpr std::uint32_t kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5,
                        kSessionLog = 7;

std::string event_head(double wall_time, std::int64_t step) {
  std::string event;
  put_double(event, kWallTime, wall_time);
  put_int64(event, kStep, step);
  return event;
}

}  // namespace

std::string file_version_event(double wall_time, const std::string& version) {
  std::string event = event_head(wall_time, 0);
  put_bytes(event, kFileVersion, version);
  return event;
}

std::string scalar_event(double wall_time, std::int64_t step, const std::string& tag,
                         float value) {
  std::string summary_value;  // Summary.Value { tag = 1, simple_value = 2 }
  put_bytes(summary_value, 1, tag);
  put_float(summary_value, 2, value);
  std::string summary;  // Summary { repeated Value value = 1 }
  put_bytes(summary, 1, summary_value);
  std::string event = event_head(wall_time, step);
  put_bytes(event, kSummary, summary);
  return event;
}

std::string session_start_event(double wall_time, std::int64_t step) {
  constexpr std::int64_t kStart = 1;  // SessionLog.SessionStatus.START
  std::string session_log;            // SessionLog { status = 1 }
  put_int64(session_log, 1, kStart);
  std::string event = event_head(wall_time, step);
  put_bytes(event, kSessionLog, session_log);
  return event;
}

}  // namespace mnrl::experiments::tensorboard
