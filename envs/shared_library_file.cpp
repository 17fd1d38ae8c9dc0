#include "envs/shared_library_file.h"

#include <elf.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace mnrl::envs {
namespace {

// The identification bytes and the fields after them that tell what an ELF file is for; the
// same offsets in 32- and 64-bit files.
struct ElfIdentity {
  unsigned char ident[EI_NIDENT];
  std::uint16_t type;
  std::uint16_t machine;
};

std::string machine_name(std::uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "x86 (32-bit)";
    case EM_AARCH64: return "AArch64 (64-bit ARM)";
    case EM_ARM: return "ARM (32-bit)";
    case EM_RISCV: return "RISC-V";
    case EM_PPC64: return "PowerPC 64";
    case EM_S390: return "IBM Z (s390)";
    default: return "ELF machine " + std::to_string(machine);
  }
}

// Reads the header of `path`; returns how many bytes it got (0 if it cannot be read).
std::size_t read_identity(const std::string& path, ElfIdentity& out, std::string& head) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return 0;
  char buffer[sizeof(ElfIdentity)] = {};
  file.read(buffer, sizeof buffer);
  const auto count = static_cast<std::size_t>(file.gcount());
  std::memcpy(&out, buffer, sizeof buffer);
  head.assign(buffer, count);
  return count;
}

// The ELF header of the running program (what a loadable library must match), if readable.
std::optional<ElfIdentity> own_identity() {
  ElfIdentity self{};
  std::string head;
  if (read_identity("/proc/self/exe", self, head) < sizeof self) return std::nullopt;
  return self;
}

std::string not_elf(const std::string& head) {
  if (head.rfind("!<arch>", 0) == 0) {
    return "it is a static library (.a), not a shared library: build the plugin with "
           "add_library(NAME MODULE ...) or SHARED";
  }
  if (head.rfind("#!", 0) == 0) return "it is a script, not a shared library";
  return "it is not a shared library (no ELF header)";
}

}  // namespace

std::optional<std::string> shared_library_problem(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) return "no such file";
  if (std::filesystem::is_directory(status)) return "it is a directory, not a shared library";

  ElfIdentity file{};
  std::string head;
  errno = 0;
  const std::size_t count = read_identity(path, file, head);
  if (count == 0 && errno != 0) return std::string("cannot read it: ") + std::strerror(errno);
  if (count < SELFMAG || std::memcmp(file.ident, ELFMAG, SELFMAG) != 0) return not_elf(head);
  if (count < sizeof file) return "it is a truncated ELF file";

  switch (file.type) {
    case ET_DYN: break;
    case ET_REL: return "it is an object file (.o), not a shared library";
    case ET_EXEC: return "it is an executable, not a shared library";
    case ET_CORE: return "it is a core dump, not a shared library";
    default: return "it is not a shared library (ELF type " + std::to_string(file.type) + ")";
  }

  const auto self = own_identity();
  if (!self) return std::nullopt;
  const bool same_layout = file.ident[EI_CLASS] == self->ident[EI_CLASS] &&
                           file.ident[EI_DATA] == self->ident[EI_DATA];
  if (!same_layout || file.machine != self->machine) {
    const auto bits = [](const ElfIdentity& id) {
      return std::string(id.ident[EI_CLASS] == ELFCLASS64 ? "64" : "32") + "-bit " +
             (id.ident[EI_DATA] == ELFDATA2MSB ? "big" : "little") + "-endian";
    };
    // A file of the other byte order has its machine field byte-swapped: name only the layout.
    const std::string built_for =
        file.ident[EI_DATA] == self->ident[EI_DATA] ? machine_name(file.machine) : bits(file);
    return "it was built for " + built_for + "; this program runs on " +
           machine_name(self->machine) + (same_layout ? "" : " (" + bits(*self) + ")");
  }
  return std::nullopt;
}

}  // namespace mnrl::envs
