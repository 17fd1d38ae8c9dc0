#include "envs/box2d/lunar_lander_render.h"

#include "envs/box2d/box2d_picture.h"

namespace mnrl::envs {

void render_lunar_lander(const LunarLanderScene& scene, RgbImage& image) {
  constexpr int kWidth = 600;
  constexpr int kHeight = 400;
  constexpr WorldView kView{30.0, 0.0};
  constexpr Rgb kGround{255, 255, 255};
  constexpr Rgb kSky{0, 0, 0};
  constexpr Rgb kLanderFill{128, 102, 230};
  constexpr Rgb kLanderOutline{77, 77, 128};
  constexpr Rgb kPennant{204, 204, 0};
  image.resize(kWidth, kHeight);
  fill(image, kGround);

  // Gymnasium's sky polygons: from each stretch of the surface up to the top edge.
  const double top = kHeight / kView.scale;
  for (std::size_t i = 0; i + 1 < scene.surface.size(); ++i) {
    const Point a = scene.surface[i];
    const Point b = scene.surface[i + 1];
    draw_world_polygon(image, kView, {{a, b, {b.x, top}, {a.x, top}}, kSky, kSky});
  }
  for (const auto& part : scene.lander) {
    draw_world_polygon(image, kView, {part, kLanderFill, kLanderOutline});
  }
  for (const double x : {scene.helipad_left, scene.helipad_right}) {
    draw_flag(image, kView, {x, scene.helipad_y}, kGround, kPennant, kPennant);
  }
}

}  // namespace mnrl::envs
