#pragma once

#include <cstdint>
#include <vector>

namespace mnrl::envs {

// An RGB picture of an env, as Gymnasium's render_mode="rgb_array" returns it: `pixels` holds
// height x width x 3 bytes, row 0 at the top, each pixel red, green, blue.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;

  void resize(int new_width, int new_height) {
    width = new_width;
    height = new_height;
    pixels.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3, 0);
  }
};

}  // namespace mnrl::envs
