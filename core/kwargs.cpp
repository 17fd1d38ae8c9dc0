#include "core/kwargs.h"

#include <cmath>
#include <limits>
#include <utility>

#include "core/scalar_text.h"
#include "core/text.h"

namespace mnrl::core {
namespace {

// What each type accepts, for "expected X" messages and a missing key's hint.
template <class T>
const char* expected_text() {
  if constexpr (std::is_same_v<T, bool>) return "true or false";
  if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>) return "an integer";
  if constexpr (std::is_floating_point_v<T>) return "a number";
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
    return "a sequence of integers like [3, 4]";
  }
  if constexpr (std::is_same_v<T, std::vector<double>>) return "a sequence of numbers like [0.5, 1]";
  if constexpr (std::is_same_v<T, std::vector<std::string>>) return "a sequence of strings";
}

// One scalar as T, or nullopt if its text is not a T.
template <class T>
std::optional<T> parse_scalar(const std::string& text) {
  if constexpr (std::is_same_v<T, bool>) {
    return parse_bool(text);
  } else if constexpr (std::is_integral_v<T>) {
    const auto value = parse_whole_number(text);
    if (!value || *value < std::numeric_limits<T>::min() || *value > std::numeric_limits<T>::max()) {
      return std::nullopt;
    }
    return static_cast<T>(*value);
  } else if constexpr (std::is_floating_point_v<T>) {
    const auto value = parse_number(text);
    if (!value || std::isnan(*value)) return std::nullopt;
    // A double beyond float's range would turn into infinity silently.
    if (std::isfinite(*value) && std::fabs(*value) > std::numeric_limits<T>::max()) {
      return std::nullopt;
    }
    return static_cast<T>(*value);
  } else {
    return text;
  }
}

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

}  // namespace

KwargError::~KwargError() = default;

Kwargs::Kwargs(std::string path, std::string location)
    : path_(std::move(path)), location_(std::move(location)) {}

void Kwargs::set(const std::string& key, std::string text, std::string location) {
  values_[key] = Value{{std::move(text)}, false, std::move(location)};
}

void Kwargs::set_list(const std::string& key, std::vector<std::string> texts,
                      std::string location) {
  values_[key] = Value{std::move(texts), true, std::move(location)};
}

std::string Kwargs::text_of(double value) { return format_number(value); }

std::vector<std::string> Kwargs::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : values_) out.push_back(entry.first);
  return out;
}

bool Kwargs::is_list(const std::string& key) const { return find(key, "a value").is_list; }

const std::vector<std::string>& Kwargs::texts(const std::string& key) const {
  return find(key, "a value").texts;
}

const Kwargs::Value& Kwargs::find(const std::string& key, const char* expected) const {
  const auto it = values_.find(key);
  if (it == values_.end()) {
    throw KwargError((location_.empty() ? "" : location_ + ": ") + path_ + ": missing key '" +
                     key + "' (" + expected + ")");
  }
  return it->second;
}

template <class T>
T Kwargs::read(const std::string& key) const {
  asked_.insert(key);
  const Value& value = find(key, expected_text<T>());
  const auto wrong_type = [&] {
    const std::string got = value.is_list ? std::string("a sequence")
                            : value.texts.front().empty() ? std::string("an empty value")
                                                          : "'" + elided(value.texts.front()) + "'";
    return error(key, std::string("expected ") + expected_text<T>() + ", got " + got);
  };
  if constexpr (IsVector<T>::value) {
    if (!value.is_list) throw wrong_type();
    T out;
    for (std::size_t i = 0; i < value.texts.size(); ++i) {
      const auto element = parse_scalar<typename T::value_type>(value.texts[i]);
      if (!element) {
        throw error(key, "element " + std::to_string(i) + ": expected " + expected_text<T>() +
                             ", got '" + elided(value.texts[i]) + "'");
      }
      out.push_back(*element);
    }
    return out;
  } else {
    if (value.is_list) throw wrong_type();
    const auto parsed = parse_scalar<T>(value.texts.front());
    if (!parsed) throw wrong_type();
    return *parsed;
  }
}

KwargError Kwargs::error(const std::string& key, const std::string& message) const {
  const auto it = values_.find(key);
  const std::string& location = it != values_.end() && !it->second.location.empty()
                                    ? it->second.location
                                    : location_;
  return KwargError((location.empty() ? "" : location + ": ") + path_ + "." + elided(key) + ": " +
                    message);
}

std::vector<std::string> Kwargs::unread_keys() const {
  std::vector<std::string> out;
  for (const auto& entry : values_) {
    if (asked_.count(entry.first) == 0) out.push_back(entry.first);
  }
  return out;
}

std::vector<std::string> Kwargs::asked_keys() const {
  return std::vector<std::string>(asked_.begin(), asked_.end());
}

template bool Kwargs::read<bool>(const std::string&) const;
template int Kwargs::read<int>(const std::string&) const;
template std::int64_t Kwargs::read<std::int64_t>(const std::string&) const;
template float Kwargs::read<float>(const std::string&) const;
template double Kwargs::read<double>(const std::string&) const;
template std::string Kwargs::read<std::string>(const std::string&) const;
template std::vector<std::int64_t> Kwargs::read<std::vector<std::int64_t>>(
    const std::string&) const;
template std::vector<double> Kwargs::read<std::vector<double>>(const std::string&) const;
template std::vector<std::string> Kwargs::read<std::vector<std::string>>(
    const std::string&) const;

}  // namespace mnrl::core
