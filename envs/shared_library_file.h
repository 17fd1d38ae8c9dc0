#pragma once

#include <optional>
#include <string>

namespace mnrl::envs {

// Why the file at `path` cannot be a shared library this process can load, judged from the file
// itself: missing, unreadable, not ELF (a static archive, a script, text), an object file or an
// executable, or built for another architecture ("built for AArch64; this program runs on
// x86-64"). nullopt when the ELF header fits; dlopen has the last word.
std::optional<std::string> shared_library_problem(const std::string& path);

}  // namespace mnrl::envs
