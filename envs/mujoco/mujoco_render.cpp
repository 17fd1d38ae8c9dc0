#include "envs/mujoco/mujoco_render.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "envs/canvas.h"
#include "envs/mujoco/mujoco_model.h"

namespace mnrl::envs {
namespace {

constexpr int kWidth = 480;
constexpr int kHeight = 360;
constexpr double kPi = 3.141592653589793;
constexpr Rgb kSky{204, 217, 230};
constexpr int kVisibleGroups = 3;  // MuJoCo's viewer shows groups 0, 1 and 2 by default
constexpr int kRimPoints = 24;     // points around a circle when outlining cylinders and ellipsoids

using Vec3 = std::array<double, 3>;

Vec3 operator+(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 operator-(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 operator*(double s, const Vec3& a) { return {s * a[0], s * a[1], s * a[2]}; }
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// A fixed orthographic camera: world points to pixels, and depth along the view.
struct Camera {
  Vec3 center;  // the world point at the image's middle
  Vec3 right;   // unit vectors: the image's x, its y upwards, and the view direction
  Vec3 up;
  Vec3 forward;
  double scale;  // pixels per metre

  Point pixel(const Vec3& p) const {
    const Vec3 d = p - center;
    return {kWidth / 2.0 + scale * dot(d, right), kHeight / 2.0 - scale * dot(d, up)};
  }
  double depth(const Vec3& p) const { return dot(p - center, forward); }
};

// Whether the first body can leave the view: a free or slide joint of its own.
bool first_body_travels(const mjModel& model) {
  if (model.nbody < 2) return false;
  for (int j = model.body_jntadr[1]; j >= 0 && j < model.body_jntadr[1] + model.body_jntnum[1];
       ++j) {
    if (model.jnt_type[j] == mjJNT_FREE || model.jnt_type[j] == mjJNT_SLIDE) return true;
  }
  return false;
}

// What the camera frames: a box around `center`, `extent` its largest half side.
struct View {
  double center[3];
  double extent;
};

Camera make_camera(const mjModel& model, const mjData& data, const View& view) {
  const double azimuth = model.vis.global.azimuth * kPi / 180;
  const double elevation = model.vis.global.elevation * kPi / 180;
  Camera camera;
  camera.forward = {std::cos(elevation) * std::cos(azimuth),
                    std::cos(elevation) * std::sin(azimuth), std::sin(elevation)};
  camera.right = {std::sin(azimuth), -std::cos(azimuth), 0.0};
  camera.up = cross(camera.right, camera.forward);
  camera.center = {view.center[0], view.center[1], view.center[2]};
  if (first_body_travels(model)) {
    camera.center[0] = data.subtree_com[3];
    camera.center[1] = data.subtree_com[4];
  }
  const double extent = view.extent > 0 && std::isfinite(view.extent) ? view.extent : 1.0;
  camera.scale = kHeight / (2.5 * extent);
  return camera;
}

// A geom's outline in pixels: a convex polygon, or a thick segment with round ends (spheres
// and capsules: `from` == `to` for a sphere).
struct Outline {
  std::vector<Point> polygon;
  Point from{}, to{};
  double radius = 0.0;  // in pixels; 0 for a polygon
};

// The convex hull of `points` (Andrew's monotone chain); empty if any is not finite or there
// are fewer than 3.
std::vector<Point> convex_hull(std::vector<Point> points) {
  if (points.size() < 3) return {};
  for (const Point& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return {};
  }
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  const auto turn = [](const Point& o, const Point& a, const Point& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  };
  std::vector<Point> hull(2 * points.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    while (k >= 2 && turn(hull[k - 2], hull[k - 1], points[i]) <= 0) --k;
    hull[k++] = points[i];
  }
  for (std::size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && turn(hull[k - 2], hull[k - 1], points[i]) <= 0) --k;
    hull[k++] = points[i];
  }
  hull.resize(k > 1 ? k - 1 : k);
  return hull;
}

// The geom's frame: its position and its local axes in world coordinates.
struct Frame {
  Vec3 position;
  std::array<Vec3, 3> axes;

  Vec3 at(double x, double y, double z) const {
    return position + x * axes[0] + y * axes[1] + z * axes[2];
  }
};

Frame geom_frame(const mjData& data, int geom) {
  const mjtNum* p = data.geom_xpos + 3 * geom;
  const mjtNum* m = data.geom_xmat + 9 * geom;  // row-major: column c is axis c
  return {{p[0], p[1], p[2]}, {{{m[0], m[3], m[6]}, {m[1], m[4], m[7]}, {m[2], m[5], m[8]}}}};
}

std::vector<Point> project(const Camera& camera, const std::vector<Vec3>& points) {
  std::vector<Point> pixels;
  for (const Vec3& p : points) pixels.push_back(camera.pixel(p));
  return pixels;
}

// Points around the ellipse of semi-axes `a` (along axis 0) and `b` (axis 1) at height z.
void add_ring(const Frame& frame, double a, double b, double z, std::vector<Vec3>& points) {
  for (int k = 0; k < kRimPoints; ++k) {
    const double t = 2 * kPi * k / kRimPoints;
    points.push_back(frame.at(a * std::cos(t), b * std::sin(t), z));
  }
}

// A plane: its size's rectangle when small, or (infinite, a size of 0, or larger) a strip
// through the view's centre, across the whole view and a quarter of its height deep: a floor
// would cover the whole image in an orthographic view. May be flat when seen edge-on.
std::vector<Vec3> plane_corners(const Camera& camera, const Frame& frame, const mjtNum* size) {
  const double strip_depth = kHeight / 8.0 / camera.scale;  // half of it, in metres
  if (size[0] > 0 && size[1] > 0 && std::max(size[0], size[1]) <= strip_depth) {
    return {frame.at(-size[0], -size[1], 0), frame.at(size[0], -size[1], 0),
            frame.at(size[0], size[1], 0), frame.at(-size[0], size[1], 0)};
  }
  const Vec3& normal = frame.axes[2];
  Vec3 across = camera.right - dot(camera.right, normal) * normal;
  if (dot(across, across) < 1e-12) across = camera.up - dot(camera.up, normal) * normal;
  if (!(dot(across, across) >= 1e-12)) return {};
  across = (1 / std::sqrt(dot(across, across))) * across;
  const Vec3 deep = cross(normal, across);
  const Vec3 middle = camera.center - dot(camera.center - frame.position, normal) * normal;
  const Vec3 half_across = (kWidth / camera.scale) * across;
  const Vec3 half_deep = strip_depth * deep;
  return {middle - half_across - half_deep, middle + half_across - half_deep,
          middle + half_across + half_deep, middle - half_across + half_deep};
}

// The outline of geom `geom`, or nothing for a type not drawn.
std::optional<Outline> outline(const mjModel& model, const mjData& data, const Camera& camera,
                               int geom) {
  const Frame frame = geom_frame(data, geom);
  const mjtNum* size = model.geom_size + 3 * geom;
  std::vector<Vec3> points;
  switch (model.geom_type[geom]) {
    case mjGEOM_SPHERE:
    case mjGEOM_CAPSULE: {
      const double half = model.geom_type[geom] == mjGEOM_CAPSULE ? size[1] : 0.0;
      Outline round;
      round.from = camera.pixel(frame.at(0, 0, -half));
      round.to = camera.pixel(frame.at(0, 0, half));
      round.radius = size[0] * camera.scale;
      return round;
    }
    case mjGEOM_PLANE:
      return Outline{project(camera, plane_corners(camera, frame, size))};
    case mjGEOM_CYLINDER:
      add_ring(frame, size[0], size[0], -size[1], points);
      add_ring(frame, size[0], size[0], size[1], points);
      break;
    case mjGEOM_ELLIPSOID:
      // The outline of an ellipsoid projected along any direction touches these rings only
      // approximately; stacked rings make the hull close to it.
      for (int k = -4; k <= 4; ++k) {
        const double s = std::sin(kPi / 2 * k / 4);
        const double c = std::cos(kPi / 2 * k / 4);
        add_ring(frame, size[0] * c, size[1] * c, size[2] * s, points);
      }
      break;
    case mjGEOM_BOX:
      for (const double x : {-size[0], size[0]}) {
        for (const double y : {-size[1], size[1]}) {
          for (const double z : {-size[2], size[2]}) points.push_back(frame.at(x, y, z));
        }
      }
      break;
    default:
      return std::nullopt;  // meshes, height fields, SDFs, ...
  }
  return Outline{convex_hull(project(camera, points))};
}

// `grow` pixels wider all round (the rim drawn under the fill).
void draw(RgbImage& image, const Outline& shape, double grow, Rgb color) {
  if (shape.radius > 0) {
    fill_circle(image, shape.from, shape.radius + grow, color);
    fill_circle(image, shape.to, shape.radius + grow, color);
    draw_line(image, shape.from, shape.to, 2 * (shape.radius + grow), color);
    return;
  }
  fill_polygon(image, shape.polygon, color);
  // The edges too: the rim, and a plane seen edge-on (a polygon without area) as a line.
  const double thickness = std::max(1.0, 2 * grow);
  for (std::size_t i = 0; i < shape.polygon.size(); ++i) {
    draw_line(image, shape.polygon[i], shape.polygon[(i + 1) % shape.polygon.size()], thickness,
              color);
  }
}

// The geom's color over the sky (its alpha mixes them): its material's when it has one and
// its own rgba is MuJoCo's default, as MuJoCo lets an explicit rgba override the material.
Rgb geom_color(const mjModel& model, int geom) {
  const float* rgba = model.geom_rgba + 4 * geom;
  const bool default_rgba = rgba[0] == 0.5f && rgba[1] == 0.5f && rgba[2] == 0.5f && rgba[3] == 1;
  const int material = model.geom_matid[geom];
  if (material >= 0 && material < model.nmat && default_rgba) rgba = model.mat_rgba + 4 * material;
  const double alpha = std::clamp(static_cast<double>(rgba[3]), 0.0, 1.0);
  const auto mix = [alpha](float channel, std::uint8_t sky) {
    const double c = std::clamp(static_cast<double>(channel), 0.0, 1.0) * 255;
    return static_cast<std::uint8_t>(std::lround(alpha * c + (1 - alpha) * sky));
  };
  return {mix(rgba[0], kSky.r), mix(rgba[1], kSky.g), mix(rgba[2], kSky.b)};
}

Rgb darker(Rgb color) {
  return {static_cast<std::uint8_t>(color.r * 3 / 5), static_cast<std::uint8_t>(color.g * 3 / 5),
          static_cast<std::uint8_t>(color.b * 3 / 5)};
}

bool visible(const mjModel& model, int geom) {
  return model.geom_group[geom] >= 0 && model.geom_group[geom] < kVisibleGroups &&
         model.geom_rgba[4 * geom + 3] > 0;
}

// The box around the drawn geoms other than planes (each with its bounding sphere) in the
// initial pose, computed in a scratch mjData (cheap: its large stack is never touched); the
// model's stat.center and stat.extent when there are none.
View fit_view(const mjModel& model) {
  View view{{model.stat.center[0], model.stat.center[1], model.stat.center[2]}, model.stat.extent};
  const MujocoDataPtr data(mj_makeData(&model));
  if (!data) return view;
  mj_kinematics(&model, data.get());
  Vec3 low{}, high{};
  bool any = false;
  for (int geom = 0; geom < model.ngeom; ++geom) {
    if (!visible(model, geom) || model.geom_type[geom] == mjGEOM_PLANE) continue;
    const double radius = model.geom_rbound[geom];
    for (int axis = 0; axis < 3; ++axis) {
      const double at = data->geom_xpos[3 * geom + axis];
      low[axis] = any ? std::min(low[axis], at - radius) : at - radius;
      high[axis] = any ? std::max(high[axis], at + radius) : at + radius;
    }
    any = true;
  }
  if (!any) return view;
  view.extent = 0.0;
  for (int axis = 0; axis < 3; ++axis) {
    view.center[axis] = (low[axis] + high[axis]) / 2;
    view.extent = std::max(view.extent, (high[axis] - low[axis]) / 2);
  }
  return view;
}

}  // namespace

void render_mujoco(const mjModel& model, const mjData& data, RgbImage& image) {
  image.resize(kWidth, kHeight);
  fill(image, kSky);
  const Camera camera = make_camera(model, data, fit_view(model));
  // Planes first, then the other geoms from the farthest to the nearest.
  struct Drawn {
    bool plane;
    double depth;
    int geom;
  };
  std::vector<Drawn> order;
  for (int geom = 0; geom < model.ngeom; ++geom) {
    if (!visible(model, geom)) continue;
    const double depth = camera.depth(geom_frame(data, geom).position);
    order.push_back(
        {model.geom_type[geom] == mjGEOM_PLANE, std::isfinite(depth) ? depth : 0.0, geom});
  }
  std::stable_sort(order.begin(), order.end(), [](const Drawn& a, const Drawn& b) {
    return a.plane != b.plane ? a.plane : a.depth > b.depth;
  });
  for (const Drawn& drawn : order) {
    const std::optional<Outline> shape = outline(model, data, camera, drawn.geom);
    if (!shape) continue;
    const Rgb color = geom_color(model, drawn.geom);
    if (!drawn.plane) draw(image, *shape, 1.0, darker(color));
    draw(image, *shape, 0.0, color);
  }
}

}  // namespace mnrl::envs
