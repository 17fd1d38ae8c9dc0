#include "envs/box2d/bipedal_walker.h"

#include <box2d/box2d.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "envs/action_check.h"
#include "envs/box2d/bipedal_walker_render.h"
#include "envs/box2d/box2d_picture.h"
#include "envs/box2d/ground_contacts.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Gymnasium 0.29.1's constants (bipedal_walker.py); lengths in pixels are divided by kScale.
constexpr double kPi = 3.141592653589793;
constexpr double kFps = 50;
constexpr double kScale = 30.0;
constexpr double kGravity = -10.0;  // pybox2d's default b2World gravity
constexpr double kMotorsTorque = 80;
constexpr double kSpeedHip = 4;
constexpr double kSpeedKnee = 6;
constexpr double kLidarRange = 160 / kScale;
constexpr int kLidarRays = 10;
constexpr double kInitialRandom = 5;
constexpr std::array<std::array<double, 2>, 5> kHullPoly = {
    {{-30, +9}, {+6, +9}, {+34, +1}, {+34, -8}, {-30, -8}}};
constexpr double kLegDown = -8 / kScale;
constexpr double kLegW = 8 / kScale;
constexpr double kLegH = 34 / kScale;
constexpr double kViewportW = 600;
constexpr double kViewportH = 400;
constexpr double kTerrainStep = 14 / kScale;
constexpr int kTerrainLength = 200;  // points of the terrain's polyline
constexpr double kTerrainHeight = kViewportH / kScale / 4;
constexpr int kTerrainGrass = 10;     // a stretch of grass has 5 to 9 points
constexpr int kTerrainStartpad = 20;  // flat points before the first variation
constexpr double kFriction = 2.5;
constexpr int kVelocityIterations = 6 * 30;
constexpr int kPositionIterations = 2 * 30;
constexpr double kTorqueCost = 0.00035 * kMotorsTorque;  // per joint, times |action| clipped to 1
constexpr int kObservationSize = 24;
constexpr int kActionSize = 4;

// Collision filter bits: the terrain is Box2D's default category 1; the walker's parts collide
// only with it (never with each other), and the lidar sees only category 1.
constexpr std::uint16_t kGroundCategory = 0x0001;
constexpr std::uint16_t kWalkerCategory = 0x0020;

const char* env_id(bool hardcore) {
  return hardcore ? "BipedalWalkerHardcore-v3" : "BipedalWalker-v3";
}

EnvSpec make_spec(bool hardcore) {
  EnvSpec spec;
  spec.id = env_id(hardcore);
  // Gymnasium 0.29.1's bounds (joint angles within pi, velocities and joint speeds within 5,
  // i.e. five times the rated speed for impacts, contacts in [0, 5], lidar in [-1, 1]) except
  // the hull angle's. Gymnasium declares +-pi there, but the angle is not wrapped and leaves
  // that range under random actions: a walker toppling backwards turns its hull past pi before
  // the hull lands (7 of 570k random steps, up to 3.4; constant full torques flip it in the
  // air, up to 4.0). A whole turn would need the hull upside down and clear of the ground for
  // half a turn, and the legs cannot reach below an inverted hull (their joint limits), so it
  // lands first and the episode ends: +-2 pi holds.
  const float pi = static_cast<float>(kPi);
  const float two_pi = static_cast<float>(2 * kPi);
  std::vector<float> low = {-two_pi, -5, -5, -5, -pi, -5, -pi, -5, -0.0f, -pi, -5, -pi, -5, -0.0f};
  std::vector<float> high = {two_pi, 5, 5, 5, pi, 5, pi, 5, 5, pi, 5, pi, 5, 5};
  low.resize(kObservationSize, -1.0f);
  high.resize(kObservationSize, 1.0f);
  spec.observation_space = Box{{kObservationSize}, low, high};
  spec.action_space = Box{
      {kActionSize}, std::vector<float>(kActionSize, -1.0f), std::vector<float>(kActionSize, 1.0f)};
  spec.max_episode_steps = hardcore ? 2000 : 1600;
  spec.reward_threshold = 300.0;
  return spec;
}

