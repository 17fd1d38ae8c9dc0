#include "envs/classic_control_render.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>

#include "envs/canvas.h"

namespace mnrl::envs {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kPole{202, 152, 101};
constexpr Rgb kAxle{129, 132, 203};
constexpr Rgb kLink{0, 204, 204};
constexpr Rgb kJoint{204, 204, 0};
constexpr Rgb kWheel{128, 128, 128};
constexpr Rgb kFlag{204, 204, 0};
constexpr Rgb kRod{204, 77, 77};

// Where the pixels of one color are, within a region of the image.
struct Blob {
  int count = 0;
  double x = 0.0;  // mean column and row (pixel centers)
  double y = 0.0;
};

Blob find(const RgbImage& image, Rgb color, int left = 0, int top = 0, int right = -1,
          int bottom = -1) {
  if (right < 0) right = image.width;
  if (bottom < 0) bottom = image.height;
  Blob blob;
  for (int row = top; row < bottom; ++row) {
    for (int column = left; column < right; ++column) {
      const std::size_t at = (static_cast<std::size_t>(row) * image.width + column) * 3;
      if (image.pixels[at] == color.r && image.pixels[at + 1] == color.g &&
          image.pixels[at + 2] == color.b) {
        ++blob.count;
        blob.x += column + 0.5;
        blob.y += row + 0.5;
      }
    }
  }
  if (blob.count > 0) {
    blob.x /= blob.count;
    blob.y /= blob.count;
  }
  return blob;
}

TEST(ClassicControlRenderTest, ImagesHaveGymnasiumsScreenSizes) {
  RgbImage image;
  image.resize(3, 2);  // each render resizes whatever it is given
  render_cartpole({}, image);
  EXPECT_EQ(image.width, 600);
  EXPECT_EQ(image.height, 400);
  EXPECT_EQ(image.pixels.size(), 600u * 400u * 3u);
  render_acrobot({}, image);
  EXPECT_EQ(image.width, 500);
  EXPECT_EQ(image.height, 500);
  render_mountain_car(-0.5, image);
  EXPECT_EQ(image.width, 600);
  EXPECT_EQ(image.height, 400);
  render_pendulum(0.0, 0.0, image);
  EXPECT_EQ(image.width, 500);
  EXPECT_EQ(image.height, 500);
  EXPECT_EQ(image.pixels.size(), 500u * 500u * 3u);
}

TEST(ClassicControlRenderTest, CartMovesRightAsXGrows) {
  RgbImage image;
  render_cartpole({0.0, 0.0, 0.0, 0.0}, image);
  const Blob middle = find(image, kAxle);
  render_cartpole({1.0, 0.0, 0.0, 0.0}, image);
  const Blob right = find(image, kAxle);
  ASSERT_GT(middle.count, 0);
  EXPECT_NEAR(middle.x, 300.0, 1.0);
  EXPECT_NEAR(right.x, 300.0 + 125.0, 1.0);  // 125 pixels per metre
  // The axle sits a quarter of the cart's height above the track, 100 pixels up.
  EXPECT_NEAR(middle.y, 400 - 107.5, 1.0);
  // The cart: black, 50 x 30 around the track, which is black too but one row high.
  const Blob cart = find(image, kBlack, 0, 250, 600, 298);
  EXPECT_NEAR(cart.x, 425.0, 1.0);
  EXPECT_EQ(find(image, kBlack, 0, 299, 600, 300).count, 600);  // the track
}

TEST(ClassicControlRenderTest, PoleStandsUpAndLeansWithTheta) {
  RgbImage image;
  render_cartpole({0.0, 0.0, 0.0, 0.0}, image);
  const Blob upright = find(image, kPole);
  EXPECT_NEAR(upright.x, 300.0, 1.0);
  EXPECT_LT(upright.y, 400 - 107.5 - 40);                  // mostly far above the axle
  EXPECT_NEAR(upright.count, 10 * 125 - kPi * 5 * 5, 20);  // 10 x 125, less the axle
  render_cartpole({0.0, 0.0, 0.2, 0.0}, image);
  EXPECT_GT(find(image, kPole).x, 310.0);  // positive theta leans right
  render_cartpole({0.0, 0.0, -0.2, 0.0}, image);
  EXPECT_LT(find(image, kPole).x, 290.0);
}

TEST(ClassicControlRenderTest, AcrobotHangsDownAtRestAndSwingsUp) {
  RgbImage image;
  render_acrobot({0.0, 0.0, 0.0, 0.0}, image);
  const Blob down = find(image, kLink);
  EXPECT_NEAR(down.x, 250.0, 1.0);
  EXPECT_GT(down.y, 250.0 + 100.0);  // two links below the pivot, their middle a link down
  EXPECT_GT(find(image, kJoint).count, 0);
  // The goal line, one link length (113.6 pixels) above the pivot, across the whole width.
  EXPECT_EQ(find(image, kBlack, 0, 130, 500, 140).count, 500);

  render_acrobot({kPi, 0.0, 0.0, 0.0}, image);
  EXPECT_LT(find(image, kLink).y, 250.0 - 100.0);
  // theta1 = pi / 2 swings the first link out to the right, theta2 = pi / 2 folds the second
  // link on up from there.
  render_acrobot({kPi / 2, kPi / 2, 0.0, 0.0}, image);
  EXPECT_GT(find(image, kLink, 250, 0, 500, 500).count,
            5 * find(image, kLink, 0, 0, 250, 500).count);
  EXPECT_GT(find(image, kLink, 0, 0, 500, 240).count, 1000);  // the second link, upward
}

TEST(ClassicControlRenderTest, MountainCarSitsOnTheHillAtItsPosition) {
  RgbImage image;
  for (const double position : {-1.0, -0.5, 0.3}) {
    render_mountain_car(position, image);
    const Blob wheels = find(image, kWheel);
    ASSERT_GT(wheels.count, 0) << position;
    const double scale = 600 / 1.8;
    EXPECT_NEAR(wheels.x, (position + 1.2) * scale, 3.0) << position;
    const double ground = (std::sin(3 * position) * 0.45 + 0.55) * scale;
    EXPECT_NEAR(400 - wheels.y, ground + 10.0, 4.0) << position;  // 10 pixels of clearance
  }
}

TEST(ClassicControlRenderTest, FlagMarksTheGoal) {
  RgbImage image;
  render_mountain_car(-0.5, image);
  const Blob flag = find(image, kFlag);
  const double scale = 600 / 1.8;
  EXPECT_GT(flag.count, 100);
  EXPECT_NEAR(flag.x, (0.5 + 1.2) * scale + 25.0 / 3, 2.0);  // a triangle right of its pole
  render_mountain_car(-0.5, image, 0.45);
  EXPECT_NEAR(find(image, kFlag).x, (0.45 + 1.2) * scale + 25.0 / 3, 2.0);
}

TEST(ClassicControlRenderTest, PendulumRodIsUpAtZeroAndDownAtPi) {
  RgbImage image;
  render_pendulum(0.0, 0.0, image);
  const Blob up = find(image, kRod);
  EXPECT_NEAR(up.x, 250.0, 1.5);
  EXPECT_LT(up.y, 250.0 - 40.0);
  render_pendulum(kPi, 0.0, image);
  const Blob down = find(image, kRod);
  EXPECT_NEAR(down.x, 250.0, 1.5);
  EXPECT_GT(down.y, 250.0 + 40.0);
  render_pendulum(kPi / 2, 0.0, image);  // theta grows counterclockwise: left
  EXPECT_LT(find(image, kRod).x, 250.0 - 40.0);
}

TEST(ClassicControlRenderTest, TorqueArrowGrowsWithTorqueAndPointsItsWay) {
  RgbImage image;
  render_pendulum(kPi, 0.0, image);
  const int axle_only = find(image, kBlack).count;
  EXPECT_NEAR(axle_only, kPi * 5 * 5, 12);  // no arrow before the first step
  render_pendulum(kPi, 1.0, image);
  const int small = find(image, kBlack).count;
  render_pendulum(kPi, -2.0, image);
  const int large = find(image, kBlack).count;
  EXPECT_GT(small, axle_only + 200);
  EXPECT_GT(large, 2 * small);

  // The ring leaves a gap at the top; its head ends it on the right for a positive
  // (counterclockwise) torque and on the left for a negative one.
  const auto upper = [&](double torque, int left, int right) {
    render_pendulum(kPi, torque, image);
    return find(image, kBlack, left, 150, right, 240).count;
  };
  EXPECT_GT(upper(2.0, 250, 350), upper(2.0, 150, 250) + 50);
  EXPECT_GT(upper(-2.0, 150, 250), upper(-2.0, 250, 350) + 50);
}

}  // namespace
}  // namespace mnrl::envs
