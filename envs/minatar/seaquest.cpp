#include "envs/minatar/seaquest.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mnrl::envs::minatar {
namespace {

// MinAtar's constants (minatar/environments/seaquest.py).
constexpr int kShotCooldown = 5;        // frames between two player shots
constexpr int kEnemyShotInterval = 10;  // an enemy sub fires every 11th frame
constexpr int kDiverMoveInterval = 5;   // a diver moves every 6th frame
constexpr int kMinEnemySpawnInterval = 1;
constexpr int kMinEnemyMoveInterval = 2;
constexpr int kLowestSubRow = kGridSize - 2;  // the bottom row holds the gauges
constexpr int kGaugeRow = kGridSize - 1;

enum Channel : int {
  kSubFront,
  kSubBack,
  kFriendlyBullet,
  kTrail,
  kEnemyBullet,
  kEnemyFish,
  kEnemySub,
  kOxygenGauge,
  kDiverGauge,
  kDiver,
};

bool off_grid(int x) { return x < 0 || x >= kGridSize; }

template <class Object>
typename std::vector<Object>::iterator find_at(std::vector<Object>& objects, int x, int y) {
  return std::find_if(objects.begin(), objects.end(),
                      [x, y](const Object& object) { return object.x == x && object.y == y; });
}

template <class Object>
void erase_at(std::vector<Object>& objects, std::size_t index) {
  objects.erase(objects.begin() + static_cast<std::ptrdiff_t>(index));
}

// Swimmers show where they came from: the trail channel marks the cell behind each one.
void draw_swimmers(const Grid& grid, const std::vector<Seaquest::Swimmer>& swimmers,
                   Channel channel) {
  for (const Seaquest::Swimmer& swimmer : swimmers) {
    grid.set(channel, swimmer.y, swimmer.x);
    const int behind = swimmer.x - swimmer.dx;
    if (!off_grid(behind)) grid.set(kTrail, swimmer.y, behind);
  }
}

}  // namespace

const std::vector<std::string>& Seaquest::channel_names() const {
  // MinAtar's names, its spelling of "gauge" included.
  static const std::vector<std::string> names = {
      "sub_front",  "sub_back",  "friendly_bullet", "trail",       "enemy_bullet",
      "enemy_fish", "enemy_sub", "oxygen_guage",    "diver_guage", "diver"};
  return names;
}

const std::vector<Action>& Seaquest::minimal_actions() const {
  static const std::vector<Action> actions = {Action::noop,  Action::left, Action::up,
                                              Action::right, Action::down, Action::fire};
  return actions;
}

void Seaquest::reset(core::Rng& /*rng*/) { state_ = State{}; }

double Seaquest::step(Action action, core::Rng& rng) {
  State& s = state_;
  if (s.enemy_spawn_timer == 0) {
    spawn_enemy(rng);
    s.enemy_spawn_timer = s.enemy_spawn_interval;
  }
  if (s.diver_spawn_timer == 0) {
    spawn_diver(rng);
    s.diver_spawn_timer = kDiverSpawnInterval;
  }
  apply_action(action);
  // MinAtar's order, which decides who meets whom: the player's bullets, divers, enemy subs
  // (which fire), enemy bullets, fish.
  int reward = advance_friendly_bullets();
  advance_divers();
  reward += advance_enemy_subs();
  advance_enemy_bullets();
  reward += advance_fish();

  if (s.enemy_spawn_timer > 0) --s.enemy_spawn_timer;
  if (s.diver_spawn_timer > 0) --s.diver_spawn_timer;
  if (s.shot_timer > 0) --s.shot_timer;
  reward += breathe();
  return reward;
}

void Seaquest::spawn_enemy(core::Rng& rng) {
  State& s = state_;
  const int dx = rng.uniform() < 0.5 ? 1 : -1;
  const bool is_sub = rng.uniform() < 1.0 / 3.0;
  const int y = 1 + static_cast<int>(rng.below(kLowestSubRow));
  // No spawn into a row where an enemy swims the other way: they would pass through each other.
  const auto swims_against = [dx, y](const Swimmer& enemy) {
    return enemy.y == y && enemy.dx != dx;
  };
  if (std::any_of(s.fish.begin(), s.fish.end(), swims_against) ||
      std::any_of(s.enemy_subs.begin(), s.enemy_subs.end(), swims_against)) {
    return;
  }
  const Swimmer enemy{dx > 0 ? 0 : kGridSize - 1, y, dx, s.enemy_move_interval, kEnemyShotInterval};
  (is_sub ? s.enemy_subs : s.fish).push_back(enemy);
}

