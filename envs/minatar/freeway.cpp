#include "envs/minatar/freeway.h"

#include <algorithm>
#include <cstdlib>

namespace mnrl::envs::minatar {
namespace {

// In the order of channel_names(); a car of speed s leaves its trail in kSpeed1 + s - 1.
enum Channel : int { kChicken, kCar, kSpeed1 };

constexpr int kLastCell = kGridSize - 1;
constexpr int kChickenX = 4;
constexpr int kChickenMoveInterval = 3;
constexpr int kTimeLimit = 2500;
constexpr int kMaxCarSpeed = 5;

int direction_of(int velocity) { return velocity > 0 ? 1 : -1; }

}  // namespace

const std::vector<std::string>& Freeway::channel_names() const {
  static const std::vector<std::string> names = {"chicken", "car",    "speed1", "speed2",
                                                 "speed3",  "speed4", "speed5"};
  return names;
}

const std::vector<Action>& Freeway::minimal_actions() const {
  static const std::vector<Action> actions = {Action::noop, Action::up, Action::down};
  return actions;
}

void Freeway::reset(core::Rng& rng) {
  for (Car& car : cars_) car.x = 0;
  new_car_velocities(rng);
  chicken_y_ = kLastCell;
  move_cooldown_ = kChickenMoveInterval;
  time_left_ = kTimeLimit;
  terminal_ = false;
}

double Freeway::step(Action action, core::Rng& rng) {
  // A move against the bottom edge still costs the cooldown.
  if (move_cooldown_ == 0 && (action == Action::up || action == Action::down)) {
    chicken_y_ = std::clamp(chicken_y_ + (action == Action::up ? -1 : 1), 0, kLastCell);
    move_cooldown_ = kChickenMoveInterval;
  }

  double reward = 0.0;
  if (chicken_y_ == 0) {
    reward = 1.0;
    new_car_velocities(rng);
    chicken_y_ = kLastCell;
  }

  // Each car is checked against the chicken both before and after its own move.
  for (int i = 0; i < kNumCars; ++i) {
    Car& car = cars_[i];
    check_hit(i + 1, car);
    if (car.wait > 0) {
      --car.wait;
      continue;
    }
    car.wait = std::abs(car.velocity);
    car.x = (car.x + direction_of(car.velocity) + kGridSize) % kGridSize;
    check_hit(i + 1, car);
  }

  if (move_cooldown_ > 0) --move_cooldown_;
  --time_left_;
  terminal_ = time_left_ < 0;
  return reward;
}

void Freeway::draw(const Grid& grid) const {
  grid.set(kChicken, chicken_y_, kChickenX);
  for (int i = 0; i < kNumCars; ++i) {
    const Car& car = cars_[i];
    const int behind_x = (car.x - direction_of(car.velocity) + kGridSize) % kGridSize;
    grid.set(kCar, i + 1, car.x);
    grid.set(kSpeed1 + std::abs(car.velocity) - 1, i + 1, behind_x);
  }
}

void Freeway::new_car_velocities(core::Rng& rng) {
  // All speeds first, then all directions: MinAtar's order of draws.
  for (Car& car : cars_) car.velocity = 1 + static_cast<int>(rng.below(kMaxCarSpeed));
  for (Car& car : cars_) {
    if (rng.below(2) == 0) car.velocity = -car.velocity;
    car.wait = std::abs(car.velocity);
  }
}

void Freeway::check_hit(int row, const Car& car) {
  if (row == chicken_y_ && car.x == kChickenX) chicken_y_ = kLastCell;
}

}  // namespace mnrl::envs::minatar