double sign(double value) { return (value > 0.0) - (value < 0.0); }

b2Vec2 vec(double x, double y) { return b2Vec2(static_cast<float>(x), static_cast<float>(y)); }

// Gymnasium's terrain: a polyline of kTerrainLength points kTerrainStep apart, and in hardcore
// the obstacles' boxes (static polygons: stumps standing on the line, stair steps along it,
// the two walls of a pit).
struct Terrain {
  std::vector<double> x;
  std::vector<double> y;
  std::vector<std::array<b2Vec2, 4>> boxes;
  BipedalWalker::Obstacles obstacles;
};

// Walks along the terrain in stretches: grass (a damped random walk around kTerrainHeight,
// flat over the start pad), then in hardcore alternately an obstacle and grass. `counter` is
// the number of points left in the current stretch, and a stretch's first point (Gymnasium's
// `oneshot`) draws its size and lays its boxes. Each stretch's point is Gymnasium's branch for
// it, with its random draws in the same order.
class TerrainWalk {
 public:
  TerrainWalk(core::Rng& rng, bool hardcore) : rng_(rng), hardcore_(hardcore) {}

  Terrain walk() && {
    for (int i = 0; i < kTerrainLength; ++i) {
      const double x = i * kTerrainStep;
      point(i, x);
      first_point_ = false;
      terrain_.x.push_back(x);
      terrain_.y.push_back(y_);
      if (--counter_ == 0) next_stretch();
    }
    return std::move(terrain_);
  }

 private:
  enum class Stretch { kGrass, kStump, kStairs, kPit };

  // Sets y_ at point i (at x), and lays the boxes of an obstacle that starts there.
  void point(int i, double x) {
    if (stretch_ == Stretch::kGrass && !first_point_) {
      velocity_ = 0.8 * velocity_ + 0.01 * sign(kTerrainHeight - y_);
      if (i > kTerrainStartpad) velocity_ += rng_.uniform(-1.0, 1.0) / kScale;
      y_ += velocity_;
    } else if (stretch_ == Stretch::kPit && first_point_) {
      begin_pit(x);
    } else if (stretch_ == Stretch::kPit) {
      y_ = original_y_;
      if (counter_ > 1) y_ -= 4 * kTerrainStep;  // the pit's floor, up again at its far wall
    } else if (stretch_ == Stretch::kStump && first_point_) {
      counter_ = 1 + static_cast<int>(rng_.below(2));  // a square of 1 or 2 terrain steps
      add_box(x, y_, x + counter_ * kTerrainStep, y_ + counter_ * kTerrainStep);
      ++terrain_.obstacles.stumps;
    } else if (stretch_ == Stretch::kStairs && first_point_) {
      begin_stairs(x);
    } else if (stretch_ == Stretch::kStairs) {
      // The line ramps along the steps (Gymnasium divides as floats here).
      const int s = stair_steps_ * stair_width_ - counter_ - stair_height_;
      const double n = static_cast<double>(s) / stair_width_;
      y_ = original_y_ + n * stair_height_ * kTerrainStep;
    }
  }

  void begin_pit(double x) {
    counter_ = 3 + static_cast<int>(rng_.below(2));  // the pit is counter - 1 points wide
    add_box(x, y_ - 4 * kTerrainStep, x + kTerrainStep, y_);
    const double far_wall = x + counter_ * kTerrainStep;
    add_box(far_wall, y_ - 4 * kTerrainStep, far_wall + kTerrainStep, y_);
    counter_ += 2;
    original_y_ = y_;
    ++terrain_.obstacles.pits;
  }

