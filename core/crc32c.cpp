#include "core/crc32c.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <vector>

namespace mnrl::core {
namespace {

// Slicing-by-8 tables: table[0] is the byte-wise table, table[k] advances k more zero bytes.
using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

Tables make_tables() {
  Tables tables{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    tables[0][byte] = crc;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::size_t byte = 0; byte < 256; ++byte) {
      const std::uint32_t previous = tables[k - 1][byte];
      tables[k][byte] = (previous >> 8) ^ tables[0][previous & 0xffu];
    }
  }
  return tables;
}

const Tables& tables() {
  static const Tables instance = make_tables();
  return instance;
}

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc) {
  const Tables& t = tables();
  const auto* bytes = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (; size >= 8; size -= 8, bytes += 8) {
    const std::uint32_t low = crc ^ (static_cast<std::uint32_t>(bytes[0]) |
                                     static_cast<std::uint32_t>(bytes[1]) << 8 |
                                     static_cast<std::uint32_t>(bytes[2]) << 16 |
                                     static_cast<std::uint32_t>(bytes[3]) << 24);
    crc = t[7][low & 0xff] ^ t[6][(low >> 8) & 0xff] ^ t[5][(low >> 16) & 0xff] ^
          t[4][low >> 24] ^ t[3][bytes[4]] ^ t[2][bytes[5]] ^ t[1][bytes[6]] ^ t[0][bytes[7]];
  }
  for (; size > 0; --size, ++bytes) crc = (crc >> 8) ^ t[0][(crc ^ *bytes) & 0xffu];
  return ~crc;
}

std::string crc32c_hex(std::uint32_t crc) {
  char text[16];
  std::snprintf(text, sizeof text, "%08" PRIx32, crc);
  return text;
}

std::optional<FileDigest> digest_file(const std::filesystem::path& path, std::uint64_t limit) {
  std::error_code ignored;  // a FIFO or a device would block the read or never end
  if (!std::filesystem::is_regular_file(path, ignored)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<char> chunk(1 << 20);
  FileDigest digest;
  while (in && digest.bytes <= limit) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    digest.crc32c = crc32c(chunk.data(), got, digest.crc32c);
    digest.bytes += got;
  }
  if (!in.eof() && digest.bytes <= limit) return std::nullopt;  // a read error
  return digest;
}

}  // namespace mnrl::core
