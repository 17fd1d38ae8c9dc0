#include "envs/box2d/box2d_picture.h"

#include <box2d/box2d.h>

namespace mnrl::envs {

std::vector<std::vector<Point>> body_polygons(const b2Body& body) {
  std::vector<std::vector<Point>> polygons;
  for (const b2Fixture* fixture = body.GetFixtureList(); fixture; fixture = fixture->GetNext()) {
    if (fixture->GetType() != b2Shape::e_polygon) continue;
    const auto* shape = static_cast<const b2PolygonShape*>(fixture->GetShape());
    std::vector<Point> corners;
    for (int i = 0; i < shape->m_count; ++i) {
      const b2Vec2 corner = b2Mul(body.GetTransform(), shape->m_vertices[i]);
      corners.push_back({corner.x, corner.y});
    }
    polygons.push_back(std::move(corners));
  }
  return polygons;
}

void draw_world_polygon(RgbImage& image, const WorldView& view, const WorldPolygon& polygon) {
  std::vector<Point> pixels;
  for (const Point vertex : polygon.vertices) pixels.push_back(view.pixel(image, vertex));
  fill_polygon(image, pixels, polygon.fill);
  const Rgb& outline = polygon.outline;
  const Rgb& fill = polygon.fill;
  if (outline.r == fill.r && outline.g == fill.g && outline.b == fill.b) return;
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    draw_line(image, pixels[i], pixels[(i + 1) % pixels.size()], 1.0, outline);
  }
}

void draw_flag(RgbImage& image, const WorldView& view, Point foot, Rgb pole, Rgb pennant,
               Rgb pennant_outline) {
  const Point bottom = view.pixel(image, foot);
  const Point top{bottom.x, bottom.y - 50};
  draw_line(image, bottom, top, 1.0, pole);
  const std::vector<Point> pennant_corners = {top, {top.x, top.y + 10}, {top.x + 25, top.y + 5}};
  fill_polygon(image, pennant_corners, pennant);
  for (std::size_t i = 0; i < pennant_corners.size(); ++i) {
    draw_line(image, pennant_corners[i], pennant_corners[(i + 1) % pennant_corners.size()], 1.0,
              pennant_outline);
  }
}

}  // namespace mnrl::envs
