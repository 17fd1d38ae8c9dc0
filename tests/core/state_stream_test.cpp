#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/state_stream.h"

namespace {

using mnrl::core::StateError;
using mnrl::core::StateReader;
using mnrl::core::StateWriter;

std::string error_of(const std::string& bytes, void (*read)(StateReader&)) {
  StateReader in(bytes, "x.state");
  try {
    read(in);
  } catch (const StateError& e) {
    return e.what();
  }
  return "(no error)";
}

StateWriter sample() {
  StateWriter out;
  out.tag("sample");
  out.value(std::int64_t{-42});
  out.value(2.5);
  out.values(std::vector<float>{1.0f, 2.0f, 3.0f});
  out.values(std::array<std::uint64_t, 2>{7, 9});
  out.text("hello");
  return out;
}

void read_sample(StateReader& in) {
  in.expect_tag("sample");
  EXPECT_EQ(in.value<std::int64_t>(), -42);
  EXPECT_EQ(in.value<double>(), 2.5);
  std::vector<float> floats(3);
  in.values(floats);
  EXPECT_EQ(floats, (std::vector<float>{1.0f, 2.0f, 3.0f}));
  std::array<std::uint64_t, 2> pair{};
  in.values(pair);
  EXPECT_EQ(pair[1], 9u);
  EXPECT_EQ(in.text(), "hello");
  in.expect_end();
}

TEST(StateStreamTest, ReadsBackWhatWasWritten) {
  EXPECT_EQ(error_of(sample().bytes(), read_sample), "(no error)");
}

TEST(StateStreamTest, EveryTruncationIsRefusedWithThePlace) {
  const std::string bytes = sample().bytes();
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const std::string message = error_of(bytes.substr(0, size), [](StateReader& in) {
      in.expect_tag("sample");
      in.value<std::int64_t>();
      in.value<double>();
      std::vector<float> floats(3);
      in.values(floats);
      std::array<std::uint64_t, 2> pair{};
      in.values(pair);
      in.text();
      in.expect_end();
    });
    EXPECT_EQ(message.rfind("x.state: ", 0), 0u) << size << ": " << message;
  }
}

TEST(StateStreamTest, NamesAnotherSectionAndAnotherSize) {
  EXPECT_EQ(error_of(sample().bytes(), [](StateReader& in) { in.expect_tag("other"); }),
            "x.state: expected the state of 'other', found 'sample' (a checkpoint of another "
            "configuration?)");
  const std::string sizes = error_of(sample().bytes(), [](StateReader& in) {
    in.expect_tag("sample");
    in.value<std::int64_t>();
    in.value<double>();
    std::vector<float> four(4);
    in.values(four);
  });
  EXPECT_NE(sizes.find("expected 4 values, found 3"), std::string::npos) << sizes;
  EXPECT_NE(sizes.find("(in the state of 'sample')"), std::string::npos) << sizes;
  const std::string trailing = error_of(sample().bytes() + "xy", read_sample);
  EXPECT_NE(trailing.find("2 bytes after the end of the state"), std::string::npos) << trailing;
}

}  // namespace
