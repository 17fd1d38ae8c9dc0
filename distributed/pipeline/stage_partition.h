#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mnrl::distributed {

// The blocks [first, end) of a network's chain of blocks that one pipeline stage holds.
struct StageRange {
  std::size_t first = 0, end = 0;
  bool operator==(const StageRange& other) const {
    return first == other.first && end == other.end;
  }
};

// `stages` contiguous, non-empty ranges over blocks of the given parameter counts, the largest
// stage's count as small as it can be, and so for the stages after the first among themselves;
// a tie goes to the longer first stage (the last stage also computes the loss).
// Throws std::invalid_argument when stages is below 1 or above the number of blocks.
std::vector<StageRange> partition_by_parameters(const std::vector<std::int64_t>& counts,
                                                int stages);

// The ranges that start at `boundaries` (the first block of stages 1..K-1, increasing, inside
// (0, blocks)): distributed.stage_boundaries. Throws std::invalid_argument saying which
// boundary is out of place.
std::vector<StageRange> partition_at(const std::vector<std::int64_t>& boundaries,
                                     std::size_t blocks);

}  // namespace mnrl::distributed
