#pragma once

#include <string>
#include <vector>

namespace mnrl::core {

// `word` as a shell reads it back: as is when it holds nothing special, else single-quoted.
inline std::string shell_quoted(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A command's words as one shell command line.
inline std::string shell_command_line(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) line += (line.empty() ? "" : " ") + shell_quoted(word);
  return line;
}

}  // namespace mnrl::core
