#include "core/scalar_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace mnrl::core {
namespace {

// Removes a leading '+' or '-' from `text`; returns true for '-'.
bool strip_sign(std::string_view& text) {
  const bool negative = !text.empty() && text.front() == '-';
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return negative;
}

// `word` in lower case, Capitalized or UPPER case.
bool spelled_as(std::string_view text, std::string_view word) {
  if (text.size() != word.size()) return false;
  bool lower = true;
  bool capitalized = true;
  bool upper = true;
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = text[i];
    const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(word[i])));
    lower = lower && c == word[i];
    capitalized = capitalized && c == (i == 0 ? up : word[i]);
    upper = upper && c == up;
  }
  return lower || capitalized || upper;
}

}  // namespace

std::optional<std::int64_t> parse_integer(std::string_view text) {
  const bool negative = strip_sign(text);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    base = text[1] == 'x' ? 16 : 8;
    text.remove_prefix(2);
  }
  std::uint64_t magnitude = 0;
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, magnitude, base);
  if (text.empty() || result.ec != std::errc() || result.ptr != end) return std::nullopt;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (magnitude > kMax + (negative ? 1 : 0)) return std::nullopt;
  // Negating in unsigned arithmetic keeps -2^63 representable.
  return static_cast<std::int64_t>(negative ? 0 - magnitude : magnitude);
}

std::optional<double> parse_number(std::string_view text) {
  if (const auto integer = parse_integer(text)) return static_cast<double>(*integer);
  if (text == ".nan" || text == ".NaN" || text == ".NAN") {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const bool negative = strip_sign(text);
  const double sign = negative ? -1.0 : 1.0;
  if (text == ".inf" || text == ".Inf" || text == ".INF") {
    return sign * std::numeric_limits<double>::infinity();
  }
  // from_chars would also take "inf", "nan" and "infinity", which YAML reads as strings.
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) {
    return std::nullopt;
  }
  double value = 0;
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  if (result.ec != std::errc() || result.ptr != end) return std::nullopt;
  return sign * value;
}

std::optional<std::int64_t> parse_whole_number(std::string_view text) {
  if (const auto integer = parse_integer(text)) return integer;
  const auto number = parse_number(text);
  if (!number || !std::isfinite(*number) || std::trunc(*number) != *number) return std::nullopt;
  // 2^63 is the first double above the int64 range.
  if (*number >= 0x1p63 || *number < -0x1p63) return std::nullopt;
  return static_cast<std::int64_t>(*number);
}

std::optional<bool> parse_bool(std::string_view text) {
  for (const std::string_view word : {"true", "yes", "on", "y"}) {
    if (spelled_as(text, word)) return true;
  }
  for (const std::string_view word : {"false", "no", "off", "n"}) {
    if (spelled_as(text, word)) return false;
  }
  return std::nullopt;
}

std::string format_number(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  const double magnitude = std::fabs(value);
  const bool fixed = magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e16);
  char buffer[64];
  const auto format = fixed ? std::chars_format::fixed : std::chars_format::scientific;
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, format);
  return std::string(buffer, result.ptr);
}

std::string format_float(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace mnrl::core
