#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace mnrl::core {

// A keyword argument that is missing, of the wrong type or out of range. The message names the
// key path and where it was written ("configs/grid.yaml:9:11: env.kwargs.size: ...").
class KwargError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
  ~KwargError() override;  // out of line: one type_info, in libmnrl_core, for plugins too
};

// Keyword arguments of an environment's constructor: `env.kwargs` in YAML, or set in code.
// Values are kept as the text the user wrote (a scalar, or a sequence of scalars) and converted
// when the env asks for a type, so each env decides what its values mean and a mistyped one is
// reported where it was written:
//
//   explicit GridWorld(const core::Kwargs& kwargs)
//       : size_(kwargs.get<int>("size", 5)), slip_(kwargs.get<double>("slip", 0.0)) {
//     if (size_ < 2) throw kwargs.error("size", "must be at least 2");
//   }
//
// get<T> supports bool, int, std::int64_t, float, double, std::string, and std::vector of
// std::int64_t, double or std::string. Types follow the config's rules: a bool is true/false
// (yes/no, on/off), an integer also takes a whole float ("1e3"), a number takes .inf.
// The registry refuses kwargs that the env never asked for (a typo would otherwise be ignored).
// An env reads its kwargs in its constructor and must not keep a reference to them.
class Kwargs {
 public:
  Kwargs() = default;
  // `path` names the mapping in messages ("env.kwargs"); `location` is where it was written
  // ("configs/grid.yaml:7:3"), empty if nowhere in particular (set in code).
  Kwargs(std::string path, std::string location);

  // Sets a scalar from its text as YAML would hold it ("5", "0.1", "true", "left").
  void set(const std::string& key, std::string text, std::string location = "");
  // Sets a number or a bool.
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  void set(const std::string& key, T value, std::string location = "") {
    set(key, text_of(value), std::move(location));
  }
  // Sets a sequence of scalars, each as text.
  void set_list(const std::string& key, std::vector<std::string> texts,
                std::string location = "");

  const std::string& path() const { return path_; }
  const std::string& location() const { return location_; }  // of the mapping
  bool empty() const { return values_.empty(); }
  bool contains(const std::string& key) const { return values_.count(key) > 0; }
  std::vector<std::string> keys() const;  // sorted
  bool is_list(const std::string& key) const;
  // The text of a scalar, or of each element of a sequence (for writing the config back).
  const std::vector<std::string>& texts(const std::string& key) const;

  // The value of `key` as T; throws KwargError if it is missing or not a T.
  template <class T>
  T get(const std::string& key) const {
    static_assert(kSupported<T>,
                  "Kwargs::get<T>: T must be bool, int, std::int64_t, float, double, std::string, "
                  "or a std::vector of std::int64_t, double or std::string");
    return read<T>(key);
  }
  // The value of `key` as T, or `fallback` if absent; throws KwargError if present but not a T.
  template <class T>
  T get(const std::string& key, const T& fallback) const {
    asked_.insert(key);
    return contains(key) ? get<T>(key) : fallback;
  }

  std::string get(const std::string& key, const char* fallback) const {
    return get<std::string>(key, std::string(fallback));
  }

  // A KwargError located at `key` (or at the mapping, for a key that is absent):
  // "<where>: env.kwargs.size: <message>". For an env's own checks of a value's range.
  KwargError error(const std::string& key, const std::string& message) const;

  // Keys present but never asked for by get(), and keys asked for, both sorted.
  std::vector<std::string> unread_keys() const;
  std::vector<std::string> asked_keys() const;

 private:
  struct Value {
    std::vector<std::string> texts;  // one for a scalar
    bool is_list = false;
    std::string location;
  };

  template <class T>
  static constexpr bool kSupported =
      std::is_same_v<T, bool> || std::is_same_v<T, int> || std::is_same_v<T, std::int64_t> ||
      std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::string> ||
      std::is_same_v<T, std::vector<std::int64_t>> || std::is_same_v<T, std::vector<double>> ||
      std::is_same_v<T, std::vector<std::string>>;

  // get<T> for the supported types (instantiated in kwargs.cpp).
  template <class T>
  T read(const std::string& key) const;

  static std::string text_of(bool value) { return value ? "true" : "false"; }
  static std::string text_of(double value);
  template <class T>
  static std::string text_of(T value) {
    if constexpr (std::is_floating_point_v<T>) {
      return text_of(static_cast<double>(value));
    } else {
      return std::to_string(value);
    }
  }

  const Value& find(const std::string& key, const char* expected) const;

  std::string path_ = "kwargs";
  std::string location_;
  std::map<std::string, Value> values_;
  mutable std::set<std::string> asked_;  // every key get() was called with
};

}  // namespace mnrl::core
