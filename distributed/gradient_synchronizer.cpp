#include "distributed/gradient_synchronizer.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <ATen/ops/full.h>

#include "core/crc32c.h"

namespace mnrl::distributed {

GradientSynchronizer::GradientSynchronizer(Communicator& communicator, at::Tensor parameters,
                                           at::Tensor gradients,
                                           GradientSynchronizerOptions options)
    : communicator_(communicator),
      parameters_(std::move(parameters)),
      gradients_(std::move(gradients)),
      bucket_elements_(std::max<std::int64_t>(
          1, options.bucket_bytes / static_cast<std::int64_t>(sizeof(float)))) {
  for (const at::Tensor* t : {&parameters_, &gradients_}) {
    TORCH_CHECK(t->is_contiguous() && t->scalar_type() == at::kFloat && t->dim() == 1,
                "GradientSynchronizer: flat contiguous float32 tensors are needed");
  }
  TORCH_CHECK(parameters_.numel() == gradients_.numel(),
              "GradientSynchronizer: parameters and gradients differ in size");
}

std::int64_t GradientSynchronizer::buckets() const {
  return (gradients_.numel() + bucket_elements_ - 1) / bucket_elements_;
}

void GradientSynchronizer::broadcast_parameters() {
  at::Tensor values = parameters_.detach();
  communicator_.broadcast(values, 0);
}

void GradientSynchronizer::average_gradients() { average_gradients(0, gradients_.numel()); }

void GradientSynchronizer::average_gradients(std::int64_t offset, std::int64_t count) {
  if (offset < 0 || count < 0 || offset + count > gradients_.numel()) {
    throw std::out_of_range("GradientSynchronizer: gradient range [" + std::to_string(offset) +
                            ", " + std::to_string(offset + count) + ") is outside the " +
                            std::to_string(gradients_.numel()) + " gradients");
  }
  const std::int64_t end = offset + count;
  for (std::int64_t begin = offset; begin < end; begin += bucket_elements_) {
    at::Tensor bucket = gradients_.narrow(0, begin, std::min(bucket_elements_, end - begin));
    communicator_.all_reduce(bucket, ReduceOp::kMean);
  }
}

void GradientSynchronizer::check_in_sync() {
  const at::Tensor values = parameters_.detach().to(at::kCPU);
  const std::uint32_t hash = core::crc32c(
      values.data_ptr<float>(), static_cast<std::size_t>(values.numel()) * sizeof(float));
  const at::Tensor all = communicator_.all_gather(
      at::full({1}, static_cast<std::int64_t>(hash), at::TensorOptions().dtype(at::kLong)));
  std::string differing;
  for (int r = 1; r < communicator_.size(); ++r) {
    if (all[r].item<std::int64_t>() != all[0].item<std::int64_t>()) {
      differing += (differing.empty() ? "" : ", ") + std::to_string(r);
    }
  }
  if (!differing.empty()) {
    throw ReplicaDivergenceError("replicas diverged: the parameters on rank(s) " + differing +
                                 " differ from rank 0's (checked by CRC-32C of their bytes)");
  }
}

}  // namespace mnrl::distributed
