#include "envs/box2d/bipedal_walker_render.h"

#include <cstdint>

#include "envs/box2d/box2d_picture.h"

namespace mnrl::envs {

void render_bipedal_walker(const BipedalWalkerScene& scene, RgbImage& image) {
  constexpr int kWidth = 600;
  constexpr int kHeight = 400;
  constexpr double kScale = 30.0;
  constexpr Rgb kSky{215, 215, 255};
  constexpr Rgb kBlack{0, 0, 0};
  const WorldView view{kScale, scene.hull_x - kWidth / kScale / 5};
  image.resize(kWidth, kHeight);
  fill(image, kSky);

  // Gymnasium's terrain polygons: each stretch of the line down to y = 0, in two greens.
  for (std::size_t i = 0; i + 1 < scene.surface.size(); ++i) {
    const Point a = scene.surface[i];
    const Point b = scene.surface[i + 1];
    const Rgb grass{76, static_cast<std::uint8_t>(i % 2 == 0 ? 255 : 204), 76};
    draw_world_polygon(image, view, {{a, b, {b.x, 0.0}, {a.x, 0.0}}, grass, grass});
  }
  for (const auto& box : scene.obstacles) {
    draw_world_polygon(image, view, {box, Rgb{255, 255, 255}, Rgb{153, 153, 153}});
  }
  // Gymnasium shades the legs by side: 25 lighter for the first, 25 darker for the second.
  for (std::size_t s = 0; s < scene.leg_segments.size(); ++s) {
    const int shade = s < 2 ? 25 : -25;
    const auto tone = [shade](int value) { return static_cast<std::uint8_t>(value + shade); };
    draw_world_polygon(image, view,
                       {scene.leg_segments[s], Rgb{tone(153), tone(76), tone(127)},
                        Rgb{tone(102), tone(51), tone(76)}});
  }
  draw_world_polygon(image, view, {scene.hull, Rgb{127, 51, 229}, Rgb{76, 76, 127}});
  constexpr double kTerrainStep = 14 / kScale;
  constexpr double kTerrainHeight = kHeight / kScale / 4;
  draw_flag(image, view, {3 * kTerrainStep, kTerrainHeight}, kBlack, Rgb{230, 51, 0}, kBlack);
}

}  // namespace mnrl::envs
