#include "nn/policy_export.h"

#include <sstream>

#include <torch/script.h>

namespace mnrl::nn {
namespace {

at::Tensor doubles(const std::vector<double>& values) {
  return torch::tensor(values, torch::kFloat64);
}

at::Tensor floats(const std::vector<float>& values) { return torch::tensor(values, torch::kFloat32); }

// Registers the layer's weight and bias as `name`_weight, `name`_bias; returns the script
// expression of the layer applied to `input`.
std::string linear(torch::jit::Module& module, const std::string& name,
                   const torch::nn::Linear& layer, const std::string& input) {
  module.register_parameter(name + "_weight", layer->weight.detach().to(at::kCPU).clone(), false);
  module.register_parameter(name + "_bias", layer->bias.detach().to(at::kCPU).clone(), false);
  return "torch.linear(" + input + ", self." + name + "_weight, self." + name + "_bias)";
}

// The script lines taking `x` through the encoder, as ConvEncoderImpl::forward: flat rows (or
// images) reshaped to [batch, C, H, W], conv + ReLU layers, flattened, then linear + ReLU.
std::string encoder_lines(torch::jit::Module& module, const ConvEncoderImpl& encoder) {
  const auto& image = encoder.options.image_shape();
  std::string lines = "    x = x.reshape([x.size(0), " + std::to_string(image[0]) + ", " +
                      std::to_string(image[1]) + ", " + std::to_string(image[2]) + "])\n";
  for (std::size_t i = 0; i < encoder.convs().size(); ++i) {
    const torch::nn::Conv2d& conv = encoder.convs()[i];
    const std::string name = "conv" + std::to_string(i);
    const std::string stride = std::to_string(encoder.options.strides()[i]);
    module.register_parameter(name + "_weight", conv->weight.detach().to(at::kCPU).clone(), false);
    module.register_parameter(name + "_bias", conv->bias.detach().to(at::kCPU).clone(), false);
    lines += "    x = torch.relu(torch.conv2d(x, self." + name + "_weight, self." + name +
             "_bias, [" + stride + ", " + stride + "]))\n";
  }
  lines += "    x = torch.flatten(x, 1)\n";
  if (!encoder.linear().is_empty()) {
    lines += "    x = torch.relu(" + linear(module, "encoder_linear", encoder.linear(), "x") + ")\n";
  }
  return lines;
}

// The script lines from the head's output `head` to the greedy action of a Discrete policy.
std::string discrete_lines(torch::jit::Module& module, const GreedyPolicy& policy) {
  const bool dueling = policy.output == GreedyPolicy::Output::dueling_argmax;
  const bool implicit = policy.fraction_features.defined();
  if (policy.atoms == 1 && !implicit && !dueling) return "    action = torch.argmax(head, 1)\n";
  std::string lines = "    q = head\n", value;
  const std::string atoms = std::to_string(policy.atoms);
  if (policy.atoms > 1) {
    const std::int64_t actions = policy.head->weight.size(0) / policy.atoms;
    lines +=
        "    q = head.reshape([head.size(0), " + std::to_string(actions) + ", " + atoms + "])\n";
  }
  if (dueling) {
    lines += "    value = " + linear(module, "value_head", policy.value_head, "x") + "\n";
    if (policy.atoms > 1) lines += "    value = value.reshape([value.size(0), 1, " + atoms + "])\n";
    // Actions are dimension 1 of [batch, actions(, atoms)], 2 of IQN's [batch, K, actions].
    lines +=
        std::string("    q = value + q - torch.mean(q, ") + (implicit ? "2" : "1") + ", True)\n";
  }
  if (!policy.support.empty()) {
    module.register_buffer("support", floats(policy.support));
    lines += "    q = torch.sum(torch.softmax(q, 2) * self.support, 2)\n";
  } else if (policy.atoms > 1) {
    lines += "    q = torch.mean(q, 2)\n";
  }
  if (implicit) lines += "    q = torch.mean(q, 1)\n";
  return lines + "    action = torch.argmax(q, 1)\n";
}

// The script lines taking `x` through the policy's RNN one step, from `state` and into it, as
// RecurrentCoreImpl::forward: per layer LibTorch's LSTM or GRU cell.
std::string memory_lines(torch::jit::Module& module, const RecurrentCoreImpl& memory) {
  const RecurrentCoreOptions& options = memory.options;
  const bool lstm = options.cell() == RecurrentCell::lstm;
  std::string lines = "    memory = state.reshape([state.size(0), " +
                      std::to_string(options.layers()) + ", " + (lstm ? "2" : "1") + ", " +
                      std::to_string(options.hidden_size()) + "])\n";
  std::string after;
  const auto parameters = memory.policy_rnn()->named_parameters();
  for (std::int64_t layer = 0; layer < options.layers(); ++layer) {
    const std::string l = std::to_string(layer);
    std::string weights;
    for (const char* kind : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) {
      const std::string name = std::string("rnn_") + kind + "_l" + l;
      module.register_parameter(
          name, parameters[std::string(kind) + "_l" + l].detach().to(at::kCPU).clone(), false);
      weights += ", self." + name;
    }
    if (lstm) {
      lines += "    h" + l + ", c" + l + " = torch.lstm_cell(x, [memory[:, " + l +
               ", 0], memory[:, " + l + ", 1]]" + weights + ")\n";
      after += "h" + l + ", c" + l + ", ";
    } else {
      lines += "    h" + l + " = torch.gru_cell(x, memory[:, " + l + ", 0]" + weights + ")\n";
      after += "h" + l + ", ";
    }
    lines += "    x = h" + l + "\n";
  }
  after.resize(after.size() - 2);
  return lines + "    state = torch.stack([" + after + "], 1).reshape([state.size(0), -1])\n";
}

}  // namespace

std::string torchscript_policy(const GreedyPolicy& policy) {
  torch::jit::Module module("MnrlGreedyPolicy");
  std::ostringstream source;
  source.precision(17);
  if (policy.memory) {
    source << "def initial_state(self, batch_size: int) -> Tensor:\n"
           << "    return torch.zeros([batch_size, " << policy.memory->policy_state_size()
           << "])\n\n"
           << "def forward(self, observations: Tensor, state: Tensor) -> Tuple[Tensor, Tensor]:\n";
  } else {
    source << "def forward(self, observations: Tensor) -> Tensor:\n";
  }
  source << "    x = observations.float()\n";
  if (policy.byte_scale != 1.0f) {
    module.register_buffer("byte_scale", torch::tensor(policy.byte_scale, torch::kFloat32));
    source << "    x = x * self.byte_scale\n";
  }
  if (const auto& scale = policy.observation_scale) {
    module.register_buffer("observation_mean", doubles(scale->mean));
    module.register_buffer("observation_std", doubles(scale->std));
    source << "    x = torch.clamp((x.double() - self.observation_mean) / self.observation_std, "
           << -scale->clip << ", " << scale->clip << ").float()\n";
  }
  if (policy.encoder) source << encoder_lines(module, *policy.encoder);
  if (policy.memory) source << memory_lines(module, *policy.memory);
  const char* activation = policy.activation == Activation::tanh ? "torch.tanh" : "torch.relu";
  for (std::size_t i = 0; i < policy.trunk.size(); ++i) {
    source << "    x = " << activation << "("
           << linear(module, "trunk" + std::to_string(i), policy.trunk[i], "x") << ")\n";
  }
  if (policy.fraction_features.defined()) {
    module.register_buffer("fraction_features",
                           policy.fraction_features.detach().to(at::kCPU).contiguous());
    source << "    x = x.unsqueeze(1) * self.fraction_features\n";
    for (std::size_t i = 0; i < policy.mixed.size(); ++i) {
      source << "    x = " << activation << "("
             << linear(module, "mixed" + std::to_string(i), policy.mixed[i], "x") << ")\n";
    }
  }
  source << "    head = " << linear(module, "head", policy.head, "x") << "\n";
  if (policy.head_clip) {
    source << "    head = torch.clamp(head, " << -*policy.head_clip << ", " << *policy.head_clip
           << ")\n";
  }
  switch (policy.output) {
    case GreedyPolicy::Output::argmax:
    case GreedyPolicy::Output::dueling_argmax:
      source << discrete_lines(module, policy);
      break;
    case GreedyPolicy::Output::clipped:
      module.register_buffer("action_low", floats(policy.low));
      module.register_buffer("action_high", floats(policy.high));
      source << "    action = torch.max(torch.min(head, self.action_high), self.action_low)\n";
      break;
    case GreedyPolicy::Output::squashed:
      module.register_buffer("action_low", floats(policy.low));
      module.register_buffer("action_high", floats(policy.high));
      source << "    action = self.action_low + 0.5 * (torch.tanh(head) + 1.0) * "
                "(self.action_high - self.action_low)\n";
      break;
  }
  source << (policy.memory ? "    return (action, state)\n" : "    return action\n");
  module.define(source.str());
  module.eval();
  std::ostringstream bytes;
  module.save(bytes);
  return bytes.str();
}

}  // namespace mnrl::nn
