#include "core/state_stream.h"

namespace mnrl::core {

std::string StateReader::text() {
  const auto count = value<std::uint64_t>();
  if (count > remaining()) {
    fail("a text of " + std::to_string(count) + " bytes where " + std::to_string(remaining()) +
         " remain (truncated?)");
  }
  return std::string(take(static_cast<std::size_t>(count)), static_cast<std::size_t>(count));
}

void StateReader::expect_tag(std::string_view name) {
  const std::string found = text();
  if (found != name) {
    throw StateError(source_ + ": expected the state of '" + std::string(name) + "', found '" +
                     found + "' (a checkpoint of another configuration?)");
  }
  section_ = found;
}

void StateReader::expect_end() const {
  if (remaining() != 0) {
    fail(std::to_string(remaining()) + " bytes after the end of the state");
  }
}

void StateReader::fail(const std::string& what) const {
  throw StateError(source_ + ": " + what + " at byte " + std::to_string(offset_) +
                   (section_.empty() ? "" : " (in the state of '" + section_ + "')"));
}

const char* StateReader::take(std::size_t size) {
  if (size > remaining()) {
    fail("truncated: " + std::to_string(size) + " bytes needed, " + std::to_string(remaining()) +
         " left");
  }
  const char* at = bytes_.data() + offset_;
  offset_ += size;
  return at;
}

void StateReader::expect_count(std::size_t count) {
  const auto found = value<std::uint64_t>();
  if (found != count) {
    fail("expected " + std::to_string(count) + " values, found " + std::to_string(found) +
         " (a checkpoint of another configuration?)");
  }
}

}  // namespace mnrl::core
