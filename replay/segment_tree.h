#pragma once

#include <cstdint>
#include <vector>

namespace mnrl::replay {

// Segment trees over `capacity` doubles for prioritized replay (Schaul et al. 2016; the layout
// of OpenAI baselines' SegmentTree): an array-based complete binary tree whose leaf count is
// capacity rounded up to a power of two. Node 1 is the root, node k has children 2k and 2k+1,
// and leaf i is node leaf_count + i. set() is O(log n) and recomputes each ancestor from its
// two children (never by adding a difference), so the inner sums never drift however often a
// leaf is rewritten.

// Sums of non-negative values; unset leaves (and the padding up to the power of two) are 0.
class SumTree {
 public:
  // Throws std::invalid_argument for a capacity < 1.
  explicit SumTree(std::int64_t capacity);

  std::int64_t capacity() const { return capacity_; }

  // Throws std::out_of_range for i outside [0, capacity), std::invalid_argument for a value
  // that is negative or not finite.
  void set(std::int64_t i, double value);
  // Throws std::out_of_range for i outside [0, capacity).
  double get(std::int64_t i) const;
  // Sum of all values, O(1).
  double total() const { return nodes_[1]; }

  // The smallest index i with values[0] + ... + values[i] > mass, in O(log n). The index found
  // always holds a positive value (zeros are never returned). At the edges:
  //  - mass < 0 is treated as 0: the first index with a positive value;
  //  - mass >= total() (including a mass that rounding pushed onto the total) gives the last
  //    index with a positive value.
  // Throws std::invalid_argument for a NaN mass and std::logic_error when total() is 0.
  std::int64_t find_prefix_sum(double mass) const;

 private:
  std::int64_t capacity_;
  std::int64_t leaf_count_;    // capacity rounded up to a power of two
  std::vector<double> nodes_;  // 2 * leaf_count_, node 0 unused
};

// Minimums; unset leaves (and the padding) are +infinity, so min() over a tree with no value
// set is +infinity.
class MinTree {
 public:
  // Throws std::invalid_argument for a capacity < 1.
  explicit MinTree(std::int64_t capacity);

  std::int64_t capacity() const { return capacity_; }

  // Throws std::out_of_range for i outside [0, capacity), std::invalid_argument for NaN
  // (+infinity is allowed: it clears the leaf).
  void set(std::int64_t i, double value);
  // Throws std::out_of_range for i outside [0, capacity).
  double get(std::int64_t i) const;
  // Minimum of all values, O(1).
  double min() const { return nodes_[1]; }

 private:
  std::int64_t capacity_;
  std::int64_t leaf_count_;
  std::vector<double> nodes_;
};

}  // namespace mnrl::replay
