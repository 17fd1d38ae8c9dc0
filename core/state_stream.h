#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mnrl::core {

// A saved state cannot be read back: truncated, of another kind or another configuration.
// The message names the source (a checkpoint file) and what was expected.
class StateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes a component's state (env, wrapper, agent, buffer) as raw bytes in host byte order,
// for checkpoints. Components write named sections (tag) so a reader that meets another
// component's state says which it expected and which it found. Torch-free: envs use it too.
class StateWriter {
 public:
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  template <class T>
  void values(const T* data, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    value(static_cast<std::uint64_t>(count));
    bytes_.append(reinterpret_cast<const char*>(data), count * sizeof(T));
  }
  template <class T>
  void values(const std::vector<T>& v) {
    values(v.data(), v.size());
  }
  template <class T, std::size_t N>
  void values(const std::array<T, N>& a) {
    values(a.data(), N);
  }
  void text(std::string_view s) { values(s.data(), s.size()); }
  // Starts a section; the reader's expect_tag() must name the same one.
  void tag(std::string_view name) { text(name); }

  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Reads what a StateWriter wrote, in the same order. Every read is bounds-checked: running past
// the end, a count other than the destination's size, or an unexpected tag throws StateError
// naming `source`.
class StateReader {
 public:
  StateReader(std::string_view bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  template <class T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  template <class T>
  void value(T& v) {
    v = value<T>();
  }
  // Exactly `count` values into `data`.
  template <class T>
  void values(T* data, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    expect_count(count);
    const char* bytes = take(count * sizeof(T));
    if (count > 0)
      std::memcpy(data, bytes, count * sizeof(T));  // an empty vector's data() may be null
  }
  // Exactly v.size() values: the destination is sized by the configuration, so a state of
  // another configuration is refused rather than resized into.
  template <class T>
  void values(std::vector<T>& v) {
    values(v.data(), v.size());
  }
  template <class T, std::size_t N>
  void values(std::array<T, N>& a) {
    values(a.data(), N);
  }
  std::string text();
  void expect_tag(std::string_view name);

  std::size_t remaining() const { return bytes_.size() - offset_; }
  // Throws unless everything was read.
  void expect_end() const;
  const std::string& source() const { return source_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const char* take(std::size_t size);
  void expect_count(std::size_t count);

  std::string_view bytes_;
  std::size_t offset_ = 0;
  std::string source_;
  std::string section_;  // the last tag, for messages
};

}  // namespace mnrl::core
