#pragma once

#include <cstddef>
#include <fstream>
#include <stdexcept>
#include <string>

namespace mnrl::replay {

// Raw little helpers for the replay files (machine byte order, documented where used).

template <typename T>
void append(std::string& out, const T* values, std::size_t count) {
  out.append(reinterpret_cast<const char*>(values), count * sizeof(T));
}

template <typename T>
void append_value(std::string& out, T value) {
  append(out, &value, 1);
}

// Reads exactly `count` values or throws "<path>: truncated <what>".
template <typename T>
void read_exact(std::ifstream& in, T* values, std::size_t count, const std::string& path,
                const char* what) {
  in.read(reinterpret_cast<char*>(values), static_cast<std::streamsize>(count * sizeof(T)));
  if (static_cast<std::size_t>(in.gcount()) != count * sizeof(T)) {
    throw std::runtime_error(path + ": truncated " + what);
  }
}

}  // namespace mnrl::replay
