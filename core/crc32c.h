#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>

namespace mnrl::core {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TensorBoard's record framing and
// iSCSI use it. `crc` continues an earlier result, so data can be checked piece by piece:
// crc32c(b, crc32c(a)) == crc32c(a + b).
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

// "0a1b2c3d": a CRC as eight hex digits, as manifests and run_info.yaml write it.
std::string crc32c_hex(std::uint32_t crc);

struct FileDigest {
  std::uint64_t bytes = 0;
  std::uint32_t crc32c = 0;
};

// Size and CRC-32C of the file at `path`, reading at most a little past `limit` bytes (bytes
// then exceeds limit): a file longer than expected is not read to its end. nullopt if it
// cannot be read or is not a regular file (a FIFO or a device is never read).
std::optional<FileDigest> digest_file(
    const std::filesystem::path& path,
    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max());

}  // namespace mnrl::core
