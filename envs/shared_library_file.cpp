#include "envs/shared_library_file.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

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

// Reads the start of `path` into `out` and `head`; returns how many bytes it got, or -1 with
// errno set if it cannot be read.
long read_identity(const std::string& path, ElfIdentity& out, std::string& head) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[sizeof(ElfIdentity)] = {};
  const ssize_t count = ::read(fd, buffer, sizeof buffer);
  const int read_error = errno;
  ::close(fd);
  errno = read_error;
  if (count < 0) return -1;
  std::memcpy(&out, buffer, sizeof buffer);
  head.assign(buffer, static_cast<std::size_t>(count));
  return count;
}

// The ELF header of the running program (what a loadable library must match), if readable.
std::optional<ElfIdentity> own_identity() {
  ElfIdentity self{};
  std::string head;
  if (read_identity("/proc/self/exe", self, head) < static_cast<long>(sizeof self)) {
    return std::nullopt;
  }
  return self;
}

// "64-bit little-endian"
std::string layout(const ElfIdentity& id) {
  return std::string(id.ident[EI_CLASS] == ELFCLASS64 ? "64" : "32") + "-bit " +
         (id.ident[EI_DATA] == ELFDATA2MSB ? "big" : "little") + "-endian";
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
  if (status.type() == std::filesystem::file_type::not_found) return "no such file";
  if (error) return "cannot read it: " + error.message();
  if (std::filesystem::is_directory(status)) return "it is a directory, not a shared library";
  // A FIFO would block the read below (and dlopen) forever; a device would never end.
  if (!std::filesystem::is_regular_file(status)) {
    return "it is not a regular file (a FIFO, a device or a socket), not a shared library";
  }

  ElfIdentity file{};
  std::string head;
  const long count = read_identity(path, file, head);
  if (count < 0) return std::string("cannot read it: ") + std::strerror(errno);
  if (count < SELFMAG || std::memcmp(file.ident, ELFMAG, SELFMAG) != 0) return not_elf(head);
  if (count < static_cast<long>(sizeof file)) return "it is a truncated ELF file";

  // The class and byte order first: the fields after them are only meaningful in the
  // running program's layout.
  const auto self = own_identity();
  if (self && (file.ident[EI_CLASS] != self->ident[EI_CLASS] ||
               file.ident[EI_DATA] != self->ident[EI_DATA])) {
    return "it was built for a " + layout(file) + " machine; this program runs on " +
           machine_name(self->machine) + " (" + layout(*self) + ")";
  }
  switch (file.type) {
    case ET_DYN: break;
    case ET_REL: return "it is an object file (.o), not a shared library";
    case ET_EXEC: return "it is an executable, not a shared library";
    case ET_CORE: return "it is a core dump, not a shared library";
    default: return "it is not a shared library (ELF type " + std::to_string(file.type) + ")";
  }
  if (self && file.machine != self->machine) {
    return "it was built for " + machine_name(file.machine) + "; this program runs on " +
           machine_name(self->machine);
  }
  return std::nullopt;
}

}  // namespace mnrl::envs
