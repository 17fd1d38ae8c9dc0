#include "nn/recurrent_core.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/stack.h>
#include <c10/util/Exception.h>

#include <vector>

namespace mnrl::nn {
namespace {

// h and c (LSTM) or h (GRU) per layer.
std::int64_t tensors_per_layer(const RecurrentCoreOptions& options) {
  return options.cell() == RecurrentCell::lstm ? 2 : 1;
}

// The steps where a segment without episode starts inside begins: 0, and every step at which
// some env's episode starts.
std::vector<std::int64_t> segment_starts(const at::Tensor& episode_starts) {
  const at::Tensor any = episode_starts.to(at::kCPU).to(at::kFloat).amax(1).contiguous();
  const float* flags = any.data_ptr<float>();
  std::vector<std::int64_t> starts{0};
  for (std::int64_t t = 1; t < any.size(0); ++t) {
    if (flags[t] != 0.0f) starts.push_back(t);
  }
  return starts;
}

}  // namespace

RecurrentCoreImpl::RecurrentCoreImpl(RecurrentCoreOptions options_) : options(options_) {
  TORCH_CHECK(options.hidden_size() > 0 && options.layers() > 0,
              "RecurrentCore: hidden_size and layers must be positive");
  for (std::int64_t r = 0; r < rnn_count(); ++r) {
    const std::string name = r == 0 ? "policy_rnn" : "value_rnn";
    if (options.cell() == RecurrentCell::lstm) {
      lstms_[r] = register_module(
          name, torch::nn::LSTM(torch::nn::LSTMOptions(options.input_size(), options.hidden_size())
                                    .num_layers(options.layers())));
    } else {
      grus_[r] = register_module(
          name, torch::nn::GRU(torch::nn::GRUOptions(options.input_size(), options.hidden_size())
                                   .num_layers(options.layers())));
    }
  }
}

std::int64_t RecurrentCoreImpl::state_size() const {
  return rnn_count() * options.layers() * tensors_per_layer(options) * options.hidden_size();
}

std::shared_ptr<torch::nn::Module> RecurrentCoreImpl::rnn(std::int64_t index) const {
  TORCH_CHECK(index >= 0 && index < rnn_count(), "RecurrentCore: no RNN ", index);
  if (options.cell() == RecurrentCell::lstm) return lstms_[index].ptr();
  return grus_[index].ptr();
}

std::int64_t RecurrentCoreImpl::policy_state_size() const {
  return state_size() / rnn_count();
}

at::Tensor RecurrentCoreImpl::run(int rnn, const at::Tensor& inputs, const at::Tensor& state,
                                  at::Tensor& state_out) {
  const std::int64_t batch = state.size(0);
  const std::int64_t per_layer = tensors_per_layer(options);
  // [batch, layers, h|c, hidden] -> per tensor [layers, batch, hidden], as the RNNs take them.
  const at::Tensor parts =
      state.view({batch, options.layers(), per_layer, options.hidden_size()}).transpose(0, 1);
  if (options.cell() == RecurrentCell::lstm) {
    auto [outputs, hc] = lstms_[rnn]->forward(
        inputs, std::make_tuple(parts.select(2, 0).contiguous(), parts.select(2, 1).contiguous()));
    state_out =
        at::stack({std::get<0>(hc), std::get<1>(hc)}, 2).transpose(0, 1).reshape({batch, -1});
    return outputs;
  }
  auto [outputs, h] = grus_[rnn]->forward(inputs, parts.select(2, 0).contiguous());
  state_out = h.transpose(0, 1).reshape({batch, -1});
  return outputs;
}

RecurrentOutput RecurrentCoreImpl::forward(const at::Tensor& inputs,
                                           const at::Tensor& episode_starts,
                                           const at::Tensor& state) {
  const std::int64_t steps = inputs.size(0);
  TORCH_CHECK(episode_starts.size(0) == steps && state.size(1) == state_size(),
              "RecurrentCore: inputs, episode starts and state disagree");
  const std::int64_t rnns = rnn_count();
  const std::int64_t part = state_size() / rnns;
  const std::vector<std::int64_t> segments = segment_starts(episode_starts);
  std::vector<at::Tensor> outputs[2];
  at::Tensor carried = state;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    const std::int64_t begin = segments[s];
    const std::int64_t end = s + 1 < segments.size() ? segments[s + 1] : steps;
    // Envs whose episode starts here forget what they carried.
    carried = carried * (1 - episode_starts[begin]).unsqueeze(1);
    std::vector<at::Tensor> after(static_cast<std::size_t>(rnns));
    for (std::int64_t r = 0; r < rnns; ++r) {
      outputs[r].push_back(run(static_cast<int>(r), inputs.slice(0, begin, end),
                               carried.narrow(1, r * part, part), after[r]));
    }
    carried = rnns == 1 ? after[0] : at::cat(after, 1);
  }
  RecurrentOutput result;
  result.policy_features = at::cat(outputs[0]);
  result.value_features = rnns == 1 ? result.policy_features : at::cat(outputs[1]);
  result.state = carried;
  return result;
}

}  // namespace mnrl::nn
