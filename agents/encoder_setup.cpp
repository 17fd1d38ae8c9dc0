#include "agents/encoder_setup.h"

#include <stdexcept>
#include <string>
#include <variant>

namespace mnrl::agents {

std::optional<nn::ConvEncoderOptions> encoder_options(const NetworkOptions& network,
                                                      const envs::Space& observation_space) {
  if (network.encoder == "mlp") return std::nullopt;
  const auto* box = std::get_if<envs::Box>(&observation_space);
  if (!box || box->shape.size() != 3) {
    throw std::invalid_argument(network.encoder +
                                " needs images, a Box of shape [C, H, W]; the observation is " +
                                envs::describe(observation_space));
  }
  nn::ConvEncoderOptions options = network.encoder == "minatar_cnn"
                                       ? nn::ConvEncoderOptions::minatar(box->shape)
                                       : nn::ConvEncoderOptions::nature(box->shape);
  if (!network.cnn_channels.empty()) options.channels(network.cnn_channels);
  if (!network.cnn_kernel_sizes.empty()) options.kernel_sizes(network.cnn_kernel_sizes);
  if (!network.cnn_strides.empty()) options.strides(network.cnn_strides);
  if (network.cnn_features >= 0) options.features(network.cnn_features);
  nn::conv_output_shape(options);  // throws std::invalid_argument for layers that do not fit
  return options;
}

}  // namespace mnrl::agents
