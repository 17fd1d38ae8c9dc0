#include "envs/canvas.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace mnrl::envs {
namespace {

// Pixels [begin, end) of a row or column.
struct Range {
  int begin = 0;
  int end = 0;
};

// The pixels among `size` whose centers c + 0.5 lie in [lo, hi): c >= lo - 0.5 and
// c < hi - 0.5, that is ceil(lo - 0.5) <= c < ceil(hi - 0.5).
Range centers_in(double lo, double hi, int size) {
  if (!(lo < hi)) return {};  // also when either is NaN, which must not reach the casts
  const auto clip = [size](double v) {
    return static_cast<int>(std::clamp(v, 0.0, static_cast<double>(size)));
  };
  return {clip(std::ceil(lo - 0.5)), clip(std::ceil(hi - 0.5))};
}

void fill_span(RgbImage& image, int row, double x_lo, double x_hi, Rgb color) {
  const Range columns = centers_in(x_lo, x_hi, image.width);
  std::uint8_t* pixel =
      image.pixels.data() + (static_cast<std::size_t>(row) * static_cast<std::size_t>(image.width) +
                             static_cast<std::size_t>(columns.begin)) *
                                3;
  for (int column = columns.begin; column < columns.end; ++column) {
    *pixel++ = color.r;
    *pixel++ = color.g;
    *pixel++ = color.b;
  }
}

}  // namespace

void fill(RgbImage& image, Rgb color) {
  fill_rect(image, {0.0, 0.0},
            {static_cast<double>(image.width), static_cast<double>(image.height)}, color);
}

void fill_rect(RgbImage& image, Point a, Point b, Rgb color) {
  const Range rows = centers_in(std::min(a.y, b.y), std::max(a.y, b.y), image.height);
  for (int row = rows.begin; row < rows.end; ++row) {
    fill_span(image, row, std::min(a.x, b.x), std::max(a.x, b.x), color);
  }
}

void fill_polygon(RgbImage& image, const std::vector<Point>& vertices, Rgb color) {
  if (vertices.size() < 3) return;
  double top = vertices[0].y;
  double bottom = vertices[0].y;
  for (const Point& v : vertices) {
    if (!std::isfinite(v.x) || !std::isfinite(v.y)) return;
    top = std::min(top, v.y);
    bottom = std::max(bottom, v.y);
  }
  const Range rows = centers_in(top, bottom, image.height);
  std::vector<double> crossings;
  for (int row = rows.begin; row < rows.end; ++row) {
    const double y = row + 0.5;
    crossings.clear();
    // Each edge counts for y in [its lower end, its upper end): a vertex on the scanline is
    // crossed once, and horizontal edges never.
    for (std::size_t i = 0, j = vertices.size() - 1; i < vertices.size(); j = i++) {
      const Point& a = vertices[j];
      const Point& b = vertices[i];
      if ((a.y <= y) == (b.y <= y)) continue;
      const double x = a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x);
      if (!std::isnan(x)) crossings.push_back(x);  // NaN only from overflow; it breaks sort
    }
    std::sort(crossings.begin(), crossings.end());
    for (std::size_t k = 0; k + 1 < crossings.size(); k += 2) {
      fill_span(image, row, crossings[k], crossings[k + 1], color);
    }
  }
}

void fill_circle(RgbImage& image, Point center, double radius, Rgb color) {
  const Range rows = centers_in(center.y - radius, center.y + radius, image.height);
  for (int row = rows.begin; row < rows.end; ++row) {
    const double dy = row + 0.5 - center.y;
    const double half_width = std::sqrt(std::max(radius * radius - dy * dy, 0.0));
    fill_span(image, row, center.x - half_width, center.x + half_width, color);
  }
}

void draw_line(RgbImage& image, Point from, Point to, double thickness, Rgb color) {
  const double length = std::hypot(to.x - from.x, to.y - from.y);
  if (!(length > 0.0)) return;
  // Half the thickness along the segment's normal.
  const double nx = -(to.y - from.y) / length * thickness / 2;
  const double ny = (to.x - from.x) / length * thickness / 2;
  fill_polygon(image,
               {{from.x + nx, from.y + ny},
                {to.x + nx, to.y + ny},
                {to.x - nx, to.y - ny},
                {from.x - nx, from.y - ny}},
               color);
}

}  // namespace mnrl::envs