  void begin_stairs(double x) {
    stair_height_ = rng_.uniform() > 0.5 ? 1 : -1;
    stair_width_ = 4;  // Gymnasium's integers(4, 5)
    stair_steps_ = 3 + static_cast<int>(rng_.below(2));
    original_y_ = y_;
    for (int s = 0; s < stair_steps_; ++s) {
      add_box(x + s * stair_width_ * kTerrainStep, y_ + (-1 + s * stair_height_) * kTerrainStep,
              x + (1 + s) * stair_width_ * kTerrainStep, y_ + s * stair_height_ * kTerrainStep);
    }
    counter_ = stair_steps_ * stair_width_;
    terrain_.obstacles.stair_steps += stair_steps_;
  }

  // The stretch after this one: grass after an obstacle, an obstacle after grass in hardcore.
  void next_stretch() {
    counter_ = kTerrainGrass / 2 + static_cast<int>(rng_.below(kTerrainGrass - kTerrainGrass / 2));
    if (stretch_ == Stretch::kGrass && hardcore_) {
      stretch_ = static_cast<Stretch>(1 + rng_.below(3));  // stump, stairs or pit
    } else {
      stretch_ = Stretch::kGrass;
    }
    first_point_ = true;
  }

  void add_box(double x0, double y0, double x1, double y1) {
    terrain_.boxes.push_back({vec(x0, y0), vec(x1, y0), vec(x1, y1), vec(x0, y1)});
  }

  core::Rng& rng_;
  const bool hardcore_;
  Terrain terrain_;
  Stretch stretch_ = Stretch::kGrass;
  bool first_point_ = false;
  int counter_ = kTerrainStartpad;
  double y_ = kTerrainHeight;
  double velocity_ = 0.0;
  double original_y_ = 0.0;  // the height where the current pit or stairs began
  int stair_steps_ = 0;
  int stair_width_ = 0;
  int stair_height_ = 0;  // +1 up, -1 down
};

Terrain generate_terrain(core::Rng& rng, bool hardcore) {
  return TerrainWalk(rng, hardcore).walk();
}

// Box2D's ray cast, keeping the nearest terrain fixture the ray meets (the walker's own parts
// are skipped): `fraction` of the ray's length, 1 when it meets nothing.
class NearestGround final : public b2RayCastCallback {
 public:
  float ReportFixture(b2Fixture* fixture, const b2Vec2& /*point*/, const b2Vec2& /*normal*/,
                      float fraction) override {
    if ((fixture->GetFilterData().categoryBits & kGroundCategory) == 0) return -1.0f;  // ignore
    fraction_ = fraction;
    return fraction;  // clip the ray: later reports are nearer
  }
  float fraction() const { return fraction_; }

 private:
  float fraction_ = 1.0f;
};

}  // namespace

