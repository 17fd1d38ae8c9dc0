// LunarLander's and BipedalWalker's pictures: Gymnasium's frame sizes, the bodies where the
// physics has them, a frame that follows the steps.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <utility>

#include "envs/canvas.h"
#include "envs/registry.h"
#include "render_checks.h"

namespace mnrl::envs {
namespace {

std::size_t count(const RgbImage& image, Rgb color) {
  std::size_t n = 0;
  for (std::size_t at = 0; at + 2 < image.pixels.size(); at += 3) {
    n += image.pixels[at] == color.r && image.pixels[at + 1] == color.g &&
         image.pixels[at + 2] == color.b;
  }
  return n;
}

TEST(Box2dRenderTest, EveryBox2dEnvDrawsAFrameThatFollowsTheSteps) {
  const std::array<float, 4> walk = {1.0f, -1.0f, -1.0f, 1.0f};
  const std::array<float, 2> engines_off = {-1.0f, 0.0f};
  for (const auto& [id, action] :
       {std::pair{"LunarLander-v2", ActionRef{0, nullptr, 0}},
        std::pair{"LunarLanderContinuous-v2", ActionRef{0, engines_off.data(), 2}},
        std::pair{"BipedalWalker-v3", ActionRef{0, walk.data(), 4}},
        std::pair{"BipedalWalkerHardcore-v3", ActionRef{0, walk.data(), 4}}}) {
    const auto env = Registry::global().make(id, {});
    expect_draws(*env, action, 600, 400);
  }
}

TEST(Box2dRenderTest, NothingIsDrawnBeforeReset) {
  RgbImage image;
  EXPECT_FALSE(Registry::global().make("LunarLander-v2", {})->render(image));
  EXPECT_FALSE(Registry::global().make("BipedalWalker-v3", {})->render(image));
}

TEST(Box2dRenderTest, LunarLanderShowsTheLanderUnderTheBlackSkyAndTheHelipadFlags) {
  const auto env = Registry::global().make("LunarLander-v2", {});
  std::array<float, 8> observation;
  env->reset(observation.data(), 3);
  RgbImage image;
  ASSERT_TRUE(env->render(image));
  // The lander starts at the top centre, its upper half above the edge: its purple fill there.
  const Rgb lander{128, 102, 230};
  EXPECT_GT(count(image, lander), 250u);
  const std::size_t at = (10 * 600 + 300) * 3;  // row 10, column 300: above the lander, sky
  EXPECT_EQ(image.pixels[at], 0);
  EXPECT_GT(count(image, Rgb{204, 204, 0}), 100u);   // two pennants, 25 x 10 pixels each
  const std::size_t bottom = (399 * 600 + 300) * 3;  // the bottom row: white ground
  EXPECT_EQ(image.pixels[bottom], 255);
}

TEST(Box2dRenderTest, BipedalWalkerShowsTheHullAFifthOfTheWidthFromTheLeft) {
  const auto env = Registry::global().make("BipedalWalker-v3", {});
  std::array<float, 24> observation;
  env->reset(observation.data(), 3);
  RgbImage image;
  ASSERT_TRUE(env->render(image));
  const Rgb hull{127, 51, 229};
  EXPECT_GT(count(image, hull), 500u);  // 64 x 17 pixels
  double mean_column = 0.0;
  std::size_t n = 0;
  for (int row = 0; row < image.height; ++row) {
    for (int column = 0; column < image.width; ++column) {
      const std::size_t at = (static_cast<std::size_t>(row) * image.width + column) * 3;
      if (image.pixels[at] == hull.r && image.pixels[at + 1] == hull.g &&
          image.pixels[at + 2] == hull.b) {
        mean_column += column;
        ++n;
      }
    }
  }
  ASSERT_GT(n, 0u);
  EXPECT_NEAR(mean_column / n, 120.0, 10.0);  // the hull's origin at 600 / 5
}

}  // namespace
}  // namespace mnrl::envs
