// The hand-written tanh pass: accuracy against the double-precision tanh over the whole range
// a network's pre-activations take, the limits, and the same bits wherever a value sits in the
// array (vector lanes or the tail).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "nn/tanh_array.h"

namespace mnrl::nn {
namespace {

std::vector<float> tanh_of(const std::vector<float>& x) {
  std::vector<float> y(x.size());
  tanh_of_array(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
  return y;
}

TEST(TanhArrayTest, WithinTwoTenMillionthsOfTheExactValueFromMinusTwentyToTwenty) {
  std::vector<float> x;
  for (int i = -200000; i <= 200000; ++i) x.push_back(static_cast<float>(i) * 1e-4f);
  const std::vector<float> y = tanh_of(x);
  double largest = 0.0;
  float worst = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double error = std::fabs(static_cast<double>(y[i]) - std::tanh(static_cast<double>(x[i])));
    if (error > largest) {
      largest = error;
      worst = x[i];
    }
  }
  EXPECT_LE(largest, 2e-7) << "at x = " << worst;
}

TEST(TanhArrayTest, SmallValuesKeepTheirRelativeAccuracy) {
  std::vector<float> x;
  for (float v = 1e-30f; v < 0.3f; v *= 1.01f) {
    x.push_back(v);
    x.push_back(-v);
  }
  const std::vector<float> y = tanh_of(x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double exact = std::tanh(static_cast<double>(x[i]));
    ASSERT_LE(std::fabs(y[i] - exact), 1e-6 * std::fabs(exact)) << "x = " << x[i];
  }
}

TEST(TanhArrayTest, LimitsAndSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> y = tanh_of({0.0f, -0.0f, 30.0f, -30.0f, 1e30f, -1e30f, inf, -inf,
                                        std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);  // the sign of a zero is not kept: no later layer can tell
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], -1.0f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_EQ(y[5], -1.0f);
  EXPECT_EQ(y[6], 1.0f);
  EXPECT_EQ(y[7], -1.0f);
  // A NaN pre-activation (a diverged network) must stay NaN, so divergence is seen.
  EXPECT_TRUE(std::isnan(y[8])) << y[8];
}

TEST(TanhArrayTest, OddAndTheSameBitsInLanesAndTail) {
  std::vector<float> x;
  for (int i = 0; i < 37; ++i) x.push_back(0.37f * static_cast<float>(i) - 6.0f);
  const std::vector<float> whole = tanh_of(x);
  for (std::size_t begin = 0; begin < x.size(); ++begin) {
    for (std::size_t length = 1; begin + length <= x.size() && length <= 17; ++length) {
      std::vector<float> part(x.begin() + static_cast<std::ptrdiff_t>(begin),
                              x.begin() + static_cast<std::ptrdiff_t>(begin + length));
      const std::vector<float> y = tanh_of(part);
      for (std::size_t i = 0; i < length; ++i) {
        ASSERT_EQ(std::memcmp(&y[i], &whole[begin + i], sizeof(float)), 0)
            << "x = " << part[i] << " at offset " << i << " of " << length;
      }
    }
  }
  std::vector<float> negated(x);
  for (float& v : negated) v = -v;
  const std::vector<float> y = tanh_of(negated);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], -whole[i]) << "x = " << x[i];
}

}  // namespace
}  // namespace mnrl::nn
