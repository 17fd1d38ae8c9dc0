#pragma once

#include <cstddef>
#include <cstdint>

namespace mnrl::core {

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TensorBoard's record framing and
// iSCSI use it. `crc` continues an earlier result, so data can be checked piece by piece:
// crc32c(b, crc32c(a)) == crc32c(a + b).
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

}  // namespace mnrl::core
