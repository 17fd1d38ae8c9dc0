#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "distributed/communicator.h"

namespace mnrl::distributed {

// Every rank's `bytes` (any length), in rank order, on every rank: an all-gather of the
// lengths, then one of the bytes padded to the longest. For checkpoints, whose per-rank state
// rank 0 writes.
std::vector<std::string> all_gather_bytes(Communicator& communicator, const std::string& bytes);

// Point to point: `bytes` (any length) to `destination` with `tag`, returning once they may be
// reused; receive_bytes() takes them from `source` (a length, then the bytes as int64 words).
// A length above `at_most` is refused (a rank of another mnrl, or a damaged message) naming
// `what` and the sender, before anything is allocated.
void send_bytes(Communicator& communicator, const std::string& bytes, int destination, int tag);
std::string receive_bytes(Communicator& communicator, int source, int tag, std::int64_t at_most,
                          const std::string& what);

}  // namespace mnrl::distributed
