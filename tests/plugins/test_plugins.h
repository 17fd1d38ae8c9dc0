#pragma once

// Paths of the test plugins (tests/plugins) and a copy of one made for another architecture.
#include <elf.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace mnrl::test_plugins {

// <build>/tests/plugins/lib<name>.so
inline std::string path(const std::string& name) {
  return std::string(MNRL_TEST_PLUGIN_DIR) + "/lib" + name + ".so";
}

// How the machine of foreign_copy() is named in the loader's message.
#if defined(__aarch64__)
inline constexpr std::uint16_t kForeignMachine = EM_X86_64;
inline constexpr const char* kForeignMachineName = "x86-64";
#else
inline constexpr std::uint16_t kForeignMachine = EM_AARCH64;
inline constexpr const char* kForeignMachineName = "AArch64 (64-bit ARM)";
#endif

// Copies the working plugin to `destination` with its ELF machine field changed, as a build for
// another architecture would have it.
inline void foreign_copy(const std::filesystem::path& destination) {
  std::filesystem::copy_file(path("walk"), destination,
                             std::filesystem::copy_options::overwrite_existing);
  std::fstream file(destination, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(EI_NIDENT + sizeof(std::uint16_t));  // e_machine follows e_ident and e_type
  file.write(reinterpret_cast<const char*>(&kForeignMachine), sizeof kForeignMachine);
}

}  // namespace mnrl::test_plugins
