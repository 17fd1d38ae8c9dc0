#include "core/crc32c.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>

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

// Only regular files are read: a FIFO (a user's data file kwarg, say) would block the ranks'
// agreement until someone writes to it.
TEST(Crc32cTest, DigestsRegularFilesOnly) {
  const std::string file = ::testing::TempDir() + "digest_regular";
  std::ofstream(file) << "123456789";
  const auto digest = mnrl::core::digest_file(file);
  ASSERT_TRUE(digest.has_value());
  EXPECT_EQ(digest->bytes, 9u);
  EXPECT_EQ(digest->crc32c, 0xE3069283u);
  const std::string fifo = ::testing::TempDir() + "digest_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(mnrl::core::digest_file(fifo).has_value());
  EXPECT_FALSE(mnrl::core::digest_file("/dev/zero").has_value());
  std::remove(fifo.c_str());
  std::remove(file.c_str());
}

}  // namespace
