#pragma once

#include <string>
#include <vector>

#include "distributed/communicator.h"

namespace mnrl::distributed {

// Every rank's `bytes` (any length), in rank order, on every rank: an all-gather of the
// lengths, then one of the bytes padded to the longest. For checkpoints, whose per-rank state
// rank 0 writes.
std::vector<std::string> all_gather_bytes(Communicator& communicator, const std::string& bytes);

}  // namespace mnrl::distributed
