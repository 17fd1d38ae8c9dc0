#pragma once

#include <vector>

#include "envs/canvas.h"
#include "envs/rgb_image.h"

class b2Body;  // Box2D's: this header leaves Box2D private

namespace mnrl::envs {

// A polygon of a Box2D world, in metres (y up), and how Gymnasium's Box2D renders paint it.
struct WorldPolygon {
  std::vector<Point> vertices;
  Rgb fill;
  Rgb outline;
};

// The corners of each polygon fixture of `body`, in world coordinates (as Gymnasium transforms
// f.shape.vertices by f.body.transform); its other fixtures (edges, circles) are left out.
std::vector<std::vector<Point>> body_polygons(const b2Body& body);

// A window onto the world for an image: `scale` pixels per metre, world x `left` at the left
// edge and world y = 0 at the bottom one (Gymnasium draws y up, then flips the surface).
struct WorldView {
  double scale;
  double left;

  Point pixel(const RgbImage& image, Point world) const {
    return {(world.x - left) * scale, image.height - world.y * scale};
  }
};

// Fills the polygon, then traces its outline one pixel wide (fill == outline: no outline).
void draw_world_polygon(RgbImage& image, const WorldView& view, const WorldPolygon& polygon);

// Gymnasium's flag: a one-pixel pole 50 pixels up from `foot`, and a pennant 25 x 10 pixels
// at its top, pointing right.
void draw_flag(RgbImage& image, const WorldView& view, Point foot, Rgb pole, Rgb pennant,
               Rgb pennant_outline);

}  // namespace mnrl::envs
