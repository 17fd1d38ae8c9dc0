#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace mnrl::core {

// Number of single-character insertions, deletions and substitutions that turn a into b.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a plausible typo, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" when a close candidate exists, else "". For error messages.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// `text` for an error message that echoes what a user gave: as is up to `max_bytes`, else its
// first `max_bytes` (cut at a character boundary) and "… (N bytes)". A 900 KB scalar in a
// config is named, not printed.
std::string elided(std::string_view text, std::size_t max_bytes = 80);

// `text` as a YAML double-quoted scalar ("..." with " and \ escaped).
std::string yaml_quoted(std::string_view text);

// `text` as a CSV field (RFC 4180): as it is, or in double quotes (" doubled) where it holds a
// comma, a quote or a line break.
std::string csv_field(std::string_view text);

// "a, b, c" for messages that list the allowed values.
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

// "a, b and c" (conjunction "and") or "a, b or c" ("or"), for prose.
std::string listed(const std::vector<std::string>& items, std::string_view conjunction);

// A C++ symbol name in source form ("_Z4stepv" -> "step()"); other names come back as given.
std::string demangle(const char* symbol);

// The demangled dynamic type of `e` ("std::runtime_error").
std::string type_name(const std::exception& e);

}  // namespace mnrl::core
