#pragma once

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

namespace mnrl::nn {

enum class RecurrentCell { lstm, gru };

struct RecurrentCoreOptions {
  RecurrentCoreOptions(std::int64_t input_size, std::int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}

  TORCH_ARG(std::int64_t, input_size);
  TORCH_ARG(std::int64_t, hidden_size);
  TORCH_ARG(RecurrentCell, cell) = RecurrentCell::lstm;
  TORCH_ARG(std::int64_t, layers) = 1;
  // One RNN feeding the policy and the value (CleanRL, RLlib), or one each (SB3-contrib's
  // RecurrentPPO default: shared_lstm false, enable_critic_lstm true).
  TORCH_ARG(bool, shared) = false;
};

// What a step of a recurrent core gives: the features of the policy and of the value (the same
// tensor when shared), [steps, batch, hidden_size], and the memory after the last step.
struct RecurrentOutput {
  at::Tensor policy_features;
  at::Tensor value_features;
  at::Tensor state;
};

// The memory of an actor-critic: LSTM or GRU layers between the encoder and the trunks.
//
// Its state travels as one float tensor [batch, state_size()] per env, so rollouts, checkpoints
// and exported policies hold it as plain rows: for each RNN (the policy's, then the value's
// unless shared), for each layer, h then (LSTM) c, each hidden_size wide. A zero state is an
// episode's start.
class RecurrentCoreImpl : public torch::nn::Module {
 public:
  explicit RecurrentCoreImpl(RecurrentCoreOptions options);

  std::int64_t state_size() const;
  // The RNNs: 1 when shared, else the policy's then the value's, each with its part of the
  // state in that order, policy_state_size() wide; their parameters as LibTorch names them
  // (weight_ih_l0, weight_hh_l0, bias_ih_l0, ...).
  std::int64_t rnn_count() const { return options.shared() ? 1 : 2; }
  std::shared_ptr<torch::nn::Module> rnn(std::int64_t index) const;
  std::shared_ptr<torch::nn::Module> policy_rnn() const { return rnn(0); }
  std::int64_t policy_state_size() const;

  // `inputs` [steps, batch, input_size] from `state` [batch, state_size()]; `episode_starts`
  // [steps, batch] (float, 1 where that step's observation begins an episode: the memory
  // carried into it is zeroed first, so a sequence may span episodes).
  RecurrentOutput forward(const at::Tensor& inputs, const at::Tensor& episode_starts,
                          const at::Tensor& state);

  RecurrentCoreOptions options;

 private:
  // One RNN over inputs[begin, end) from its part of the state; returns the outputs and
  // writes the part after the last step into `state_out`.
  at::Tensor run(int rnn, const at::Tensor& inputs, const at::Tensor& state, at::Tensor& state_out);

  torch::nn::LSTM lstms_[2] = {nullptr, nullptr};
  torch::nn::GRU grus_[2] = {nullptr, nullptr};
};
TORCH_MODULE(RecurrentCore);

}  // namespace mnrl::nn
