#include "core/host_name.h"

#include <unistd.h>

#include <functional>

namespace mnrl::core {

std::string host_name() {
  char name[256] = {};  // gethostname may leave a truncated name unterminated: keep the last 0
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

std::int64_t host_name_hash() {
  return static_cast<std::int64_t>(std::hash<std::string>()(host_name()) >> 1);
}

}  // namespace mnrl::core
