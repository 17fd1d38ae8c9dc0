#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.h"

namespace mnrl::agents {

// `network.recurrent`: memory between the encoder and the trunks (nn::RecurrentCore), as
// SB3-contrib's RecurrentPPO (lstm_hidden_size 256, one layer, an LSTM each for the policy and
// the value by default).
struct RecurrentOptions {
  std::string type = "none";  // none | lstm | gru
  std::int64_t hidden_size = 256;
  std::int64_t layers = 1;
  bool shared = false;  // one RNN for the policy and the value (CleanRL, RLlib), or one each

  bool on() const { return type != "none"; }
  void visit(core::ConfigVisitor& v) {
    v.field("type", type, "none (no memory), lstm or gru", core::one_of({"none", "lstm", "gru"}));
    v.field("hidden_size", hidden_size, "width of the recurrent state", core::between(1, 65536));
    v.field("layers", layers, "stacked recurrent layers", core::between(1, 64));
    v.field("shared", shared, "one RNN for policy and value, else one each");
  }
};

// The `network:` section: the shape of the networks every algorithm builds (actor-critic or Q).
struct NetworkOptions {
  // Images ([C, H, W] observations): a convolutional encoder before the MLP trunk, MinAtar's
  // (one 3x3 conv of 16 channels, 128 features) or the Nature DQN's (Mnih et al. 2015); the
  // cnn_* keys replace the chosen encoder's layers (empty or -1: the encoder's own).
  std::string encoder = "mlp";  // mlp | minatar_cnn | nature_cnn
  std::vector<std::int64_t> cnn_channels;
  std::vector<std::int64_t> cnn_kernel_sizes;
  std::vector<std::int64_t> cnn_strides;
  std::int64_t cnn_features = -1;
  std::vector<std::int64_t> hidden_sizes{64, 64};  // width of each hidden layer
  std::string activation = "tanh";                 // tanh | relu
  bool shared_trunk = false;                       // one trunk for policy and value, or one each
  bool orthogonal_init = true;                     // SB3/CleanRL initialization
  double log_std_init = 0.0;    // Box actions: initial log-std of the Gaussian policy
  bool squash_output = false;   // Box actions: tanh-squash samples onto the bounds
  bool full_std = true;         // gSDE: a log-std per (feature, action), or per feature
  bool use_expln = false;       // gSDE: std = exp below 0, log1p + 1 above
  bool learn_features = false;  // gSDE: the std's gradient reaches the policy features
  bool dueling = false;         // DQN: dueling Q head
  RecurrentOptions recurrent;   // PPO, A2C: memory after the encoder

  void visit(core::ConfigVisitor& v) {
    v.field("encoder", encoder,
            "observation encoder: an MLP takes the flat observation; "
            "minatar_cnn, nature_cnn: a convolutional encoder for [C, H, W] images",
            core::one_of({"mlp", "minatar_cnn", "nature_cnn"}));
    v.field("cnn_channels", cnn_channels,
            "conv encoder: output channels of each conv layer "
            "(empty: the encoder's own)",
            core::between(1, 4096));
    v.field("cnn_kernel_sizes", cnn_kernel_sizes,
            "conv encoder: square kernel size of each "
            "conv layer (empty: the encoder's own)",
            core::between(1, 1024));
    v.field("cnn_strides", cnn_strides,
            "conv encoder: stride of each conv layer (empty: the "
            "encoder's own)",
            core::between(1, 1024));
    v.field("cnn_features", cnn_features,
            "conv encoder: width of the linear layer after the "
            "convs (0: none; -1: the encoder's own)",
            core::between(-1, 65536));
    v.field("hidden_sizes", hidden_sizes, "hidden layer widths", core::between(1, 65536));
    v.field("activation", activation, "hidden activation", core::one_of({"tanh", "relu"}));
    v.field("shared_trunk", shared_trunk, "share the trunk between policy and value");
    v.field("orthogonal_init", orthogonal_init, "orthogonal initialization");
    v.field("log_std_init", log_std_init, "Box actions: initial log-std of the Gaussian");
    v.field("squash_output", squash_output,
            "Box actions: squash samples with tanh and map them onto the bounds");
    v.field("full_std", full_std, "gSDE: one log-std per (feature, action) pair, else per feature");
    v.field("use_expln", use_expln, "gSDE: std grows as log1p(log_std) + 1 above 0 (not exp)");
    v.field("learn_features", learn_features,
            "gSDE: let the std's gradient reach the policy features");
    v.field("dueling", dueling, "DQN: dueling Q head (V + A - mean A)");
    v.section("recurrent", recurrent,
              "PPO, A2C: an LSTM or GRU between the encoder and the trunks (policies with "
              "memory, for partially observed envs)");
  }
};

}  // namespace mnrl::agents