void Seaquest::spawn_diver(core::Rng& rng) {
  const int dx = rng.uniform() < 0.5 ? 1 : -1;
  const int y = 1 + static_cast<int>(rng.below(kLowestSubRow));
  state_.divers.push_back({dx > 0 ? 0 : kGridSize - 1, y, dx, kDiverMoveInterval, 0});
}

void Seaquest::apply_action(Action action) {
  State& s = state_;
  switch (action) {
    case Action::fire:
      if (s.shot_timer == 0) {
        s.friendly_bullets.push_back({s.sub_x, s.sub_y, s.sub_dx});
        s.shot_timer = kShotCooldown;
      }
      break;
    case Action::left:
      s.sub_x = std::max(0, s.sub_x - 1);
      s.sub_dx = -1;
      break;
    case Action::right:
      s.sub_x = std::min(kGridSize - 1, s.sub_x + 1);
      s.sub_dx = 1;
      break;
    case Action::up:
      s.sub_y = std::max(0, s.sub_y - 1);
      break;
    case Action::down:
      s.sub_y = std::min(kLowestSubRow, s.sub_y + 1);
      break;
    case Action::noop:
      break;
  }
}

// Lists are walked from the back, as MinAtar does, so erasing the current object is safe.

int Seaquest::advance_friendly_bullets() {
  State& s = state_;
  int reward = 0;
  for (std::size_t i = s.friendly_bullets.size(); i-- > 0;) {
    Bullet& bullet = s.friendly_bullets[i];
    bullet.x += bullet.dx;
    if (off_grid(bullet.x)) {
      erase_at(s.friendly_bullets, i);
      continue;
    }
    // A fish is hit before a sub in the same cell.
    if (const auto fish = find_at(s.fish, bullet.x, bullet.y); fish != s.fish.end()) {
      s.fish.erase(fish);
    } else if (const auto sub = find_at(s.enemy_subs, bullet.x, bullet.y);
               sub != s.enemy_subs.end()) {
      s.enemy_subs.erase(sub);
    } else {
      continue;
    }
    erase_at(s.friendly_bullets, i);
    ++reward;
  }
  return reward;
}

void Seaquest::advance_divers() {
  State& s = state_;
  // A diver in the sub's cell, before or after its move, is picked up while there is room.
  for (std::size_t i = s.divers.size(); i-- > 0;) {
    Swimmer& diver = s.divers[i];
    if (!can_rescue(diver)) {
      if (diver.move_timer > 0) {
        --diver.move_timer;
        continue;
      }
      diver.move_timer = kDiverMoveInterval;
      diver.x += diver.dx;
      if (off_grid(diver.x)) {
        erase_at(s.divers, i);
        continue;
      }
      if (!can_rescue(diver)) continue;
    }
    ++s.divers_aboard;
    erase_at(s.divers, i);
  }
}

Seaquest::Fate Seaquest::advance_enemy(Swimmer& enemy) {
  State& s = state_;
  if (at_sub(enemy.x, enemy.y)) s.terminal = true;
  if (enemy.move_timer > 0) {
    --enemy.move_timer;
    return Fate::stays;
  }
  enemy.move_timer = s.enemy_move_interval;
  enemy.x += enemy.dx;
  if (off_grid(enemy.x)) return Fate::left_screen;
  if (at_sub(enemy.x, enemy.y)) {
    s.terminal = true;
    return Fate::stays;
  }
  const auto bullet = find_at(s.friendly_bullets, enemy.x, enemy.y);
  if (bullet == s.friendly_bullets.end()) return Fate::stays;
  s.friendly_bullets.erase(bullet);
  return Fate::shot;
}

