#pragma once

#include <array>

#include "envs/rgb_image.h"

namespace mnrl::envs {

// Pictures of the classic-control envs drawn from their state, laid out and colored like
// Gymnasium 0.29's render_mode="rgb_array" frames, in flat colors without their anti-aliasing.
// Each function resizes `image` to the env's screen size and draws the whole frame.

// 600 x 400. `state` is CartPole::state(): x, x_dot, theta, theta_dot.
void render_cartpole(const std::array<double, 4>& state, RgbImage& image);

// 500 x 500. `state` is Acrobot::state(): theta1, theta2, dtheta1, dtheta2.
void render_acrobot(const std::array<double, 4>& state, RgbImage& image);

// 600 x 400: the car at `position` on the hills, the flag at `goal_position`: 0.5 for
// MountainCar-v0, 0.45 for MountainCarContinuous-v0 (Gymnasium draws each env's own goal).
void render_mountain_car(double position, RgbImage& image, double goal_position = 0.5);

// 500 x 500: the rod at `theta` (0 up, growing counterclockwise) and, around the pivot, an arrow
// as large as `last_torque`, the clipped torque of the last step, turning its way. No arrow for
// a torque of 0 (pass 0 before the first step: Gymnasium draws none then).
void render_pendulum(double theta, double last_torque, RgbImage& image);

}  // namespace mnrl::envs
