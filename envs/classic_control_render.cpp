#include "envs/classic_control_render.h"

#include <cmath>
#include <vector>

#include "envs/canvas.h"

namespace mnrl::envs {
namespace {

// Sizes and colors are Gymnasium 0.29's (gymnasium/envs/classic_control/*.py, render()).
constexpr double kPi = 3.141592653589793;
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};

// Gymnasium draws on a pygame surface with y up from the bottom edge, then flips it. Shapes here
// are built in that frame and flipped as they are drawn; its integer coordinates name pixels, so
// (x, y) lands on the center of column x, row height - 1 - y.
Point flip(const RgbImage& image, Point p) { return {p.x + 0.5, image.height - 0.5 - p.y}; }

// `p` turned counterclockwise by `angle` (y up) about the origin, then moved by `offset`.
Point turn(Point p, double angle, Point offset) {
  const double c = std::cos(angle);
  const double s = std::sin(angle);
  return {p.x * c - p.y * s + offset.x, p.x * s + p.y * c + offset.y};
}

// The rectangle [left, right] x [bottom, top] turned by `angle` about the origin and moved to
// `offset`, as Gymnasium places carts, poles and links.
void fill_turned_rect(RgbImage& image, double left, double right, double bottom, double top,
                      double angle, Point offset, Rgb color) {
  std::vector<Point> corners;
  for (const Point corner :
       {Point{left, bottom}, Point{left, top}, Point{right, top}, Point{right, bottom}}) {
    corners.push_back(flip(image, turn(corner, angle, offset)));
  }
  fill_polygon(image, corners, color);
}

void fill_disk(RgbImage& image, Point center, double radius, Rgb color) {
  fill_circle(image, flip(image, center), radius, color);
}

// A one-pixel line, as pygame's aaline, hline and vline draw them.
void draw_thin_line(RgbImage& image, Point from, Point to, Rgb color) {
  draw_line(image, flip(image, from), flip(image, to), 1.0, color);
}

// Gymnasium blits clockwise.png, |torque| * scale / 2 pixels square, around the pivot, mirrored
// for a positive torque. Here: three quarters of a ring, its gap at the top, ending in a head
// that points the way the torque turns (counterclockwise when positive, as theta grows).
void fill_torque_arrow(RgbImage& image, Point pivot, double torque, double scale) {
  if (!(std::abs(torque) > 0.0)) return;
  const double radius = 0.2 * scale * std::abs(torque);
  const double half_width = radius / 8;
  const double turning = torque > 0 ? 1.0 : -1.0;
  const auto at = [&](double distance, double angle) {
    return flip(image,
                {pivot.x + distance * std::cos(angle), pivot.y + distance * std::sin(angle)});
  };
  const auto angle_at = [&](double fraction) {
    return kPi / 2 + turning * (kPi / 4 + fraction * 3 * kPi / 2);
  };
  constexpr int kPieces = 36;
  for (int i = 0; i < kPieces; ++i) {
    const double a0 = angle_at(static_cast<double>(i) / kPieces);
    const double a1 = angle_at(static_cast<double>(i + 1) / kPieces);
    fill_polygon(image,
                 {at(radius - half_width, a0), at(radius + half_width, a0),
                  at(radius + half_width, a1), at(radius - half_width, a1)},
                 kBlack);
  }
  // The head: a triangle across the ring's end, its tip along the tangent.
  const double end = angle_at(1.0);
  const double head_length = 5 * half_width;
  const Point tip =
      flip(image, {pivot.x + radius * std::cos(end) - turning * head_length * std::sin(end),
                   pivot.y + radius * std::sin(end) + turning * head_length * std::cos(end)});
  fill_polygon(image, {at(radius - 3 * half_width, end), at(radius + 3 * half_width, end), tip},
               kBlack);
}

}  // namespace

void render_cartpole(const std::array<double, 4>& state, RgbImage& image) {
  constexpr int kWidth = 600;
  constexpr int kHeight = 400;
  constexpr double kScale = kWidth / (2 * 2.4);  // pixels per metre: the screen spans x in +-2.4
  constexpr double kPoleWidth = 10.0;
  constexpr double kPoleLength = kScale * 2 * 0.5;  // twice the env's half length
  constexpr double kCartWidth = 50.0;
  constexpr double kCartHeight = 30.0;
  constexpr double kCartY = 100.0;  // the cart's middle, on the track
  constexpr double kAxleY = kCartY + kCartHeight / 4;
  image.resize(kWidth, kHeight);
  fill(image, kWhite);

  const double cart_x = state[0] * kScale + kWidth / 2.0;
  fill_turned_rect(image, -kCartWidth / 2, kCartWidth / 2, -kCartHeight / 2, kCartHeight / 2, 0.0,
                   {cart_x, kCartY}, kBlack);
  // Turned clockwise by theta: a positive theta leans the pole right.
  fill_turned_rect(image, -kPoleWidth / 2, kPoleWidth / 2, -kPoleWidth / 2,
                   kPoleLength - kPoleWidth / 2, -state[2], {cart_x, kAxleY}, Rgb{202, 152, 101});
  fill_disk(image, {std::trunc(cart_x), std::trunc(kAxleY)}, kPoleWidth / 2, Rgb{129, 132, 203});
  draw_thin_line(image, {0.0, kCartY}, {kWidth, kCartY}, kBlack);
}

