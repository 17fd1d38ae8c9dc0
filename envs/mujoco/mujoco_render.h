#pragma once

#include <mujoco/mujoco.h>

#include "envs/rgb_image.h"

namespace mnrl::envs {

// A MujocoEnv's picture without MuJoCo's renderer (which needs an OpenGL context): an
// orthographic projection of the visible geoms (groups 0-2, not transparent), 480 x 360, seen
// from the model's free-camera direction (<visual><global azimuth elevation>, by default from
// the side and 45 degrees above), in flat colors (geom rgba, or the material's) with a darker
// rim, nearer geoms over farther ones. Spheres, capsules, ellipsoids, cylinders and boxes are
// drawn as their outlines; a plane as a filled ground (a band across the view where it is
// infinite or larger than the band, a line when seen edge-on); meshes, height fields and other
// types are skipped. The view fits the box around the geoms other than planes (a floor would
// fit the floor, not the robot) in the initial pose (qpos0), 1.25 times its largest side high,
// and follows the first body horizontally when it can travel (a free or slide joint), as
// Gymnasium's cameras track a walker. Never fails, whatever the model or its state (non-finite
// positions draw nothing).
void render_mujoco(const mjModel& model, const mjData& data, RgbImage& image);

}  // namespace mnrl::envs
