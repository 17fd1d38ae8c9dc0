#pragma once

#include <cstdint>
#include <string>

namespace mnrl::experiments::tensorboard {

// The three TensorFlow Event messages mnrl writes, serialized in protocol buffer wire format by
// hand (the fields are few and fixed, and linking libprotobuf clashed with the protobuf copy
// inside LibTorch 2.x wheels). Field numbers are those of TensorFlow's event.proto and
// summary.proto; fields at their proto3 default (a step of 0) are left out, as protobuf does.
// tests/data/tensorboard_event.proto is the schema the tests decode these bytes with.

// Event { wall_time = 1, file_version = 3 }
std::string file_version_event(double wall_time, const std::string& version);

// Event { wall_time = 1, step = 2, summary = 5 { value = 1 { tag = 1, simple_value = 2 } } }
std::string scalar_event(double wall_time, std::int64_t step, const std::string& tag,
                         float value);

// Event { wall_time = 1, step = 2, session_log = 7 { status = 1 (START) } }
std::string session_start_event(double wall_time, std::int64_t step);

}  // namespace mnrl::experiments::tensorboard
