#pragma once

#include <vector>

#include "envs/canvas.h"
#include "envs/rgb_image.h"

namespace mnrl::envs {

// What LunarLander's picture shows, in metres (y up).
struct LunarLanderScene {
  std::vector<Point> surface;  // the terrain's points, left to right
  double helipad_left = 0.0;
  double helipad_right = 0.0;
  double helipad_y = 0.0;
  std::vector<std::vector<Point>> lander;  // the hull's and the legs' polygons
};

// Gymnasium 0.29's rgb_array frame of LunarLander (600 x 400, 30 pixels per metre), in flat
// colors without anti-aliasing or the engines' flame particles: white ground under a black
// sky, the purple lander and legs, the helipad's yellow flags.
void render_lunar_lander(const LunarLanderScene& scene, RgbImage& image);

}  // namespace mnrl::envs
