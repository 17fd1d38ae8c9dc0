#include "envs/canvas.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <vector>

namespace mnrl::envs {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kRed{200, 10, 20};

RgbImage white_image(int width, int height) {
  RgbImage image;
  image.resize(width, height);
  fill(image, kWhite);
  return image;
}

bool is(const RgbImage& image, int column, int row, Rgb color) {
  const std::size_t at = (static_cast<std::size_t>(row) * image.width + column) * 3;
  return image.pixels[at] == color.r && image.pixels[at + 1] == color.g &&
         image.pixels[at + 2] == color.b;
}

int count(const RgbImage& image, Rgb color) {
  int n = 0;
  for (int row = 0; row < image.height; ++row) {
    for (int column = 0; column < image.width; ++column) n += is(image, column, row, color);
  }
  return n;
}

TEST(CanvasTest, FillPaintsEveryPixel) {
  const RgbImage image = white_image(7, 5);
  EXPECT_EQ(count(image, kWhite), 35);
}

TEST(CanvasTest, RectanglePaintsThePixelsWhoseCentersItCovers) {
  RgbImage image = white_image(10, 8);
  // Corners given in either order; centers 2.5..5.5 horizontally, 1.5..3.5 vertically.
  fill_rect(image, {6.0, 4.0}, {2.0, 1.0}, kRed);
  EXPECT_EQ(count(image, kRed), 4 * 3);
  EXPECT_TRUE(is(image, 2, 1, kRed));
  EXPECT_TRUE(is(image, 5, 3, kRed));
  EXPECT_TRUE(is(image, 1, 1, kWhite));
  EXPECT_TRUE(is(image, 6, 3, kWhite));
  EXPECT_TRUE(is(image, 2, 0, kWhite));
  EXPECT_TRUE(is(image, 2, 4, kWhite));
}

TEST(CanvasTest, RectanglesSharingAnEdgeNeitherOverlapNorLeaveAGap) {
  RgbImage image = white_image(10, 1);
  fill_rect(image, {0.3, 0.0}, {4.7, 1.0}, kRed);
  fill_rect(image, {4.7, 0.0}, {9.2, 1.0}, Rgb{0, 0, 255});
  EXPECT_EQ(count(image, kRed), 5);            // centers 0.5 .. 4.5
  EXPECT_EQ(count(image, Rgb{0, 0, 255}), 4);  // centers 5.5 .. 8.5
  EXPECT_TRUE(is(image, 9, 0, kWhite));        // center 9.5 is past 9.2
}

TEST(CanvasTest, CircleCoversItsDiskOnly) {
  RgbImage image = white_image(21, 21);
  fill_circle(image, {10.5, 10.5}, 5.0, kRed);
  EXPECT_TRUE(is(image, 10, 10, kRed));
  EXPECT_TRUE(is(image, 14, 10, kRed));  // 4 px right of the center
  EXPECT_TRUE(is(image, 10, 6, kRed));   // 4 px above
  EXPECT_TRUE(is(image, 16, 10, kWhite));
  EXPECT_TRUE(is(image, 14, 14, kWhite));  // 4 * sqrt(2) > 5 away
  EXPECT_NEAR(count(image, kRed), kPi * 25, 6);
}

TEST(CanvasTest, TriangleCoversItsInsideOnly) {
  RgbImage image = white_image(20, 20);
  // Right triangle with its right angle at (2, 2): x >= 2, y >= 2, x + y <= 18.
  fill_polygon(image, {{2.0, 2.0}, {18.0, 2.0}, {2.0, 18.0}}, kRed);
  EXPECT_TRUE(is(image, 3, 3, kRed));
  EXPECT_TRUE(is(image, 2, 14, kRed));
  EXPECT_TRUE(is(image, 14, 2, kRed));
  EXPECT_TRUE(is(image, 10, 10, kWhite));
  EXPECT_TRUE(is(image, 1, 5, kWhite));
  EXPECT_TRUE(is(image, 5, 1, kWhite));
  EXPECT_NEAR(count(image, kRed), 16 * 16 / 2, 16);
}

TEST(CanvasTest, RotatedSquareIsADiamond) {
  RgbImage image = white_image(21, 21);
  fill_polygon(image, {{10.5, 2.5}, {18.5, 10.5}, {10.5, 18.5}, {2.5, 10.5}}, kRed);
  EXPECT_TRUE(is(image, 10, 3, kRed));
  EXPECT_TRUE(is(image, 17, 10, kRed));
  EXPECT_TRUE(is(image, 4, 4, kWhite));  // corners of the bounding box stay white
  EXPECT_TRUE(is(image, 16, 16, kWhite));
  EXPECT_NEAR(count(image, kRed), 2 * 8 * 8, 10);
}

TEST(CanvasTest, NonConvexPolygonLeavesItsNotchEmpty) {
  RgbImage image = white_image(12, 12);
  // A "U": the notch x in (4, 8), y in (0, 6) is outside.
  fill_polygon(image,
               {{1.0, 0.0},
                {4.0, 0.0},
                {4.0, 6.0},
                {8.0, 6.0},
                {8.0, 0.0},
                {11.0, 0.0},
                {11.0, 10.0},
                {1.0, 10.0}},
               kRed);
  EXPECT_TRUE(is(image, 2, 2, kRed));
  EXPECT_TRUE(is(image, 9, 2, kRed));
  EXPECT_TRUE(is(image, 6, 8, kRed));
  EXPECT_TRUE(is(image, 6, 2, kWhite));
}

TEST(CanvasTest, ThickLineIsAsWideAsAsked) {
  RgbImage image = white_image(20, 20);
  draw_line(image, {2.0, 10.0}, {18.0, 10.0}, 4.0, kRed);  // rows 8..11, columns 2..17
  EXPECT_EQ(count(image, kRed), 16 * 4);
  EXPECT_TRUE(is(image, 2, 8, kRed));
  EXPECT_TRUE(is(image, 17, 11, kRed));
  EXPECT_TRUE(is(image, 10, 7, kWhite));
  EXPECT_TRUE(is(image, 10, 12, kWhite));

  RgbImage diagonal = white_image(20, 20);
  draw_line(diagonal, {2.0, 2.0}, {18.0, 18.0}, 1.0, kRed);
  for (int i = 3; i < 17; ++i) EXPECT_TRUE(is(diagonal, i, i, kRed)) << i;
  EXPECT_TRUE(is(diagonal, 10, 4, kWhite));
}

TEST(CanvasTest, ZeroLengthLinePaintsNothing) {
  RgbImage image = white_image(5, 5);
  draw_line(image, {2.0, 2.0}, {2.0, 2.0}, 3.0, kRed);
  EXPECT_EQ(count(image, kRed), 0);
}

TEST(CanvasTest, ShapesAreClippedAtTheEdges) {
  RgbImage image = white_image(10, 6);
  fill_rect(image, {-5.0, -5.0}, {3.0, 100.0}, kRed);
  EXPECT_EQ(count(image, kRed), 3 * 6);
  fill_circle(image, {9.5, 0.0}, 30.0, kRed);
  EXPECT_EQ(count(image, kRed), 60);

  RgbImage other = white_image(10, 6);
  fill_polygon(other, {{-100.0, -100.0}, {300.0, 2.0}, {-50.0, 400.0}}, kRed);
  draw_line(other, {-20.0, 3.0}, {40.0, 3.0}, 2.0, kRed);
  fill_circle(other, {-50.0, -50.0}, 5.0, kRed);  // wholly outside
  EXPECT_TRUE(is(other, 0, 0, kRed));
  EXPECT_TRUE(is(other, 9, 3, kRed));
}

TEST(CanvasTest, NonFiniteCoordinatesNeverWriteOutside) {
  RgbImage image = white_image(8, 8);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  fill_rect(image, {nan, 1.0}, {3.0, nan}, kRed);
  fill_polygon(image, {{nan, 1.0}, {5.0, 5.0}, {1.0, 6.0}}, kRed);
  fill_circle(image, {nan, 4.0}, 3.0, kRed);
  fill_circle(image, {4.0, 4.0}, nan, kRed);
  draw_line(image, {0.0, 0.0}, {inf, 5.0}, 2.0, kRed);
  draw_line(image, {1.0, 1.0}, {5.0, 5.0}, nan, kRed);
  EXPECT_EQ(count(image, kRed), 0);
  fill_rect(image, {-inf, -inf}, {inf, inf}, kRed);  // infinite but ordered: everything
  EXPECT_EQ(count(image, kRed), 64);
  EXPECT_EQ(image.pixels.size(), 8u * 8u * 3u);
}

TEST(CanvasTest, EmptyImageIsFine) {
  RgbImage image;
  fill(image, kRed);
  fill_circle(image, {0.0, 0.0}, 10.0, kRed);
  fill_polygon(image, {{0.0, 0.0}, {5.0, 0.0}, {0.0, 5.0}}, kRed);
  EXPECT_TRUE(image.pixels.empty());
}

}  // namespace
}  // namespace mnrl::envs
