#include "distributed/byte_exchange.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace mnrl::distributed {
namespace {

// Bytes travel as int64 words (the type every backend takes), zero-padded: how many, at least
// one.
std::int64_t words_for(std::int64_t bytes) { return std::max<std::int64_t>((bytes + 7) / 8, 1); }

}  // namespace

std::vector<std::string> all_gather_bytes(Communicator& communicator, const std::string& bytes) {
  at::Tensor length = at::zeros({1}, at::kLong);
  length.data_ptr<std::int64_t>()[0] = static_cast<std::int64_t>(bytes.size());
  const at::Tensor lengths = communicator.all_gather(length);
  const std::int64_t* length_of = lengths.data_ptr<std::int64_t>();
  const std::int64_t longest = *std::max_element(length_of, length_of + communicator.size());

  at::Tensor mine = at::zeros({words_for(longest)}, at::kLong);
  std::memcpy(mine.data_ptr(), bytes.data(), bytes.size());
  const at::Tensor gathered = communicator.all_gather(mine);
  std::vector<std::string> result;
  const auto* base = static_cast<const char*>(gathered.data_ptr());
  for (int rank = 0; rank < communicator.size(); ++rank) {
    result.emplace_back(base + rank * mine.numel() * 8, static_cast<std::size_t>(length_of[rank]));
  }
  return result;
}

void send_bytes(Communicator& communicator, const std::string& bytes, int destination, int tag) {
  at::Tensor length = at::zeros({1}, at::kLong);
  length.data_ptr<std::int64_t>()[0] = static_cast<std::int64_t>(bytes.size());
  communicator.send(length, destination, tag);
  at::Tensor words = at::zeros({words_for(static_cast<std::int64_t>(bytes.size()))}, at::kLong);
  std::memcpy(words.data_ptr(), bytes.data(), bytes.size());
  communicator.send(words, destination, tag);
}

std::string receive_bytes(Communicator& communicator, int source, int tag, std::int64_t at_most,
                          const std::string& what) {
  at::Tensor length = at::zeros({1}, at::kLong);
  communicator.receive(length, source, tag);
  const std::int64_t size = length.data_ptr<std::int64_t>()[0];
  if (size < 0 || size > at_most) {
    throw std::runtime_error(what + " from rank " + std::to_string(source) + ": " +
                             std::to_string(size) + " bytes, expected at most " +
                             std::to_string(at_most));
  }
  at::Tensor words = at::empty({words_for(size)}, at::kLong);
  communicator.receive(words, source, tag);
  return std::string(static_cast<const char*>(words.data_ptr()), static_cast<std::size_t>(size));
}

}  // namespace mnrl::distributed