int Seaquest::advance_enemy_subs() {
  State& s = state_;
  int reward = 0;
  for (std::size_t i = s.enemy_subs.size(); i-- > 0;) {
    Swimmer& sub = s.enemy_subs[i];
    const Fate fate = advance_enemy(sub);
    // As in MinAtar, a sub that swam into a bullet this frame still fires its last shot.
    if (fate != Fate::left_screen) {
      if (sub.shot_timer > 0) {
        --sub.shot_timer;
      } else {
        sub.shot_timer = kEnemyShotInterval;
        s.enemy_bullets.push_back({sub.x, sub.y, sub.dx});
      }
    }
    if (fate == Fate::shot) ++reward;
    if (fate != Fate::stays) erase_at(s.enemy_subs, i);
  }
  return reward;
}

void Seaquest::advance_enemy_bullets() {
  State& s = state_;
  for (std::size_t i = s.enemy_bullets.size(); i-- > 0;) {
    Bullet& bullet = s.enemy_bullets[i];
    if (at_sub(bullet.x, bullet.y)) s.terminal = true;
    bullet.x += bullet.dx;
    if (off_grid(bullet.x)) {
      erase_at(s.enemy_bullets, i);
    } else if (at_sub(bullet.x, bullet.y)) {
      s.terminal = true;
    }
  }
}

int Seaquest::advance_fish() {
  State& s = state_;
  int reward = 0;
  for (std::size_t i = s.fish.size(); i-- > 0;) {
    const Fate fate = advance_enemy(s.fish[i]);
    if (fate == Fate::shot) ++reward;
    if (fate != Fate::stays) erase_at(s.fish, i);
  }
  return reward;
}

int Seaquest::breathe() {
  State& s = state_;
  // Checked before this frame's breath, so the game ends on the frame after oxygen hits 0.
  if (s.oxygen <= 0) s.terminal = true;
  if (s.sub_y > 0) {
    --s.oxygen;
    s.surfaced = false;
    return 0;
  }
  if (s.surfaced) return 0;
  if (s.divers_aboard == 0) {
    s.terminal = true;
    return 0;
  }
  return surface();
}

int Seaquest::surface() {
  State& s = state_;
  s.surfaced = true;
  int reward = 0;
  if (s.divers_aboard == kMaxDivers) {
    reward = s.oxygen * 10 / kMaxOxygen;  // the oxygen gauge's cells
    s.divers_aboard = 0;
  }
  s.oxygen = kMaxOxygen;
  --s.divers_aboard;
  const bool can_ramp = s.enemy_spawn_interval > kMinEnemySpawnInterval ||
                        s.enemy_move_interval > kMinEnemyMoveInterval;
  if (difficulty_ramping_ && can_ramp) {
    // Movement speeds up on every second ramp, spawning on every one.
    if (s.enemy_move_interval > kMinEnemyMoveInterval && s.ramp_index % 2 == 1) {
      --s.enemy_move_interval;
    }
    if (s.enemy_spawn_interval > kMinEnemySpawnInterval) --s.enemy_spawn_interval;
    ++s.ramp_index;
  }
  return reward;
}

void Seaquest::draw(const Grid& grid) const {
  const State& s = state_;
  grid.set(kSubFront, s.sub_y, s.sub_x);
  // Turning always moves the sub a cell away from the wall, so its back is on the grid.
  grid.set(kSubBack, s.sub_y, s.sub_x - s.sub_dx);
  const int oxygen_cells = std::max(0, s.oxygen) * 10 / kMaxOxygen;
  for (int x = 0; x < oxygen_cells; ++x) grid.set(kOxygenGauge, kGaugeRow, x);
  // The diver gauge fills leftwards from column 8; below 0 divers (see State) it is empty.
  for (int x = kGridSize - 1 - s.divers_aboard; x < kGridSize - 1; ++x) {
    grid.set(kDiverGauge, kGaugeRow, x);
  }
  for (const Bullet& bullet : s.friendly_bullets) grid.set(kFriendlyBullet, bullet.y, bullet.x);
  for (const Bullet& bullet : s.enemy_bullets) grid.set(kEnemyBullet, bullet.y, bullet.x);
  draw_swimmers(grid, s.fish, kEnemyFish);
  draw_swimmers(grid, s.enemy_subs, kEnemySub);
  draw_swimmers(grid, s.divers, kDiver);
}

}  // namespace mnrl::envs::minatar
