#include "envs/space.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace mnrl::envs {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

EnvSpec valid_spec() {
  EnvSpec spec;
  spec.id = "Test-v0";
  spec.observation_space = Box{{2, 3}, std::vector<float>(6, -1.0f), std::vector<float>(6, 1.0f)};
  spec.action_space = Discrete{4};
  return spec;
}

// The message of the std::invalid_argument that validate() throws ("" if none).
std::string validation_error(const EnvSpec& spec) {
  try {
    spec.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SpaceTest, FlatSizeAndKind) {
  EXPECT_EQ(flat_size(Box{{2, 3}, {}, {}}), 6);
  EXPECT_EQ(flat_size(Box{{4}, {}, {}}), 4);
  EXPECT_EQ(flat_size(Discrete{7}), 1);
  EXPECT_TRUE(is_discrete(Discrete{2}));
  EXPECT_FALSE(is_discrete(Box{{1}, {0}, {1}}));
}

TEST(SpaceTest, DescribeShowsShapeAndBounds) {
  EXPECT_EQ(describe(Discrete{2}), "Discrete(2)");
  const float max = std::numeric_limits<float>::max();
  EXPECT_EQ(describe(Box{{4}, {-4.8f, -max, -0.41887903f, -kInf}, {4.8f, max, 0.41887903f, kInf}}),
            "Box(4) low=[-4.8, -3.4028235e+38, -0.41887903, -inf] "
            "high=[4.8, 3.4028235e+38, 0.41887903, inf]");
  // Equal bounds collapse to one number; long lists are cut.
  EXPECT_EQ(describe(Box{{2, 2}, std::vector<float>(4, 0.0f), std::vector<float>(4, 255.0f)}),
            "Box(2, 2) low=0 high=255");
  std::vector<float> ramp(10);
  for (int i = 0; i < 10; ++i) ramp[i] = static_cast<float>(i);
  EXPECT_EQ(describe(Box{{10}, ramp, std::vector<float>(10, kInf)}),
            "Box(10) low=[0, 1, 2, 3, 4, 5, 6, 7, ... (10 values)] high=inf");
}

TEST(SpaceTest, SpacesCompareByValue) {
  const Space a = Box{{2}, {0, 0}, {1, 1}};
  EXPECT_EQ(a, (Space{Box{{2}, {0, 0}, {1, 1}}}));
  EXPECT_NE(a, (Space{Box{{2}, {0, 0}, {1, 2}}}));
  EXPECT_NE(a, (Space{Discrete{2}}));
  EXPECT_EQ(Space{Discrete{3}}, Space{Discrete{3}});
}

TEST(SpaceTest, Uint8BoxesAreDescribedComparedAndScaled) {
  const Box grid{
      {4, 10, 10}, std::vector<float>(400, 0.0f), std::vector<float>(400, 1.0f), Dtype::uint8};
  EXPECT_EQ(describe(grid), "Box(4, 10, 10) uint8 low=0 high=1");
  EXPECT_EQ(element_dtype(grid), Dtype::uint8);
  EXPECT_EQ(element_dtype(Discrete{3}), Dtype::float32);
  Box same_bounds_as_floats = grid;
  same_bounds_as_floats.dtype = Dtype::float32;
  EXPECT_NE(Space(grid), Space(same_bounds_as_floats));
  // Only an image (every bound 0 and 255, SB3's rule) is divided by 255.
  EXPECT_EQ(byte_scale(grid), 1.0f);
  const Box image{
      {1, 2, 2}, std::vector<float>(4, 0.0f), std::vector<float>(4, 255.0f), Dtype::uint8};
  EXPECT_EQ(byte_scale(image), 1.0f / 255.0f);
  Box floats = image;
  floats.dtype = Dtype::float32;
  EXPECT_EQ(byte_scale(floats), 1.0f);

  const std::uint8_t cells[4] = {0, 1, 7, 1};
  const OutsideSpace outside = find_outside(
      Box{{4}, std::vector<float>(4, 0.0f), std::vector<float>(4, 1.0f), Dtype::uint8}, cells);
  EXPECT_EQ(outside.count, 1u);
  EXPECT_EQ(outside.first, "observation[2] = 7 is outside [0, 1]");
}

TEST(SpaceTest, ValidSpecPasses) { EXPECT_NO_THROW(valid_spec().validate()); }

TEST(SpaceTest, SpecValidationNamesEnvAndProblem) {
  auto spec = valid_spec();
  spec.id.clear();
  EXPECT_NE(validation_error(spec).find("empty"), std::string::npos);

  spec = valid_spec();
  std::get<Box>(spec.observation_space).shape.clear();
  std::string message = validation_error(spec);
  EXPECT_NE(message.find("'Test-v0'"), std::string::npos) << message;
  EXPECT_NE(message.find("observation space: Box has an empty shape"), std::string::npos)
      << message;

  spec = valid_spec();
  std::get<Box>(spec.observation_space).shape = {2, 0};
  EXPECT_NE(validation_error(spec).find("dimension < 1"), std::string::npos);

  spec = valid_spec();
  std::get<Box>(spec.observation_space).low.pop_back();
  message = validation_error(spec);
  EXPECT_NE(message.find("needs 6 low and high bounds, got 5 and 6"), std::string::npos) << message;

  spec = valid_spec();
  std::get<Box>(spec.observation_space).low[3] = 2.0f;
  message = validation_error(spec);
  EXPECT_NE(message.find("bound 3 has low 2 > high 1"), std::string::npos) << message;

  spec = valid_spec();
  std::get<Box>(spec.observation_space).high[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(validation_error(spec).find("NaN"), std::string::npos);

  spec = valid_spec();
  spec.observation_space =
      Box{{2, 3}, std::vector<float>(6, 0.0f), std::vector<float>(6, 1.0f), Dtype::uint8};
  EXPECT_EQ(validation_error(spec), "");
  std::get<Box>(spec.observation_space).high[2] = 0.5f;
  message = validation_error(spec);
  EXPECT_NE(message.find("uint8 Box bound 2 is [0, 0.5], needs integers in [0, 255]"),
            std::string::npos)
      << message;

  spec = valid_spec();
  spec.action_space = Box{{1}, {0.0f}, {1.0f}, Dtype::uint8};
  message = validation_error(spec);
  EXPECT_NE(message.find("action space: a uint8 Box; actions are float32 or Discrete"),
            std::string::npos)
      << message;

  spec = valid_spec();
  spec.action_space = Discrete{0};
  message = validation_error(spec);
  EXPECT_NE(message.find("action space: Discrete(0) needs n >= 1"), std::string::npos) << message;

  spec = valid_spec();
  spec.max_episode_steps = -1;
  EXPECT_NE(validation_error(spec).find("max_episode_steps"), std::string::npos);

  spec = valid_spec();
  spec.reward_threshold = std::numeric_limits<double>::infinity();
  EXPECT_NE(validation_error(spec).find("reward_threshold"), std::string::npos);
}

}  // namespace
}  // namespace mnrl::envs
