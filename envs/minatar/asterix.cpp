#include "envs/minatar/asterix.h"

#include <algorithm>

namespace mnrl::envs::minatar {
namespace {

// In the order of channel_names().
enum Channel : int { kPlayer, kEnemy, kTrail, kGold };

constexpr int kLastCell = kGridSize - 1;
constexpr int kTopRow = 1;
constexpr int kBottomRow = 8;
constexpr int kPlayerStart = 5;
constexpr int kInitialSpawnInterval = 10;
constexpr int kInitialMoveInterval = 5;
constexpr int kRampInterval = 100;
constexpr double kGoldProbability = 1.0 / 3.0;

}  // namespace

const std::vector<std::string>& Asterix::channel_names() const {
  static const std::vector<std::string> names = {"player", "enemy", "trail", "gold"};
  return names;
}

const std::vector<Action>& Asterix::minimal_actions() const {
  static const std::vector<Action> actions = {Action::noop, Action::left, Action::up, Action::right,
                                              Action::down};
  return actions;
}

void Asterix::reset(core::Rng& /*rng*/) {
  objects_.fill(Object{});
  player_x_ = kPlayerStart;
  player_y_ = kPlayerStart;
  spawn_interval_ = kInitialSpawnInterval;
  spawn_timer_ = spawn_interval_;
  move_interval_ = kInitialMoveInterval;
  move_timer_ = move_interval_;
  ramp_timer_ = kRampInterval;
  ramp_count_ = 0;
  terminal_ = false;
}

double Asterix::step(Action action, core::Rng& rng) {
  if (spawn_timer_ == 0) {
    spawn(rng);
    spawn_timer_ = spawn_interval_;
  }

  if (action == Action::left) player_x_ = std::max(0, player_x_ - 1);
  if (action == Action::right) player_x_ = std::min(kLastCell, player_x_ + 1);
  if (action == Action::up) player_y_ = std::max(kTopRow, player_y_ - 1);
  if (action == Action::down) player_y_ = std::min(kBottomRow, player_y_ + 1);

  // The player may have stepped onto an object, or an object spawned onto the player. The frame
  // goes on after an enemy is touched: gold touched later in it still counts.
  double reward = 0.0;
  for (int slot = 0; slot < kNumSlots; ++slot) reward += touch(objects_[slot], slot + 1);
  if (move_timer_ == 0) {
    move_timer_ = move_interval_;
    for (int slot = 0; slot < kNumSlots; ++slot) {
      Object& object = objects_[slot];
      if (!object.present) continue;
      object.x += object.moves_right ? 1 : -1;
      if (object.x < 0 || object.x > kLastCell) {
        object.present = false;
      } else {
        reward += touch(object, slot + 1);
      }
    }
  }
  --spawn_timer_;
  --move_timer_;

  // The ramp stops once both intervals are down to 1.
  if (difficulty_ramping_ && (spawn_interval_ > 1 || move_interval_ > 1)) {
    if (ramp_timer_ >= 0) {
      --ramp_timer_;
    } else {
      if (move_interval_ > 1 && ramp_count_ % 2 == 1) --move_interval_;
      if (spawn_interval_ > 1) --spawn_interval_;
      ++ramp_count_;
      ramp_timer_ = kRampInterval;
    }
  }
  return reward;
}

void Asterix::draw(const Grid& grid) const {
  grid.set(kPlayer, player_y_, player_x_);
  for (int slot = 0; slot < kNumSlots; ++slot) {
    const Object& object = objects_[slot];
    if (!object.present) continue;
    grid.set(object.gold ? kGold : kEnemy, slot + 1, object.x);
    const int behind_x = object.x + (object.moves_right ? -1 : 1);
    if (behind_x >= 0 && behind_x <= kLastCell) grid.set(kTrail, slot + 1, behind_x);
  }
}

void Asterix::spawn(core::Rng& rng) {
  // Both draws happen even when no slot is free, as in MinAtar.
  const bool from_left = rng.uniform() < 0.5;
  const bool gold = rng.uniform() < kGoldProbability;
  std::array<int, kNumSlots> free_slots{};
  int num_free = 0;
  for (int slot = 0; slot < kNumSlots; ++slot) {
    if (!objects_[slot].present) free_slots[num_free++] = slot;
  }
  if (num_free == 0) return;
  Object& object = objects_[free_slots[rng.below(num_free)]];
  object.present = true;
  object.gold = gold;
  object.moves_right = from_left;
  object.x = from_left ? 0 : kLastCell;
}

double Asterix::touch(Object& object, int row) {
  if (!object.present || object.x != player_x_ || row != player_y_) return 0.0;
  if (!object.gold) {
    terminal_ = true;
    return 0.0;
  }
  object.present = false;
  return 1.0;
}

}  // namespace mnrl::envs::minatar
