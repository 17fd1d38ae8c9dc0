#include "envs/minatar/space_invaders.h"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

namespace mnrl::envs::minatar {
namespace {

// MinAtar's constants (minatar/environments/space_invaders.py).
constexpr int kShotCooldown = 5;  // frames between two player shots
constexpr int kBottomRow = kGridSize - 1;
constexpr std::uint16_t kLeftWall = 1u << 0;
constexpr std::uint16_t kRightWall = 1u << (kGridSize - 1);

enum Channel : int {
  kCannon,
  kAlien,
  kAlienLeft,
  kAlienRight,
  kFriendlyBullet,
  kEnemyBullet,
};

// The columns holding at least one object.
std::uint16_t occupied_columns(const SpaceInvaders::Rows& rows) {
  std::uint16_t columns = 0;
  for (const std::uint16_t row : rows) columns |= row;
  return columns;
}

int count_cells(const SpaceInvaders::Rows& rows) {
  int count = 0;
  for (const std::uint16_t row : rows) count += static_cast<int>(std::bitset<16>(row).count());
  return count;
}

void draw_rows(const Grid& grid, const SpaceInvaders::Rows& rows, int channel) {
  for (int y = 0; y < kGridSize; ++y) {
    for (int x = 0; x < kGridSize; ++x) {
      if (rows[y] >> x & 1u) grid.set(channel, y, x);
    }
  }
}

}  // namespace

const std::vector<std::string>& SpaceInvaders::channel_names() const {
  static const std::vector<std::string> names = {"cannon",      "alien",           "alien_left",
                                                 "alien_right", "friendly_bullet", "enemy_bullet"};
  return names;
}

const std::vector<Action>& SpaceInvaders::minimal_actions() const {
  static const std::vector<Action> actions = {Action::noop, Action::left, Action::right,
                                              Action::fire};
  return actions;
}

void SpaceInvaders::reset(core::Rng& /*rng*/) { state_ = State{}; }

double SpaceInvaders::step(Action action, core::Rng& /*rng*/) {
  State& s = state_;
  apply_action(action);
  advance_bullets();
  advance_aliens();
  if (s.alien_shot_timer == 0) {
    alien_fires();
    s.alien_shot_timer = kAlienShotInterval;
  }
  // Hits count only where a bullet and an alien share a cell after both moved: a bullet flying
  // up and an alien stepping down into each other's cells miss, as in MinAtar.
  const int reward = shoot_aliens();

  if (s.shot_timer > 0) --s.shot_timer;
  --s.alien_move_timer;
  --s.alien_shot_timer;
  replace_cleared_wave();
  return reward;
}

void SpaceInvaders::apply_action(Action action) {
  State& s = state_;
  if (action == Action::fire) {
    if (s.shot_timer == 0) {
      s.friendly_bullets[kBottomRow] |= cannon_bit();
      s.shot_timer = kShotCooldown;
    }
  } else if (action == Action::left) {
    s.cannon_x = std::max(0, s.cannon_x - 1);
  } else if (action == Action::right) {
    s.cannon_x = std::min(kGridSize - 1, s.cannon_x + 1);
  }
}

void SpaceInvaders::advance_bullets() {
  State& s = state_;
  // Friendly bullets fly up and enemy bullets down, one row a frame, leaving at the edge.
  std::copy(s.friendly_bullets.begin() + 1, s.friendly_bullets.end(), s.friendly_bullets.begin());
  s.friendly_bullets[kBottomRow] = 0;
  std::copy_backward(s.enemy_bullets.begin(), s.enemy_bullets.end() - 1, s.enemy_bullets.end());
  s.enemy_bullets[0] = 0;
  if (s.enemy_bullets[kBottomRow] & cannon_bit()) s.terminal = true;
}

void SpaceInvaders::advance_aliens() {
  State& s = state_;
  if (s.aliens[kBottomRow] & cannon_bit()) s.terminal = true;
  if (s.alien_move_timer > 0) return;
  s.alien_move_timer = std::min(count_cells(s.aliens), s.alien_move_interval);
  const std::uint16_t columns = occupied_columns(s.aliens);
  const bool at_wall = s.alien_dx < 0 ? (columns & kLeftWall) : (columns & kRightWall);
  if (at_wall) {
    s.alien_dx = -s.alien_dx;
    if (s.aliens[kBottomRow] != 0) s.terminal = true;
    // Down one row. As in MinAtar, the bottom row wraps to the top: it is only occupied when
    // the game ends here.
    std::rotate(s.aliens.rbegin(), s.aliens.rbegin() + 1, s.aliens.rend());
  } else {
    // Not at the wall it steps towards, so no alien leaves the grid.
    for (std::uint16_t& row : s.aliens) {
      row = static_cast<std::uint16_t>(s.alien_dx < 0 ? row >> 1 : row << 1);
    }
  }
  if (s.aliens[kBottomRow] & cannon_bit()) s.terminal = true;
}

void SpaceInvaders::alien_fires() {
  State& s = state_;
  // The lowest alien of the occupied column nearest the cannon, the left one on a tie. A wave
  // is replaced as soon as it is cleared, so there is always one.
  const std::uint16_t columns = occupied_columns(s.aliens);
  for (int distance = 0; distance < kGridSize; ++distance) {
    for (const int x : {s.cannon_x - distance, s.cannon_x + distance}) {
      if (x < 0 || x >= kGridSize || !(columns >> x & 1u)) continue;
      int y = kBottomRow;
      while (!(s.aliens[y] >> x & 1u)) --y;
      s.enemy_bullets[y] |= static_cast<std::uint16_t>(1u << x);
      return;
    }
  }
}

int SpaceInvaders::shoot_aliens() {
  State& s = state_;
  int hits = 0;
  for (int y = 0; y < kGridSize; ++y) {
    const std::uint16_t hit = s.aliens[y] & s.friendly_bullets[y];
    hits += static_cast<int>(std::bitset<16>(hit).count());
    s.aliens[y] &= static_cast<std::uint16_t>(~hit);
    s.friendly_bullets[y] &= static_cast<std::uint16_t>(~hit);
  }
  return hits;
}

void SpaceInvaders::replace_cleared_wave() {
  State& s = state_;
  if (occupied_columns(s.aliens) != 0) return;
  if (difficulty_ramping_ && s.alien_move_interval > kMinAlienMoveInterval) {
    --s.alien_move_interval;
  }
  // The new wave keeps the old one's direction and step timer.
  s.aliens = kFreshWave;
}

void SpaceInvaders::draw(const Grid& grid) const {
  const State& s = state_;
  grid.set(kCannon, kBottomRow, s.cannon_x);
  draw_rows(grid, s.aliens, kAlien);
  draw_rows(grid, s.aliens, s.alien_dx < 0 ? kAlienLeft : kAlienRight);
  draw_rows(grid, s.friendly_bullets, kFriendlyBullet);
  draw_rows(grid, s.enemy_bullets, kEnemyBullet);
}

}  // namespace mnrl::envs::minatar
