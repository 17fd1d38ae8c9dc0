#include <gtest/gtest.h>

#include <string>

#include "core/crc32c.h"

namespace {

using mnrl::core::crc32c;

// Check values of CRC-32C (RFC 3720 appendix B.4 and the common "123456789" check).
TEST(Crc32cTest, MatchesPublishedCheckValues) {
  const std::string digits = "123456789";
  EXPECT_EQ(crc32c(digits.data(), digits.size()), 0xE3069283u);
  const std::string zeros(32, '\0');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  const std::string ones(32, '\xff');
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  std::string ascending(32, '\0');
  for (int i = 0; i < 32; ++i) ascending[static_cast<std::size_t>(i)] = static_cast<char>(i);
  EXPECT_EQ(crc32c(ascending.data(), ascending.size()), 0x46DD794Eu);
  EXPECT_EQ(crc32c(nullptr, 0), 0u);
}

TEST(Crc32cTest, ContinuesAcrossPiecesOfAnyLength) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>((i * 37) & 0xff);
  const std::uint32_t whole = crc32c(text.data(), text.size());
  for (const std::size_t cut : {0u, 1u, 7u, 8u, 9u, 500u, 999u, 1000u}) {
    const std::uint32_t first = crc32c(text.data(), cut);
    EXPECT_EQ(crc32c(text.data() + cut, text.size() - cut, first), whole) << cut;
  }
  text[500] ^= 1;
  EXPECT_NE(crc32c(text.data(), text.size()), whole);
}

}  // namespace
