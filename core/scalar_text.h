#pragma once

// YAML 1.2 core scalars as text: what the config reader and env kwargs accept, and how numbers
// are written back so that they read as the same value.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mnrl::core {

// Decimal, 0x hex and 0o octal integers with an optional sign; nullopt if `text` is not one or
// does not fit in int64.
std::optional<std::int64_t> parse_integer(std::string_view text);

// An integer, a decimal float, or .inf / .nan in their YAML spellings.
std::optional<double> parse_number(std::string_view text);

// An integer, or a float that is a whole number within int64 ("1e5", "100000.0").
std::optional<std::int64_t> parse_whole_number(std::string_view text);

// true/false, yes/no, on/off, y/n in lower case, Capitalized or UPPER case (as yaml-cpp reads).
std::optional<bool> parse_bool(std::string_view text);

// Shortest text that reads back as exactly `value`, laid out like Python's repr ("0.0003",
// "1e-05", "3", "1e+16"), with YAML's spelling for the non-finite values.
std::string format_number(double value);

// Shortest text that reads back as exactly the float `value` ("0.1", "inf", "nan").
std::string format_float(float value);

}  // namespace mnrl::core