void render_acrobot(const std::array<double, 4>& state, RgbImage& image) {
  constexpr int kSize = 500;
  constexpr double kScale = kSize / (2 * 2.2);  // the screen spans +-2.2 link lengths
  constexpr double kOffset = kSize / 2.0;       // the pivot, in the middle
  constexpr Rgb kLinkColor{0, 204, 204};
  constexpr Rgb kJointColor{204, 204, 0};
  image.resize(kSize, kSize);
  fill(image, kWhite);

  // The height the tip must rise above to end the episode: one link length above the pivot.
  draw_thin_line(image, {0.0, kScale + kOffset}, {kSize, kScale + kOffset}, kBlack);
  // Each link hangs from its joint at angle (theta - pi / 2) counterclockwise from the right,
  // straight down at theta = 0; the second link's theta is theta1 + theta2.
  const double angles[2] = {state[0] - kPi / 2, state[0] + state[1] - kPi / 2};
  Point joint{kOffset, kOffset};
  for (const double angle : angles) {
    fill_turned_rect(image, 0.0, kScale, -0.1 * kScale, 0.1 * kScale, angle, joint, kLinkColor);
    fill_disk(image, {std::trunc(joint.x), std::trunc(joint.y)}, std::trunc(0.1 * kScale),
              kJointColor);
    joint = turn({kScale, 0.0}, angle, joint);
  }
}

void render_mountain_car(double position, RgbImage& image, double goal_position) {
  constexpr int kWidth = 600;
  constexpr int kHeight = 400;
  constexpr double kMinPosition = -1.2;
  constexpr double kScale = kWidth / (0.6 - kMinPosition);  // the screen spans [-1.2, 0.6]
  constexpr double kCarWidth = 40.0;
  constexpr double kCarHeight = 20.0;
  constexpr double kClearance = 10.0;  // the car's underside above the ground
  const auto height = [](double x) { return std::sin(3 * x) * 0.45 + 0.55; };
  const auto screen = [&](double x, double y) {
    return Point{(x - kMinPosition) * kScale, y * kScale};
  };
  image.resize(kWidth, kHeight);
  fill(image, kWhite);

  // The hills through 100 evenly spaced points, as Gymnasium samples them.
  constexpr int kPoints = 100;
  for (int i = 0; i + 1 < kPoints; ++i) {
    const double x0 = kMinPosition + i * (0.6 - kMinPosition) / (kPoints - 1);
    const double x1 = kMinPosition + (i + 1) * (0.6 - kMinPosition) / (kPoints - 1);
    draw_thin_line(image, screen(x0, height(x0)), screen(x1, height(x1)), kBlack);
  }

  // The car tilts by cos(3 position) radians, roughly the slope under it.
  const double tilt = std::cos(3 * position);
  const Point base{(position - kMinPosition) * kScale, kClearance + height(position) * kScale};
  fill_turned_rect(image, -kCarWidth / 2, kCarWidth / 2, 0.0, kCarHeight, tilt, base, kBlack);
  for (const double wheel_x : {kCarWidth / 4, -kCarWidth / 4}) {
    const Point wheel = turn({wheel_x, 0.0}, tilt, base);
    fill_disk(image, {std::trunc(wheel.x), std::trunc(wheel.y)}, std::trunc(kCarHeight / 2.5),
              Rgb{128, 128, 128});
  }

  const Point foot = screen(goal_position, height(goal_position));
  const double flag_x = std::trunc(foot.x);
  const double flag_bottom = std::trunc(foot.y);
  const double flag_top = flag_bottom + 50;
  draw_thin_line(image, {flag_x, flag_bottom}, {flag_x, flag_top}, kBlack);
  fill_polygon(image,
               {flip(image, {flag_x, flag_top}), flip(image, {flag_x, flag_top - 10}),
                flip(image, {flag_x + 25, flag_top - 5})},
               Rgb{204, 204, 0});
}

void render_pendulum(double theta, double last_torque, RgbImage& image) {
  constexpr int kSize = 500;
  constexpr double kScale = kSize / (2 * 2.2);  // the screen spans +-2.2 rod lengths
  constexpr double kRodWidth = 0.2 * kScale;
  constexpr Rgb kRodColor{204, 77, 77};
  const Point pivot{kSize / 2, kSize / 2};
  image.resize(kSize, kSize);
  fill(image, kWhite);

  // The rod points at angle theta + pi / 2 counterclockwise from the right: up at theta = 0.
  const double angle = theta + kPi / 2;
  fill_turned_rect(image, 0.0, kScale, -kRodWidth / 2, kRodWidth / 2, angle, pivot, kRodColor);
  const double end_radius = std::trunc(kRodWidth / 2);
  fill_disk(image, pivot, end_radius, kRodColor);
  const Point end = turn({kScale, 0.0}, angle, pivot);
  fill_disk(image, {std::trunc(end.x), std::trunc(end.y)}, end_radius, kRodColor);
  fill_torque_arrow(image, pivot, last_torque, kScale);
  fill_disk(image, pivot, std::trunc(0.05 * kScale), kBlack);  // the axle
}

}  // namespace mnrl::envs
