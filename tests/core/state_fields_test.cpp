#include "core/state_fields.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/error_of.h"

namespace mnrl::core {
namespace {

// A component with hand-written save_state/load_state, held through a pointer.
struct Counter {
  std::int64_t value = 0;
  void save_state(StateWriter& out) const { out.value(value); }
  void load_state(StateReader& in) { in.value(value); }
};

struct Position {
  int x = 0, y = 0;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields(x, y);
  }
};

class Game {
 public:
  explicit Game(bool hard) : hard_(hard) {}

  bool hard_;
  Rng rng_{7};
  Position player_;
  std::array<float, 3> weights_{};
  std::vector<double> scores_ = std::vector<double>(2);
  std::vector<Position> enemies_;
  std::unique_ptr<Counter> counter_ = std::make_unique<Counter>();

 private:
  friend struct mnrl::core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("game");
    fields(must_match(hard_, "difficulty"), rng_, player_, weights_, scores_,
           resizable(enemies_), counter_);
  }
};

std::string saved(const Game& game) {
  StateWriter out;
  save_fields(out, game);
  return out.bytes();
}

std::string load_error(const std::string& bytes, Game& game) {
  StateReader in(bytes, "game.state");
  return test_util::error_of<StateError>([&] { load_fields(in, game); });
}

TEST(StateFieldsTest, ReadsBackWhatItWroteInTheListedOrder) {
  Game game(true);
  game.rng_.uniform(0.0, 1.0);
  game.player_ = {3, 4};
  game.weights_ = {1.5f, -2.0f, 0.25f};
  game.scores_ = {10, 20};
  game.enemies_ = {{1, 2}, {5, 6}, {8, 9}};
  game.counter_->value = 42;
  const std::string bytes = saved(game);

  Game loaded(true);
  StateReader in(bytes, "game.state");
  load_fields(in, loaded);
  in.expect_end();
  EXPECT_EQ(loaded.rng_.state(), game.rng_.state());
  EXPECT_EQ(loaded.player_.x, 3);
  EXPECT_EQ(loaded.player_.y, 4);
  EXPECT_EQ(loaded.weights_, game.weights_);
  EXPECT_EQ(loaded.scores_, game.scores_);
  ASSERT_EQ(loaded.enemies_.size(), 3u);
  EXPECT_EQ(loaded.enemies_[2].y, 9);
  EXPECT_EQ(loaded.counter_->value, 42);
  EXPECT_EQ(saved(loaded), bytes);

  // The layout is the stream's own, field by field: what hand-written save_state() wrote.
  StateWriter by_hand;
  by_hand.tag("game");
  by_hand.value(true);
  by_hand.values(game.rng_.state());
  by_hand.value(3);
  by_hand.value(4);
  by_hand.values(game.weights_);
  by_hand.values(game.scores_);
  by_hand.value(std::uint64_t{3});
  by_hand.values(game.enemies_);
  by_hand.value(std::int64_t{42});
  EXPECT_EQ(by_hand.bytes(), bytes);
}

TEST(StateFieldsTest, RefusesAnotherSettingSizeOrTagNamingIt) {
  const std::string hard = saved(Game(true));
  Game easy(false);
  EXPECT_NE(load_error(hard, easy).find("difficulty is on in the saved state and off here"),
            std::string::npos)
      << load_error(hard, easy);

  Game wider(true);
  wider.scores_.resize(3);
  EXPECT_NE(load_error(hard, wider).find("expected 3 values, found 2"), std::string::npos)
      << load_error(hard, wider);

  StateWriter other;
  other.tag("breakout");
  Game game(true);
  EXPECT_NE(load_error(other.bytes(), game).find("game.state"), std::string::npos);
  EXPECT_NE(load_error(other.bytes(), game).find("breakout"), std::string::npos)
      << load_error(other.bytes(), game);
}

TEST(StateFieldsTest, RefusesAListLongerThanTheStateBeforeAllocatingIt) {
  StateWriter out;
  out.tag("game");
  out.value(true);
  out.values(Rng(1).state());
  out.value(0);
  out.value(0);
  out.values(std::array<float, 3>{});
  out.values(std::vector<double>(2));
  out.value(std::uint64_t{1} << 60);  // enemies: far more than the bytes left
  Game game(true);
  EXPECT_NE(load_error(out.bytes(), game).find("a list of 1152921504606846976 items longer than "
                                               "the state"),
            std::string::npos)
      << load_error(out.bytes(), game);
}

}  // namespace
}  // namespace mnrl::core
