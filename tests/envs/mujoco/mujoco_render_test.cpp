// MujocoEnv's picture, a projection of the geoms: every built-in MuJoCo env draws a frame that
// follows its steps, and no model or state makes it fail.
#include "envs/mujoco/mujoco_render.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "envs/mujoco/mujoco_model.h"
#include "envs/registry.h"
#include "render_checks.h"

namespace mnrl::envs {
namespace {

TEST(MujocoRenderTest, EveryBuiltInMujocoEnvDrawsAFrameThatFollowsTheSteps) {
  for (const char* id : {"mnrl/InvertedPendulum-v0", "mnrl/InvertedDoublePendulum-v0",
                         "mnrl/Reacher-v0", "mnrl/Hopper-v0", "mnrl/Humanoid-v0"}) {
    const auto env = Registry::global().make(id, {});
    const std::vector<float> push(flat_size(env->spec().action_space), 0.5f);
    expect_draws(*env, ActionRef{0, push.data(), static_cast<std::int64_t>(push.size())}, 480, 360);
  }
}

// Every geom type, a hidden one, a camera looking straight down, and a body on a free joint:
// drawn without fault, the hidden geom's color absent; NaN positions draw the sky alone.
TEST(MujocoRenderTest, AnyModelOrStateDrawsWithoutFault) {
  const auto model = load_mujoco_model_text(R"(<mujoco>
  <visual><global azimuth="0" elevation="-90"/></visual>
  <asset><mesh name="tetra" vertex="0 0 0  1 0 0  0 1 0  0 0 1"/></asset>
  <worldbody>
    <geom type="plane" size="0 0 1" rgba="0.2 0.6 0.2 1"/>
    <geom type="box" size="0.1 0.2 0.3" pos="1 0 0"/>
    <geom type="cylinder" size="0.1 0.2" pos="-1 0 0"/>
    <geom type="ellipsoid" size="0.1 0.2 0.3" pos="0 1 0"/>
    <geom type="mesh" mesh="tetra" pos="0 -1 0"/>
    <geom type="sphere" size="0.5" group="4" rgba="1 0 0 1"/>
    <body pos="0 0 1"><freejoint/><geom type="capsule" size="0.1 0.3" rgba="0 0 1 0.5"/></body>
  </worldbody>
</mujoco>)",
                                            "shapes.xml");
  MujocoDataPtr data(mj_makeData(model.get()));
  mj_forward(model.get(), data.get());
  RgbImage image;
  render_mujoco(*model, *data, image);
  EXPECT_EQ(image.width, 480);
  EXPECT_GE(distinct_colors(image), 4u);
  for (std::size_t at = 0; at < image.pixels.size(); at += 3) {
    ASSERT_FALSE(image.pixels[at] == 255 && image.pixels[at + 1] == 0 && image.pixels[at + 2] == 0)
        << "the geom of group 4 was drawn";
  }
  for (int i = 0; i < 3 * model->ngeom; ++i) {
    data->geom_xpos[i] = std::numeric_limits<double>::quiet_NaN();
  }
  for (int i = 0; i < 3; ++i) data->subtree_com[3 + i] = std::numeric_limits<double>::infinity();
  render_mujoco(*model, *data, image);
  EXPECT_EQ(distinct_colors(image), 1u);
}

}  // namespace
}  // namespace mnrl::envs
