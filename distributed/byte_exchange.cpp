#include "distributed/byte_exchange.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <ATen/ops/zeros.h>

namespace mnrl::distributed {

std::vector<std::string> all_gather_bytes(Communicator& communicator, const std::string& bytes) {
  at::Tensor length = at::zeros({1}, at::kLong);
  length.data_ptr<std::int64_t>()[0] = static_cast<std::int64_t>(bytes.size());
  const at::Tensor lengths = communicator.all_gather(length);
  const std::int64_t* length_of = lengths.data_ptr<std::int64_t>();
  const std::int64_t longest = *std::max_element(length_of, length_of + communicator.size());

  // The bytes travel as int64 words (the type every backend takes), zero-padded.
  const std::int64_t words = (longest + 7) / 8;
  at::Tensor mine = at::zeros({std::max<std::int64_t>(words, 1)}, at::kLong);
  std::memcpy(mine.data_ptr(), bytes.data(), bytes.size());
  const at::Tensor gathered = communicator.all_gather(mine);
  std::vector<std::string> result;
  const auto* base = static_cast<const char*>(gathered.data_ptr());
  for (int rank = 0; rank < communicator.size(); ++rank) {
    result.emplace_back(base + rank * mine.numel() * 8, static_cast<std::size_t>(length_of[rank]));
  }
  return result;
}

}  // namespace mnrl::distributed
