#include "replay/segment_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace mnrl::replay {
namespace {

std::int64_t leaf_count_for(const char* tree, std::int64_t capacity) {
  if (capacity < 1) {
    throw std::invalid_argument(std::string(tree) + ": capacity must be positive, got " +
                                std::to_string(capacity));
  }
  std::int64_t leaves = 1;
  while (leaves < capacity) leaves *= 2;
  return leaves;
}

void check_index(const char* where, std::int64_t i, std::int64_t capacity) {
  if (i < 0 || i >= capacity) {
    throw std::out_of_range(std::string(where) + ": index " + std::to_string(i) +
                            " is outside [0, " + std::to_string(capacity) + ")");
  }
}

}  // namespace

SumTree::SumTree(std::int64_t capacity)
    : capacity_(capacity), leaf_count_(leaf_count_for("SumTree", capacity)) {
  nodes_.assign(static_cast<std::size_t>(2 * leaf_count_), 0.0);
}

void SumTree::set(std::int64_t i, double value) {
  check_index("SumTree::set", i, capacity_);
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument("SumTree::set: value " + std::to_string(value) + " at index " +
                                std::to_string(i) + " must be finite and non-negative");
  }
  auto node = static_cast<std::size_t>(leaf_count_ + i);
  nodes_[node] = value;
  for (node /= 2; node >= 1; node /= 2) nodes_[node] = nodes_[2 * node] + nodes_[2 * node + 1];
}

double SumTree::get(std::int64_t i) const {
  check_index("SumTree::get", i, capacity_);
  return nodes_[static_cast<std::size_t>(leaf_count_ + i)];
}

std::int64_t SumTree::find_prefix_sum(double mass) const {
  if (std::isnan(mass)) throw std::invalid_argument("SumTree::find_prefix_sum: mass is NaN");
  if (!(total() > 0.0)) {
    throw std::logic_error("SumTree::find_prefix_sum: all values are 0");
  }
  mass = std::max(mass, 0.0);
  // An infinite mass descends to the rightmost positive leaf: no rounding of the subtractions
  // below can then stop short of it.
  if (mass >= total()) mass = std::numeric_limits<double>::infinity();
  // Invariant: the subtree under `node` has a positive sum, so the leaf reached is positive.
  // Go left when the prefix is reached there or when nothing positive lies to the right.
  std::size_t node = 1;
  const auto leaves = static_cast<std::size_t>(leaf_count_);
  while (node < leaves) {
    const double left = nodes_[2 * node];
    const double right = nodes_[2 * node + 1];
    if (left > mass || !(right > 0.0)) {
      node = 2 * node;
    } else {
      mass -= left;
      node = 2 * node + 1;
    }
  }
  return static_cast<std::int64_t>(node - leaves);
}

MinTree::MinTree(std::int64_t capacity)
    : capacity_(capacity), leaf_count_(leaf_count_for("MinTree", capacity)) {
  nodes_.assign(static_cast<std::size_t>(2 * leaf_count_), std::numeric_limits<double>::infinity());
}

void MinTree::set(std::int64_t i, double value) {
  check_index("MinTree::set", i, capacity_);
  if (std::isnan(value)) {
    throw std::invalid_argument("MinTree::set: value at index " + std::to_string(i) + " is NaN");
  }
  auto node = static_cast<std::size_t>(leaf_count_ + i);
  nodes_[node] = value;
  for (node /= 2; node >= 1; node /= 2) {
    nodes_[node] = std::min(nodes_[2 * node], nodes_[2 * node + 1]);
  }
}

double MinTree::get(std::int64_t i) const {
  check_index("MinTree::get", i, capacity_);
  return nodes_[static_cast<std::size_t>(leaf_count_ + i)];
}

}  // namespace mnrl::replay
