#pragma once

// What every env picture must be, checked on any env: after reset(), a frame of the expected
// size showing more than a background, a frame that changes as the env steps.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "envs/env.h"
#include "envs/rgb_image.h"
#include "envs/space.h"

namespace mnrl::envs {

inline std::size_t distinct_colors(const RgbImage& image) {
  std::set<std::vector<std::uint8_t>> colors;
  for (std::size_t at = 0; at + 2 < image.pixels.size(); at += 3) {
    colors.insert({image.pixels[at], image.pixels[at + 1], image.pixels[at + 2]});
  }
  return colors.size();
}

// Renders `env` after reset and after `steps` steps of `action` (fewer if the episode ends),
// expecting `width` x `height`.
inline void expect_draws(Env& env, const ActionRef& action, int width, int height, int steps = 20) {
  const std::string id = env.spec().id;
  RgbImage image;
  std::vector<float> observation(flat_size(env.spec().observation_space));
  env.reset(observation.data(), 1);
  ASSERT_TRUE(env.render(image)) << id;
  EXPECT_EQ(image.width, width) << id;
  EXPECT_EQ(image.height, height) << id;
  ASSERT_EQ(image.pixels.size(), static_cast<std::size_t>(width) * height * 3) << id;
  EXPECT_GE(distinct_colors(image), 3u) << id << ": a frame of background only";
  const RgbImage first = image;
  for (int i = 0; i < steps; ++i) {
    const StepResult result = env.step(action, observation.data());
    if (result.terminated || result.truncated) break;
  }
  ASSERT_TRUE(env.render(image)) << id;
  EXPECT_NE(image.pixels, first.pixels)
      << id << ": the frame did not change in " << steps << " steps";
}

}  // namespace mnrl::envs
