#include "core/available_memory.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mnrl::core {
namespace {
namespace fs = std::filesystem;

// A cgroup v1 limit this high means none.
constexpr double kNoLimit = 1e18;

// The number in the one-line file at `path` ("max" and unreadable files give nothing).
std::optional<double> number_in(const fs::path& path) {
  std::ifstream in(path);
  double value = 0.0;
  if (in >> value) return value;
  return std::nullopt;
}

std::optional<double> mem_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    double kilobytes = 0.0;
    if (fields >> key >> kilobytes && key == "MemAvailable:") return kilobytes * 1024.0;
  }
  return std::nullopt;
}

// The value of `key` in a memory.stat file ("key value" lines), 0 if absent.
double stat_value(const fs::path& path, const std::string& key) {
  std::ifstream stat(path);
  std::string name;
  double value = 0.0;
  while (stat >> name >> value) {
    if (name == key) return value;
  }
  return 0.0;
}

// Room left under a cgroup's limit: `limit_file` minus `usage_file` in `dir`, or in the root of
// the hierarchy when the process's own cgroup directory is not visible (a container). The usage
// counts the page cache, whose inactive part (`cache_key` in memory.stat) the kernel reclaims
// before it refuses memory: a container that has just built mnrl is not full.
std::optional<double> cgroup_room(const fs::path& hierarchy, const std::string& cgroup,
                                  const char* limit_file, const char* usage_file,
                                  const char* cache_key) {
  for (const fs::path& dir : {hierarchy / fs::path(cgroup).relative_path(), hierarchy}) {
    const auto limit = number_in(dir / limit_file);
    if (!limit) continue;
    if (*limit >= kNoLimit) return std::nullopt;
    const double usage = number_in(dir / usage_file).value_or(0.0);
    return *limit - std::max(0.0, usage - stat_value(dir / "memory.stat", cache_key));
  }
  return std::nullopt;
}

// The cgroup's room and the name of its limit, from /proc/self/cgroup: "0::/path" (v2) or
// "N:memory:/path" (v1).
std::optional<AvailableMemory> cgroup_memory() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::optional<double> room;
    std::string limit;
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      room = cgroup_room("/sys/fs/cgroup", path, "memory.max", "memory.current", "inactive_file");
      limit = "memory.max";
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      room = cgroup_room("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes",
                         "memory.usage_in_bytes", "total_inactive_file");
      limit = "memory.limit_in_bytes";
    }
    if (room) return AvailableMemory{std::max(*room, 0.0), "left under the cgroup's " + limit};
  }
  return std::nullopt;
}

}  // namespace

std::optional<AvailableMemory> available_memory() {
  const auto available = mem_available_bytes();
  if (!available) return std::nullopt;
  AvailableMemory result{*available, "available (MemAvailable)"};
  if (const auto cgroup = cgroup_memory(); cgroup && cgroup->bytes < result.bytes) return cgroup;
  return result;
}

}  // namespace mnrl::core