// The Box2D world of one episode: terrain, hull, legs, motors, and who touches the ground.
class BipedalWalker::World final {
 public:
  World(bool hardcore, core::Rng& rng)
      : world_(vec(0.0, kGravity)), terrain_(generate_terrain(rng, hardcore)) {
    world_.SetContactListener(&contacts_);
    build_terrain();
    build_walker(rng);
    contacts_.watch(hull_, {lower_legs_[0], lower_legs_[1]});
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Each motor turns at its rated speed in the action's direction (still for 0), with at most
  // its share |action| (clipped to 1) of the maximum torque.
  void drive(const float* action) {
    for (int j = 0; j < kActionSize; ++j) {
      const double rated_speed = j % 2 == 0 ? kSpeedHip : kSpeedKnee;
      const double a = action[j];
      joints_[j]->SetMotorSpeed(static_cast<float>(rated_speed * sign(a)));
      joints_[j]->SetMaxMotorTorque(static_cast<float>(kMotorsTorque * std::min(std::abs(a), 1.0)));
    }
  }

  void step() {
    world_.Step(static_cast<float>(1.0 / kFps), kVelocityIterations, kPositionIterations);
  }

  // Gymnasium's observation, in float64 before it becomes float32.
  std::array<double, kObservationSize> state() const {
    const b2Vec2 velocity = hull_->GetLinearVelocity();
    std::array<double, kObservationSize> s{};
    s[0] = hull_->GetAngle();
    s[1] = 2.0 * hull_->GetAngularVelocity() / kFps;
    s[2] = 0.3 * velocity.x * (kViewportW / kScale) / kFps;
    s[3] = 0.3 * velocity.y * (kViewportH / kScale) / kFps;
    for (int leg = 0; leg < 2; ++leg) {
      const b2RevoluteJoint* hip = joints_[2 * leg];
      const b2RevoluteJoint* knee = joints_[2 * leg + 1];
      double* out = &s[4 + 5 * leg];
      out[0] = hip->GetJointAngle();
      out[1] = hip->GetJointSpeed() / kSpeedHip;
      out[2] = knee->GetJointAngle() + 1.0;
      out[3] = knee->GetJointSpeed() / kSpeedKnee;
      out[4] = contacts_.foot(leg) ? 1.0 : 0.0;
    }
    for (int ray = 0; ray < kLidarRays; ++ray) s[14 + ray] = lidar(ray);
    return s;
  }

  bool hull_touched_ground() const { return contacts_.body_touched(); }
  b2Vec2 hull_position() const { return hull_->GetPosition(); }
  const Terrain& terrain() const { return terrain_; }

  // What render() draws: the terrain, and the walker's polygons now.
  BipedalWalkerScene scene() const {
    BipedalWalkerScene scene;
    for (std::size_t i = 0; i < terrain_.x.size(); ++i) {
      scene.surface.push_back({terrain_.x[i], terrain_.y[i]});
    }
    for (const auto& box : terrain_.boxes) {
      scene.obstacles.emplace_back();
      for (const b2Vec2& corner : box) scene.obstacles.back().push_back({corner.x, corner.y});
    }
    for (std::size_t i = 0; i < leg_segments_.size(); ++i) {
      scene.leg_segments[i] = body_polygons(*leg_segments_[i]).front();
    }
    scene.hull = body_polygons(*hull_).front();
    scene.hull_x = hull_->GetPosition().x;
    return scene;
  }

 private:
  // Rays fan out from the hull's origin, from straight down (ray 0) towards the front, 0.15 rad
  // apart, kLidarRange long.
  double lidar(int ray) const {
    const b2Vec2 from = hull_->GetPosition();
    const double angle = 1.5 * ray / 10.0;
    const b2Vec2 to =
        vec(from.x + std::sin(angle) * kLidarRange, from.y - std::cos(angle) * kLidarRange);
    NearestGround nearest;
    world_.RayCast(&nearest, from, to);
    return nearest.fraction();
  }

  // One static body holds the terrain: the obstacles' boxes and the polyline's edges.
  void build_terrain() {
    b2BodyDef ground_def;
    b2Body* ground = world_.CreateBody(&ground_def);
    for (const auto& corners : terrain_.boxes) {
      b2PolygonShape box;
      box.Set(corners.data(), static_cast<int32>(corners.size()));
      b2FixtureDef fixture;
      fixture.shape = &box;
      fixture.friction = static_cast<float>(kFriction);
      ground->CreateFixture(&fixture);
    }
    for (int i = 0; i + 1 < kTerrainLength; ++i) {
      b2EdgeShape edge;
      edge.SetTwoSided(vec(terrain_.x[i], terrain_.y[i]),
                       vec(terrain_.x[i + 1], terrain_.y[i + 1]));
      b2FixtureDef fixture;
      fixture.shape = &edge;
      fixture.friction = static_cast<float>(kFriction);
      fixture.filter.categoryBits = kGroundCategory;
      ground->CreateFixture(&fixture);
    }
  }

  // The hull over the start pad, pushed by a small random horizontal force, and two legs (an
  // upper and a narrower lower segment each) on motorized, limited revolute joints.
  void build_walker(core::Rng& rng) {
    const double init_x = kTerrainStep * kTerrainStartpad / 2;
    const double init_y = kTerrainHeight + 2 * kLegH;
    b2BodyDef hull_def;
    hull_def.type = b2_dynamicBody;
    hull_def.position = vec(init_x, init_y);
    hull_ = world_.CreateBody(&hull_def);
    std::array<b2Vec2, kHullPoly.size()> vertices;
    for (std::size_t i = 0; i < vertices.size(); ++i) {
      vertices[i] = vec(kHullPoly[i][0] / kScale, kHullPoly[i][1] / kScale);
    }
    b2PolygonShape hull_shape;
    hull_shape.Set(vertices.data(), static_cast<int32>(vertices.size()));
    add_walker_fixture(hull_, hull_shape, 5.0, 0.1);
    hull_->ApplyForceToCenter(vec(rng.uniform(-kInitialRandom, kInitialRandom), 0.0), true);

    for (int side : {-1, +1}) {
      b2PolygonShape upper_shape;
      upper_shape.SetAsBox(static_cast<float>(kLegW / 2), static_cast<float>(kLegH / 2));
      // Placed 2 |kLegDown| higher than the hip holds it, as Gymnasium places it: the joint pulls
      // the legs down in the first step, and the feet kick the walker off the ground.
      b2Body* upper = add_leg_segment(upper_shape, init_x, init_y - kLegH / 2 - kLegDown, side);
      // The hip: the hull's point |kLegDown| below its origin holds the upper leg's top.
      add_motor(hull_, upper, kLegDown, side, -0.8, 1.1);

      b2PolygonShape lower_shape;
      lower_shape.SetAsBox(static_cast<float>(0.8 * kLegW / 2), static_cast<float>(kLegH / 2));
      b2Body* lower = add_leg_segment(lower_shape, init_x, init_y - kLegH * 3 / 2 - kLegDown, side);
      // The knee: the upper leg's bottom holds the lower leg's top; it only bends backwards.
      add_motor(upper, lower, -kLegH / 2, 1.0, -1.6, -0.1);
      lower_legs_[side == -1 ? 0 : 1] = lower;
      leg_segments_[side == -1 ? 0 : 2] = upper;
      leg_segments_[side == -1 ? 1 : 3] = lower;
    }
  }

  b2Body* add_leg_segment(const b2PolygonShape& shape, double x, double y, int side) {
    b2BodyDef def;
    def.type = b2_dynamicBody;
    def.position = vec(x, y);
    def.angle = static_cast<float>(side * 0.05);
    b2Body* segment = world_.CreateBody(&def);
    add_walker_fixture(segment, shape, 1.0, 0.2);  // Box2D's default friction, as Gymnasium's
    return segment;
  }

  static void add_walker_fixture(b2Body* body, const b2Shape& shape, double density,
                                 double friction) {
    b2FixtureDef fixture;
    fixture.shape = &shape;
    fixture.density = static_cast<float>(density);
    fixture.friction = static_cast<float>(friction);
    fixture.restitution = 0.0f;
    fixture.filter.categoryBits = kWalkerCategory;
    fixture.filter.maskBits = kGroundCategory;
    body->CreateFixture(&fixture);
  }

  // Joins `child`'s top (kLegH / 2 above its centre) to `parent`'s point `anchor_y` below its
  // origin with a motor (until the first action: `motor_speed`, full torque) and angle limits.
  void add_motor(b2Body* parent, b2Body* child, double anchor_y, double motor_speed,
                 double lower_angle, double upper_angle) {
    b2RevoluteJointDef joint;
    joint.bodyA = parent;
    joint.bodyB = child;
    joint.localAnchorA = vec(0.0, anchor_y);
    joint.localAnchorB = vec(0.0, kLegH / 2);
    joint.enableMotor = true;
    joint.enableLimit = true;
    joint.maxMotorTorque = static_cast<float>(kMotorsTorque);
    joint.motorSpeed = static_cast<float>(motor_speed);
    joint.lowerAngle = static_cast<float>(lower_angle);
    joint.upperAngle = static_cast<float>(upper_angle);
    joints_[joint_count_++] = static_cast<b2RevoluteJoint*>(world_.CreateJoint(&joint));
  }

  // Watches the hull, and the lower legs as feet; declared before world_, which calls it, to
  // outlive it.
  GroundContacts contacts_;
  b2World world_;
  Terrain terrain_;
  b2Body* hull_ = nullptr;
  std::array<b2Body*, 2> lower_legs_{};
  std::array<b2Body*, 4> leg_segments_{};  // each leg's upper then lower segment, for render()
  // Hip and knee of the first leg, then of the second: the order of the action's entries.
  std::array<b2RevoluteJoint*, kActionSize> joints_{};
  int joint_count_ = 0;
};

BipedalWalker::BipedalWalker(bool hardcore)
    : hardcore_(hardcore), replay_(spec().id, kActionSize) {}
BipedalWalker::~BipedalWalker() = default;

const EnvSpec& BipedalWalker::spec() const {
  static const EnvSpec normal = make_spec(false);
  static const EnvSpec hardcore = make_spec(true);
  return hardcore_ ? hardcore : normal;
}

void BipedalWalker::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  replay_.start(rng_.state());
  start_episode(observation.floats());
}

