#pragma once

#include <cstdint>
#include <vector>

#include "envs/rgb_image.h"

namespace mnrl::envs {

// A tiny rasterizer for env renders: flat colors, no anti-aliasing. Coordinates are pixels as
// doubles, x to the right and y down, pixel (column i, row j) covering [i, i + 1) x [j, j + 1).
// A shape paints exactly the pixels whose centers (i + 0.5, j + 0.5) it covers, so shapes that
// share an edge neither overlap nor leave a gap. Everything is clipped to the image, whatever
// the coordinates (NaN and infinities included).

struct Rgb {
  std::uint8_t r, g, b;
};

struct Point {
  double x, y;
};

void fill(RgbImage& image, Rgb color);

// The rectangle with opposite corners `a` and `b`, edges parallel to the image's.
void fill_rect(RgbImage& image, Point a, Point b, Rgb color);

// Any simple polygon, convex or not (even-odd rule), its vertices in order either way round.
// Nothing for fewer than 3 vertices or a non-finite one.
void fill_polygon(RgbImage& image, const std::vector<Point>& vertices, Rgb color);

void fill_circle(RgbImage& image, Point center, double radius, Rgb color);

// A segment `thickness` pixels wide with square-cut ends at `from` and `to`; nothing when they
// coincide.
void draw_line(RgbImage& image, Point from, Point to, double thickness, Rgb color);

}  // namespace mnrl::envs
