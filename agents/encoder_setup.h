#pragma once

#include <optional>

#include "agents/network_options.h"
#include "envs/space.h"
#include "nn/conv_encoder.h"

namespace mnrl::agents {

// The convolutional encoder `network` asks for (network.encoder and the cnn_* keys) on
// observations of `observation_space`, or none for `mlp`. Throws std::invalid_argument saying
// why it cannot be built: an observation that is not a [C, H, W] Box, cnn_* lists of different
// lengths, a kernel that does not fit the image.
std::optional<nn::ConvEncoderOptions> encoder_options(const NetworkOptions& network,
                                                      const envs::Space& observation_space);

}  // namespace mnrl::agents
