#include "distributed/pipeline/stage_partition.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace mnrl::distributed {

std::vector<StageRange> partition_by_parameters(const std::vector<std::int64_t>& counts,
                                                int stages) {
  const std::size_t n = counts.size();
  if (stages < 1 || static_cast<std::size_t>(stages) > n) {
    throw std::invalid_argument("cannot cut a network of " + std::to_string(n) +
                                " block(s) into " + std::to_string(stages) + " pipeline stage(s)");
  }
  std::vector<std::int64_t> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + counts[i];
  // load[k][i]: the smallest largest stage over k + 1 stages holding the blocks [i, n);
  // cut[k][i]: where the first of them ends. Backward so that a tie keeps the longer first
  // stage (the `<=` below).
  const auto k_max = static_cast<std::size_t>(stages);
  constexpr std::int64_t kUnreachable = std::numeric_limits<std::int64_t>::max();
  std::vector<std::vector<std::int64_t>> load(k_max, std::vector<std::int64_t>(n + 1, kUnreachable));
  std::vector<std::vector<std::size_t>> cut(k_max, std::vector<std::size_t>(n + 1, n));
  for (std::size_t i = 0; i < n; ++i) load[0][i] = prefix[n] - prefix[i];
  for (std::size_t k = 1; k < k_max; ++k) {
    for (std::size_t i = 0; i + k < n; ++i) {
      for (std::size_t j = i + 1; j + k <= n; ++j) {
        if (load[k - 1][j] == kUnreachable) continue;
        const std::int64_t worst = std::max(prefix[j] - prefix[i], load[k - 1][j]);
        if (worst <= load[k][i]) {
          load[k][i] = worst;
          cut[k][i] = j;
        }
      }
    }
  }
  std::vector<StageRange> ranges;
  std::size_t first = 0;
  for (std::size_t k = k_max; k-- > 1;) {
    ranges.push_back({first, cut[k][first]});
    first = cut[k][first];
  }
  ranges.push_back({first, n});
  return ranges;
}

std::vector<StageRange> partition_at(const std::vector<std::int64_t>& boundaries,
                                     std::size_t blocks) {
  std::vector<StageRange> ranges;
  std::size_t first = 0;
  for (std::size_t i = 0; i < boundaries.size(); ++i) {
    const std::int64_t b = boundaries[i];
    if (b <= static_cast<std::int64_t>(first) || b >= static_cast<std::int64_t>(blocks)) {
      throw std::invalid_argument(
          "boundary " + std::to_string(i + 1) + " (" + std::to_string(b) +
          ") must be above the one before it (" + std::to_string(first) + ") and below the " +
          std::to_string(blocks) + " blocks of the network");
    }
    ranges.push_back({first, static_cast<std::size_t>(b)});
    first = static_cast<std::size_t>(b);
  }
  ranges.push_back({first, blocks});
  return ranges;
}

}  // namespace mnrl::distributed
