#include "core/text.h"

#include <gtest/gtest.h>

namespace mnrl::core {
namespace {

TEST(TextTest, EditDistanceCountsSingleCharacterEdits) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("gamma", "gamma"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("gama", "gamma"), 1u);   // insertion
  EXPECT_EQ(edit_distance("gammma", "gamma"), 1u); // deletion
  EXPECT_EQ(edit_distance("tahn", "tanh"), 2u);    // transposition = two substitutions
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("sitting", "kitten"), 3u);
}

TEST(TextTest, ClosestMatchPicksThePlausibleTypo) {
  const std::vector<std::string> keys{"gamma", "gae_lambda", "n_steps", "learning_rate"};
  EXPECT_EQ(closest_match("gama", keys), "gamma");
  EXPECT_EQ(closest_match("n_step", keys), "n_steps");
  EXPECT_EQ(closest_match("learnig_rate", keys), "learning_rate");
  EXPECT_EQ(closest_match("batch_size", keys), "");
  EXPECT_EQ(closest_match("gama", {}), "");
}

TEST(TextTest, ClosestMatchToleratesMoreEditsInLongerWords) {
  // Up to a third of the word's length, and never fewer than 2.
  EXPECT_EQ(closest_match("ab", {"xy"}), "xy");
  EXPECT_EQ(closest_match("abc", {"xyz"}), "");
  EXPECT_EQ(closest_match("normalize_obs", {"normalise_ob"}), "normalise_ob");
}

TEST(TextTest, ClosestMatchPrefersTheFirstOfEquallyCloseCandidates) {
  EXPECT_EQ(closest_match("lr1", {"lr2", "lr3"}), "lr2");
}

TEST(TextTest, DidYouMeanFormatsTheHint) {
  EXPECT_EQ(did_you_mean("tahn", {"tanh", "relu"}), " (did you mean 'tanh'?)");
  EXPECT_EQ(did_you_mean("sigmoid", {"tanh", "relu"}), "");
}

TEST(TextTest, ElidedNamesLongTextInsteadOfPrintingIt) {
  EXPECT_EQ(elided("short"), "short");
  EXPECT_EQ(elided(std::string(80, 'x')), std::string(80, 'x'));
  EXPECT_EQ(elided(std::string(900000, 'x')), std::string(80, 'x') + "… (900000 bytes)");
  // Cut before a character that would be split: "é" is two bytes, the 80th and 81st.
  EXPECT_EQ(elided(std::string(79, 'x') + "é" + "yy"), std::string(79, 'x') + "… (83 bytes)");
}

TEST(TextTest, JoinSeparatesItems) {
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(join({"a"}), "a");
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({"a", "b"}, " | "), "a | b");
}

TEST(TextTest, ListedJoinsTheLastItemWithTheConjunction) {
  EXPECT_EQ(listed({}, "and"), "");
  EXPECT_EQ(listed({"a"}, "and"), "a");
  EXPECT_EQ(listed({"a", "b"}, "or"), "a or b");
  EXPECT_EQ(listed({"a", "b", "c"}, "and"), "a, b and c");
}

}  // namespace
}  // namespace mnrl::core
