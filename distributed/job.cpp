#include "distributed/job.h"

#include <cstdlib>

#include <ATen/ops/tensor.h>

#include "distributed/communicator.h"

namespace mnrl::distributed {

Job::Job() : world_(make_communicator("auto")) {}

Job::~Job() = default;

int Job::rank() const { return world_->rank(); }

int Job::size() const { return world_->size(); }

std::string Job::rank_label() const {
  if (size() == 1) return "";
  return " (rank " + std::to_string(rank()) + " of " + std::to_string(size()) + ")";
}

std::vector<int> Job::ranks_where(bool condition) {
  const at::Tensor flags =
      world_->all_gather(at::tensor({static_cast<std::int64_t>(condition)}, at::kLong));
  std::vector<int> ranks;
  for (int rank = 0; rank < size(); ++rank) {
    if (flags[rank].item<std::int64_t>() != 0) ranks.push_back(rank);
  }
  return ranks;
}

void Job::abort(int code) {
  world_->abort(code);
  std::_Exit(code);  // not reached; GCC does not see [[noreturn]] through the virtual call
}

}  // namespace mnrl::distributed