void BipedalWalker::start_episode(float* observation) {
  world_ = std::make_unique<World>(hardcore_, rng_);
  previous_shaping_.reset();
  phase_.start();
  // Gymnasium's reset() returns the observation after one step with all motors off.
  const std::array<float, kActionSize> still{};
  advance(still.data(), observation);
}

StepResult BipedalWalker::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  check_action(spec(), action);
  replay_.record(action.values);
  const StepResult result = advance(action.values, observation.floats());
  phase_.finish_step(result.terminated);
  return result;
}

StepResult BipedalWalker::advance(const float* action, float* observation) {
  world_->drive(action);
  world_->step();

  const std::array<double, kObservationSize> state = world_->state();
  for (int i = 0; i < kObservationSize; ++i) observation[i] = static_cast<float>(state[i]);

  const double x = world_->hull_position().x;
  const double shaping = 130 * x / kScale - 5.0 * std::abs(state[0]);
  double reward = previous_shaping_ ? shaping - *previous_shaping_ : 0.0;
  previous_shaping_ = shaping;
  for (int j = 0; j < kActionSize; ++j) {
    reward -= kTorqueCost * std::min(std::abs(static_cast<double>(action[j])), 1.0);
  }

  StepResult result{reward, false, false};
  if (world_->hull_touched_ground() || x < 0) result = {-100.0, true, false};
  if (x > (kTerrainLength - kTerrainGrass) * kTerrainStep) result.terminated = true;
  return result;
}

