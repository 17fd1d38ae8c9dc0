#include "replay/segment_tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace mnrl::replay {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

SumTree sum_tree_of(const std::vector<double>& values) {
  SumTree tree(static_cast<std::int64_t>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) tree.set(static_cast<std::int64_t>(i), values[i]);
  return tree;
}

TEST(SumTreeTest, StartsAtZeroAndSumsWhatIsSet) {
  SumTree tree(5);  // rounded up to 8 leaves inside
  EXPECT_EQ(tree.capacity(), 5);
  EXPECT_EQ(tree.total(), 0.0);
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(tree.get(i), 0.0);
  tree.set(0, 1.0);
  tree.set(4, 2.5);
  tree.set(2, 0.25);
  EXPECT_EQ(tree.total(), 3.75);
  EXPECT_EQ(tree.get(4), 2.5);
  tree.set(4, 0.5);  // overwriting replaces, not adds
  EXPECT_EQ(tree.total(), 1.75);
  tree.set(0, 0.0);
  EXPECT_EQ(tree.total(), 0.75);
}

TEST(SumTreeTest, CapacityOneIsALeafAndTheRoot) {
  SumTree tree(1);
  tree.set(0, 3.0);
  EXPECT_EQ(tree.total(), 3.0);
  EXPECT_EQ(tree.find_prefix_sum(0.0), 0);
  EXPECT_EQ(tree.find_prefix_sum(2.9), 0);
  EXPECT_EQ(tree.find_prefix_sum(100.0), 0);
}

// Values 1, 2, 3, 4: prefix sums 1, 3, 6, 10.
TEST(SumTreeTest, FindPrefixSumOnHandCases) {
  const SumTree tree = sum_tree_of({1, 2, 3, 4});
  EXPECT_EQ(tree.total(), 10.0);
  EXPECT_EQ(tree.find_prefix_sum(0.0), 0);
  EXPECT_EQ(tree.find_prefix_sum(0.99), 0);
  EXPECT_EQ(tree.find_prefix_sum(1.0), 1);  // prefix must exceed the mass, not equal it
  EXPECT_EQ(tree.find_prefix_sum(2.99), 1);
  EXPECT_EQ(tree.find_prefix_sum(3.0), 2);
  EXPECT_EQ(tree.find_prefix_sum(5.5), 2);
  EXPECT_EQ(tree.find_prefix_sum(6.0), 3);
  EXPECT_EQ(tree.find_prefix_sum(9.99), 3);
}

// Capacity 6 (8 leaves inside) with zeros at the start, in the middle and at the end:
// values 0, 2, 0, 0, 1, 0 -> prefix sums 0, 2, 2, 2, 3, 3.
TEST(SumTreeTest, FindPrefixSumSkipsZerosWithNonPowerOfTwoCapacity) {
  const SumTree tree = sum_tree_of({0, 2, 0, 0, 1, 0});
  EXPECT_EQ(tree.total(), 3.0);
  EXPECT_EQ(tree.find_prefix_sum(0.0), 1);
  EXPECT_EQ(tree.find_prefix_sum(1.999), 1);
  EXPECT_EQ(tree.find_prefix_sum(2.0), 4);
  EXPECT_EQ(tree.find_prefix_sum(2.5), 4);
}

TEST(SumTreeTest, FindPrefixSumClampsAtTheEdges) {
  const SumTree tree = sum_tree_of({0, 2, 0, 0, 1, 0, 0});
  // Below zero: the first positive value.
  EXPECT_EQ(tree.find_prefix_sum(-1.0), 1);
  EXPECT_EQ(tree.find_prefix_sum(-kInf), 1);
  // At or above the total: the last positive value, never the zero padding after it.
  EXPECT_EQ(tree.find_prefix_sum(3.0), 4);
  EXPECT_EQ(tree.find_prefix_sum(3.0 + 1e-9), 4);
  EXPECT_EQ(tree.find_prefix_sum(1e300), 4);
  EXPECT_EQ(tree.find_prefix_sum(kInf), 4);
  // Just below the total still lands on the last positive value.
  EXPECT_EQ(tree.find_prefix_sum(std::nextafter(3.0, 0.0)), 4);
}

// Values that do not add up exactly in floating point: whatever the mass, the index found
// holds a positive value and its prefix brackets the mass.
TEST(SumTreeTest, FindPrefixSumNeverReturnsAZeroUnderRounding) {
  std::vector<double> values(37, 0.0);
  for (std::size_t i = 0; i < values.size(); i += 3) values[i] = 0.1 * static_cast<double>(i + 1);
  const SumTree tree = sum_tree_of(values);
  for (int k = 0; k <= 1000; ++k) {
    const double mass = tree.total() * k / 1000.0;
    const std::int64_t i = tree.find_prefix_sum(mass);
    ASSERT_GT(values[static_cast<std::size_t>(i)], 0.0) << "mass " << mass;
    double before = 0.0;
    for (std::int64_t j = 0; j < i; ++j) before += values[static_cast<std::size_t>(j)];
    EXPECT_LE(before, mass + 1e-9) << "mass " << mass;
    if (k < 1000) {
      EXPECT_GT(before + values[static_cast<std::size_t>(i)], mass - 1e-9) << "mass " << mass;
    }
  }
}

TEST(SumTreeTest, RejectsBadInput) {
  EXPECT_THROW(SumTree(0), std::invalid_argument);
  EXPECT_THROW(SumTree(-3), std::invalid_argument);
  SumTree tree(3);
  EXPECT_THROW(tree.set(3, 1.0), std::out_of_range);
  EXPECT_THROW(tree.set(-1, 1.0), std::out_of_range);
  EXPECT_THROW(tree.get(3), std::out_of_range);
  EXPECT_THROW(tree.set(0, -1.0), std::invalid_argument);
  EXPECT_THROW(tree.set(0, kInf), std::invalid_argument);
  EXPECT_THROW(tree.set(0, std::nan("")), std::invalid_argument);
  EXPECT_THROW(tree.find_prefix_sum(0.0), std::logic_error);  // all zero
  tree.set(1, 1.0);
  EXPECT_THROW(tree.find_prefix_sum(std::nan("")), std::invalid_argument);
}

TEST(MinTreeTest, TracksTheMinimumOfWhatIsSet) {
  MinTree tree(5);
  EXPECT_EQ(tree.capacity(), 5);
  EXPECT_EQ(tree.min(), kInf);  // nothing set
  EXPECT_EQ(tree.get(3), kInf);
  tree.set(3, 2.0);
  EXPECT_EQ(tree.min(), 2.0);
  tree.set(0, 5.0);
  tree.set(4, 0.5);
  EXPECT_EQ(tree.min(), 0.5);
  EXPECT_EQ(tree.get(0), 5.0);
  tree.set(4, 7.0);  // raising the minimum brings back the next one
  EXPECT_EQ(tree.min(), 2.0);
  tree.set(3, kInf);  // clearing
  EXPECT_EQ(tree.min(), 5.0);
  tree.set(1, -1.0);
  EXPECT_EQ(tree.min(), -1.0);
}

TEST(MinTreeTest, CapacityOneAndBadInput) {
  MinTree tree(1);
  tree.set(0, 4.0);
  EXPECT_EQ(tree.min(), 4.0);
  EXPECT_THROW(MinTree(0), std::invalid_argument);
  EXPECT_THROW(tree.set(1, 1.0), std::out_of_range);
  EXPECT_THROW(tree.get(-1), std::out_of_range);
  EXPECT_THROW(tree.set(0, std::nan("")), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::replay
