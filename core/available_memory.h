#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mnrl::core {

// Memory this process can still have: the kernel's MemAvailable, or less where the process's
// cgroup leaves less room under its limit (v2 memory.max, v1 memory.limit_in_bytes, minus what
// the cgroup uses now).
struct AvailableMemory {
  double bytes = 0.0;
  std::string source;  // "available (MemAvailable)", "left under the cgroup's memory.max"
};

// nullopt when /proc/meminfo cannot be read (then no bound is known).
std::optional<AvailableMemory> available_memory();

}  // namespace mnrl::core