void BipedalWalker::save_state(core::StateWriter& out) const { replay_.save(out, rng_, phase_); }

void BipedalWalker::load_state(core::StateReader& in) {
  std::array<float, kObservationSize> observation;
  replay_.load(in, rng_, phase_,
               {[](const float* action) {
                  return std::none_of(action, action + kActionSize,
                                      [](float a) { return std::isnan(a); });
                },
                [&] { start_episode(observation.data()); },
                [&](const float* action) { return advance(action, observation.data()); },
                [this] { world_.reset(); }});
}

BipedalWalker::Obstacles BipedalWalker::obstacles() const {
  return world_ ? world_->terrain().obstacles : Obstacles{};
}

bool BipedalWalker::render(RgbImage& image) const {
  if (!world_) return false;
  render_bipedal_walker(world_->scene(), image);
  return true;
}

std::vector<double> BipedalWalker::terrain_heights() const {
  return world_ ? world_->terrain().y : std::vector<double>{};
}

std::array<double, 2> BipedalWalker::hull_position() const {
  if (!world_) return {0.0, 0.0};
  const b2Vec2 position = world_->hull_position();
  return {position.x, position.y};
}

namespace {
const bool registered = [] {
  for (bool hardcore : {false, true}) {
    Registry::global().add(env_id(hardcore), std::function<std::unique_ptr<Env>()>([hardcore] {
                             return std::make_unique<BipedalWalker>(hardcore);
                           }));
  }
  return true;
}();
}  // namespace

}  // namespace mnrl::envs
