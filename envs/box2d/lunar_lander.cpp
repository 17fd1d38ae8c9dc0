#include "envs/box2d/lunar_lander.h"

#include <box2d/box2d.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "envs/action_check.h"
#include "envs/box2d/box2d_picture.h"
#include "envs/box2d/ground_contacts.h"
#include "envs/box2d/lunar_lander_render.h"
#include "envs/mask_velocity.h"
#include "envs/registry.h"

namespace mnrl::envs {
namespace {

// Gymnasium 0.29.1's constants (lunar_lander.py); lengths in pixels are divided by kScale.
constexpr double kPi = 3.141592653589793;
constexpr double kFps = 50;
constexpr double kScale = 30.0;
constexpr double kMainEnginePower = 13.0;
constexpr double kSideEnginePower = 0.6;
constexpr double kInitialRandom = 1000.0;
constexpr std::array<std::array<float, 2>, 6> kLanderPoly = {
    {{-14, +17}, {-17, 0}, {-17, -10}, {+17, -10}, {+17, 0}, {+14, +17}}};
constexpr double kLegAway = 20;
constexpr double kLegDown = 18;
constexpr double kLegW = 2;
constexpr double kLegH = 8;
constexpr double kLegSpringTorque = 40;
constexpr double kSideEngineHeight = 14.0;
constexpr double kSideEngineAway = 12.0;
constexpr double kViewportW = 600;
constexpr double kViewportH = 400;
constexpr double kW = kViewportW / kScale;
constexpr double kH = kViewportH / kScale;
constexpr int kChunks = 11;
constexpr double kHelipadY = kH / 4;
constexpr int kVelocityIterations = 6 * 30;
constexpr int kPositionIterations = 2 * 30;

// Collision filter bits: the ground is Box2D's default category 1; lander and legs collide only
// with it (never with each other).
constexpr std::uint16_t kLanderCategory = 0x0010;
constexpr std::uint16_t kLegCategory = 0x0020;
constexpr std::uint16_t kGroundMask = 0x0001;

EnvSpec make_spec(bool continuous) {
  EnvSpec spec;
  spec.id = continuous ? "LunarLanderContinuous-v2" : "LunarLander-v2";
  // Gymnasium 0.29.1 declares [-1.5, 1.5] for the position, [-5, 5] for the velocities and
  // [-pi, pi] for the angle, which its own env leaves under random play (flying above the
  // screen, spinning: 142 of 3000 random steps here, 747 with continuous actions). Declared
  // here is what holds: unbounded, and the contact flags in [0, 1].
  const float inf = std::numeric_limits<float>::infinity();
  spec.observation_space = Box{{8},
                               {-inf, -inf, -inf, -inf, -inf, -inf, 0.0f, 0.0f},
                               {inf, inf, inf, inf, inf, inf, 1.0f, 1.0f}};
  if (continuous) {
    spec.action_space = Box{{2}, {-1.0f, -1.0f}, {1.0f, 1.0f}};
  } else {
    spec.action_space = Discrete{4};
  }
  spec.max_episode_steps = 1000;
  spec.reward_threshold = 200.0;
  return spec;
}

// Gymnasium's wind and turbulence profile: tanh(sin(0.02 k) + sin(pi 0.01 k)).
double gust(int index) { return std::tanh(std::sin(0.02 * index) + std::sin(kPi * 0.01 * index)); }

}  // namespace

LunarLanderOptions LunarLanderOptions::from(const core::Kwargs& kwargs, bool continuous) {
  LunarLanderOptions options;
  options.continuous = continuous;  // chosen by the id, as Gymnasium registers the two
  options.gravity = kwargs.get<double>("gravity", options.gravity);
  options.enable_wind = kwargs.get<bool>("enable_wind", options.enable_wind);
  options.wind_power = kwargs.get<double>("wind_power", options.wind_power);
  options.turbulence_power = kwargs.get<double>("turbulence_power", options.turbulence_power);
  if (!(options.gravity > -12.0 && options.gravity < 0.0)) {
    throw kwargs.error("gravity", "must be in (-12, 0), as Gymnasium requires");
  }
  if (!(options.wind_power >= 0.0 && options.wind_power <= 20.0)) {
    throw kwargs.error("wind_power", "must be in [0, 20] (Gymnasium's recommended range)");
  }
  if (!(options.turbulence_power >= 0.0 && options.turbulence_power <= 2.0)) {
    throw kwargs.error("turbulence_power", "must be in [0, 2] (Gymnasium's recommended range)");
  }
  return options;
}

// The Box2D world of one episode: terrain, lander, legs, and who touches the ground.
class LunarLander::World final {
 public:
  World(const LunarLanderOptions& options, core::Rng& rng)
      : world_(b2Vec2(0.0f, static_cast<float>(options.gravity))) {
    world_.SetContactListener(&contacts_);
    build_terrain(rng);
    build_lander(rng);
    contacts_.watch(lander_, {legs_[0], legs_[1]});
    if (options.enable_wind) {
      // np_random.integers(-9999, 9999): the upper end excluded.
      wind_index_ = static_cast<int>(rng.below(19998)) - 9999;
      torque_index_ = static_cast<int>(rng.below(19998)) - 9999;
    }
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Applies the wind and turbulence of this step (only while no leg touches the ground).
  void blow(const LunarLanderOptions& options) {
    if (contacts_.foot(0) || contacts_.foot(1)) return;
    const double wind = gust(wind_index_++) * options.wind_power;
    lander_->ApplyForceToCenter(b2Vec2(static_cast<float>(wind), 0.0f), true);
    const double torque = gust(torque_index_++) * options.turbulence_power;
    lander_->ApplyTorque(static_cast<float>(torque), true);
  }

  // Fires the main engine at `power` (0.5-1) and the side engine `direction` (-1 left, +1
  // right) at `side_power` (0 = off), with the dispersion Gymnasium draws each step.
  void fire(double power, double direction, double side_power,
            const std::array<double, 2>& dispersion) {
    const double tip_x = std::sin(lander_->GetAngle());
    const double tip_y = std::cos(lander_->GetAngle());
    const double side_x = -tip_y;
    const double side_y = tip_x;
    const b2Vec2 position = lander_->GetPosition();
    if (power > 0.0) {
      const double ox = tip_x * (4 / kScale + 2 * dispersion[0]) + side_x * dispersion[1];
      const double oy = -tip_y * (4 / kScale + 2 * dispersion[0]) - side_y * dispersion[1];
      const b2Vec2 at(static_cast<float>(position.x + ox), static_cast<float>(position.y + oy));
      lander_->ApplyLinearImpulse(b2Vec2(static_cast<float>(-ox * kMainEnginePower * power),
                                         static_cast<float>(-oy * kMainEnginePower * power)),
                                  at, true);
    }
    if (side_power > 0.0) {
      const double away = 3 * dispersion[1] + direction * kSideEngineAway / kScale;
      const double ox = tip_x * dispersion[0] + side_x * away;
      const double oy = -tip_y * dispersion[0] - side_y * away;
      const b2Vec2 at(static_cast<float>(position.x + ox - tip_x * 17 / kScale),
                      static_cast<float>(position.y + oy + tip_y * kSideEngineHeight / kScale));
      lander_->ApplyLinearImpulse(b2Vec2(static_cast<float>(-ox * kSideEnginePower * side_power),
                                         static_cast<float>(-oy * kSideEnginePower * side_power)),
                                  at, true);
    }
  }

  void step() {
    world_.Step(static_cast<float>(1.0 / kFps), kVelocityIterations, kPositionIterations);
  }

  // Gymnasium's observation, in float64 before it becomes float32.
  std::array<double, 8> state() const {
    const b2Vec2 position = lander_->GetPosition();
    const b2Vec2 velocity = lander_->GetLinearVelocity();
    return {(position.x - kW / 2) / (kW / 2),
            (position.y - (kHelipadY + kLegDown / kScale)) / (kH / 2),
            velocity.x * (kW / 2) / kFps,
            velocity.y * (kH / 2) / kFps,
            lander_->GetAngle(),
            20.0 * lander_->GetAngularVelocity() / kFps,
            contacts_.foot(0) ? 1.0 : 0.0,
            contacts_.foot(1) ? 1.0 : 0.0};
  }

  // What render() draws: the surface, the helipad, the lander's and legs' polygons now.
  LunarLanderScene scene() const {
    LunarLanderScene scene = scene_;
    for (const b2Body* body : {lander_, legs_[0], legs_[1]}) {
      for (auto& polygon : body_polygons(*body)) scene.lander.push_back(std::move(polygon));
    }
    return scene;
  }

  bool crashed() const { return contacts_.body_touched(); }
  bool lander_awake() const { return lander_->IsAwake(); }
  std::array<double, 3> momentum() const {
    std::array<double, 3> total{};
    for (const b2Body* body : {lander_, legs_[0], legs_[1]}) {
      total[0] += body->GetMass() * body->GetLinearVelocity().x;
      total[1] += body->GetMass() * body->GetLinearVelocity().y;
      total[2] += body->GetMass();
    }
    return total;
  }

 private:
  // Eleven chunks of random height, flattened under the helipad and smoothed.
  void build_terrain(core::Rng& rng) {
    std::array<double, kChunks + 1> height;
    for (double& h : height) h = rng.uniform(0.0, kH / 2);
    std::array<double, kChunks> chunk_x;
    for (int i = 0; i < kChunks; ++i) chunk_x[i] = kW / (kChunks - 1) * i;
    for (int i = kChunks / 2 - 2; i <= kChunks / 2 + 2; ++i) height[i] = kHelipadY;
    scene_.helipad_left = chunk_x[kChunks / 2 - 1];
    scene_.helipad_right = chunk_x[kChunks / 2 + 1];
    scene_.helipad_y = kHelipadY;
    std::array<double, kChunks> smooth_y;
    for (int i = 0; i < kChunks; ++i) {
      // Python's height[i - 1] at i = 0 is the last element.
      const double before = height[i == 0 ? kChunks : i - 1];
      smooth_y[i] = 0.33 * (before + height[i] + height[i + 1]);
      scene_.surface.push_back({chunk_x[i], smooth_y[i]});
    }
    b2BodyDef ground;
    b2Body* moon = world_.CreateBody(&ground);
    b2EdgeShape bottom;
    bottom.SetTwoSided(b2Vec2(0.0f, 0.0f), b2Vec2(static_cast<float>(kW), 0.0f));
    moon->CreateFixture(&bottom, 0.0f);
    for (int i = 0; i + 1 < kChunks; ++i) {
      b2EdgeShape edge;
      edge.SetTwoSided(
          b2Vec2(static_cast<float>(chunk_x[i]), static_cast<float>(smooth_y[i])),
          b2Vec2(static_cast<float>(chunk_x[i + 1]), static_cast<float>(smooth_y[i + 1])));
      b2FixtureDef fixture;
      fixture.shape = &edge;
      fixture.density = 0.0f;
      fixture.friction = 0.1f;
      moon->CreateFixture(&fixture);
    }
  }

  // The lander at the top centre, pushed by a random force, and its two spring-loaded legs.
  void build_lander(core::Rng& rng) {
    const float initial_y = static_cast<float>(kViewportH / kScale);
    const float centre_x = static_cast<float>(kViewportW / kScale / 2);
    b2BodyDef body;
    body.type = b2_dynamicBody;
    body.position.Set(centre_x, initial_y);
    lander_ = world_.CreateBody(&body);
    std::array<b2Vec2, kLanderPoly.size()> vertices;
    for (std::size_t i = 0; i < vertices.size(); ++i) {
      vertices[i].Set(static_cast<float>(kLanderPoly[i][0] / kScale),
                      static_cast<float>(kLanderPoly[i][1] / kScale));
    }
    b2PolygonShape hull;
    hull.Set(vertices.data(), static_cast<int32>(vertices.size()));
    b2FixtureDef fixture;
    fixture.shape = &hull;
    fixture.density = 5.0f;
    fixture.friction = 0.1f;
    fixture.restitution = 0.0f;
    fixture.filter.categoryBits = kLanderCategory;
    fixture.filter.maskBits = kGroundMask;
    lander_->CreateFixture(&fixture);
    const double force_x = rng.uniform(-kInitialRandom, kInitialRandom);
    const double force_y = rng.uniform(-kInitialRandom, kInitialRandom);
    lander_->ApplyForceToCenter(b2Vec2(static_cast<float>(force_x), static_cast<float>(force_y)),
                                true);

    for (int i : {-1, +1}) {
      b2BodyDef leg_body;
      leg_body.type = b2_dynamicBody;
      leg_body.position.Set(static_cast<float>(centre_x - i * kLegAway / kScale), initial_y);
      leg_body.angle = static_cast<float>(i * 0.05);
      b2Body* leg = world_.CreateBody(&leg_body);
      b2PolygonShape box;
      box.SetAsBox(static_cast<float>(kLegW / kScale), static_cast<float>(kLegH / kScale));
      b2FixtureDef leg_fixture;
      leg_fixture.shape = &box;
      leg_fixture.density = 1.0f;
      leg_fixture.restitution = 0.0f;
      leg_fixture.filter.categoryBits = kLegCategory;
      leg_fixture.filter.maskBits = kGroundMask;
      leg->CreateFixture(&leg_fixture);

      b2RevoluteJointDef joint;
      joint.bodyA = lander_;
      joint.bodyB = leg;
      joint.localAnchorA.Set(0.0f, 0.0f);
      joint.localAnchorB.Set(static_cast<float>(i * kLegAway / kScale),
                             static_cast<float>(kLegDown / kScale));
      joint.enableMotor = true;
      joint.enableLimit = true;
      joint.maxMotorTorque = static_cast<float>(kLegSpringTorque);
      joint.motorSpeed = static_cast<float>(0.3 * i);
      joint.lowerAngle = static_cast<float>(i == -1 ? 0.9 - 0.5 : -0.9);
      joint.upperAngle = static_cast<float>(i == -1 ? 0.9 : -0.9 + 0.5);
      world_.CreateJoint(&joint);
      legs_[i == -1 ? 0 : 1] = leg;
    }
  }

  // Watches the lander, and its legs as feet; declared before world_, which calls it, to outlive
  // it.
  GroundContacts contacts_;
  b2World world_;
  b2Body* lander_ = nullptr;
  std::array<b2Body*, 2> legs_{};
  int wind_index_ = 0;
  int torque_index_ = 0;
  LunarLanderScene scene_;  // the terrain and helipad, for render(); the lander is added there
};

LunarLander::LunarLander(const LunarLanderOptions& options)
    : options_(options), replay_(spec().id, 2) {}
LunarLander::~LunarLander() = default;

const EnvSpec& LunarLander::spec() const {
  static const EnvSpec discrete = make_spec(false);
  static const EnvSpec continuous = make_spec(true);
  return options_.continuous ? continuous : discrete;
}

void LunarLander::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(*seed);
  replay_.start(rng_.state());
  start_episode(observation.floats());
}

void LunarLander::start_episode(float* observation) {
  world_ = std::make_unique<World>(options_, rng_);
  previous_shaping_.reset();
  phase_.start();
  // Gymnasium's reset() returns the observation after one step of doing nothing.
  const std::array<float, 2> nothing = {0.0f, 0.0f};
  advance(nothing.data(), observation);
}

StepResult LunarLander::step(const ActionRef& action, core::TypedPtr observation) {
  phase_.check_can_step(*this);
  check_action(spec(), action);
  std::array<float, 2> recorded = {0.0f, 0.0f};
  if (options_.continuous) {
    recorded = {action.values[0], action.values[1]};
  } else {
    recorded[0] = static_cast<float>(action.index);
  }
  replay_.record(recorded.data());
  const StepResult result = advance(recorded.data(), observation.floats());
  phase_.finish_step(result.terminated);
  return result;
}

StepResult LunarLander::advance(const float* action, float* observation) {
  if (options_.enable_wind) world_->blow(options_);

  double main_power = 0.0;
  double side_power = 0.0;
  double direction = 0.0;
  if (options_.continuous) {
    const double main = std::clamp(action[0], -1.0f, 1.0f);
    const double lateral = std::clamp(action[1], -1.0f, 1.0f);
    if (main > 0.0) main_power = (main + 1.0) * 0.5;  // 50% to 100%
    if (std::abs(lateral) > 0.5) {
      direction = lateral > 0.0 ? 1.0 : -1.0;
      side_power = std::clamp(std::abs(lateral), 0.5, 1.0);
    }
  } else {
    const int index = static_cast<int>(action[0]);
    if (index == 2) main_power = 1.0;
    if (index == 1 || index == 3) {
      direction = index - 2;
      side_power = 1.0;
    }
  }
  const std::array<double, 2> dispersion = {rng_.uniform(-1.0, 1.0) / kScale,
                                            rng_.uniform(-1.0, 1.0) / kScale};
  world_->fire(main_power, direction, side_power, dispersion);
  world_->step();

  const std::array<double, 8> state = world_->state();
  for (int i = 0; i < 8; ++i) observation[i] = static_cast<float>(state[i]);

  const double shaping = -100 * std::sqrt(state[0] * state[0] + state[1] * state[1]) -
                         100 * std::sqrt(state[2] * state[2] + state[3] * state[3]) -
                         100 * std::abs(state[4]) + 10 * state[6] + 10 * state[7];
  double reward = previous_shaping_ ? shaping - *previous_shaping_ : 0.0;
  previous_shaping_ = shaping;
  reward -= main_power * 0.30;
  reward -= side_power * 0.03;

  StepResult result{reward, false, false};
  if (world_->crashed() || std::abs(state[0]) >= 1.0) {
    result = {-100.0, true, false};
  } else if (!world_->lander_awake()) {
    result = {100.0, true, false};
  }
  return result;
}

void LunarLander::save_state(core::StateWriter& out) const { replay_.save(out, rng_, phase_); }

void LunarLander::load_state(core::StateReader& in) {
  std::array<float, 8> observation;
  replay_.load(in, rng_, phase_,
               {[this](const float* action) {
                  if (options_.continuous) return !std::isnan(action[0]) && !std::isnan(action[1]);
                  return (action[0] == 0 || action[0] == 1 || action[0] == 2 || action[0] == 3) &&
                         action[1] == 0;
                },
                [&] { start_episode(observation.data()); },
                [&](const float* action) { return advance(action, observation.data()); },
                [this] { world_.reset(); }});
}

bool LunarLander::render(RgbImage& image) const {
  if (!world_) return false;
  render_lunar_lander(world_->scene(), image);
  return true;
}

bool LunarLander::lander_awake() const { return world_ && world_->lander_awake(); }
std::array<double, 3> LunarLander::momentum() const {
  return world_ ? world_->momentum() : std::array<double, 3>{};
}

namespace {
std::unique_ptr<Env> make_lander(const core::Kwargs& kwargs, bool continuous) {
  return std::make_unique<LunarLander>(LunarLanderOptions::from(kwargs, continuous));
}
const bool registered = [] {
  Registry::global().add("LunarLander-v2", EnvFactory([](const core::Kwargs& kwargs) {
                           return make_lander(kwargs, false);
                         }));
  Registry::global().add("LunarLanderContinuous-v2", EnvFactory([](const core::Kwargs& kwargs) {
                           return make_lander(kwargs, true);
                         }));
  // rl-zoo's partially observed landers: x and y velocity and the angular velocity masked.
  for (const bool continuous : {false, true}) {
    add_no_velocity_env(Registry::global(),
                        continuous ? "LunarLanderContinuous-v2" : "LunarLander-v2",
                        EnvFactory([continuous](const core::Kwargs& kwargs) {
                          return make_lander(kwargs, continuous);
                        }),
                        {2, 3, 5});
  }
  return true;
}();
}  // namespace

}  // namespace mnrl::envs
