#pragma once

#include <array>
#include <vector>

#include "envs/canvas.h"
#include "envs/rgb_image.h"

namespace mnrl::envs {

// What BipedalWalker's picture shows, in metres (y up).
struct BipedalWalkerScene {
  std::vector<Point> surface;                 // the terrain's polyline, left to right
  std::vector<std::vector<Point>> obstacles;  // hardcore's stumps, stairs and pit walls
  // Each leg's upper then lower segment, the first leg (the action's first hip) first.
  std::array<std::vector<Point>, 4> leg_segments;
  std::vector<Point> hull;
  double hull_x = 0.0;  // the view follows it
};

// Gymnasium 0.29's rgb_array frame of BipedalWalker (600 x 400, 30 pixels per metre), the
// hull a fifth of the width from the left edge, in flat colors without anti-aliasing, clouds or
// lidar: a lavender sky, the green terrain, white obstacles, the purple walker, the start flag.
void render_bipedal_walker(const BipedalWalkerScene& scene, RgbImage& image);

}  // namespace mnrl::envs
