// The TPE sampler draws where the best trials were, once it has seen enough of them.
#include "experiments/studies/tpe_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace {
using namespace mnrl::experiments;

Parameter parameter(Parameter::Kind kind, double low, double high) {
  Parameter p;
  p.key = "p";
  p.kind = kind;
  p.low = low;
  p.high = high;
  p.log = kind == Parameter::Kind::kLogUniform;
  if (kind == Parameter::Kind::kCategorical) p.choices = {"a", "b", "c"};
  return p;
}

// 40 trials of `p` drawn at random and scored by `score`, then 200 TPE draws after them: their
// numbers, sorted.
std::vector<double> draws_after_trials(const Parameter& p,
                                       const std::function<double(double)>& score) {
  std::mt19937_64 random(3);
  std::vector<TrialRecord> trials;
  for (int i = 0; i < 40; ++i) {
    TrialRecord t;
    t.number = i;
    t.state = "complete";
    t.numbers["p"] = draw(p, random).number;
    t.value = score(t.numbers["p"]);
    trials.push_back(t);
  }
  std::vector<double> numbers;
  for (int i = 0; i < 200; ++i) {
    const double number = tpe_draw({p}, trials, TpeOptions{}, random)[0].number;
    EXPECT_GE(number, p.kind == Parameter::Kind::kCategorical ? 0 : p.low);
    EXPECT_LE(number, p.kind == Parameter::Kind::kCategorical ? 2 : p.high);
    numbers.push_back(number);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

TEST(TpeSamplerTest, DrawsNearTheBestTrialsAfterTheStartupTrials) {
  // Uniform draws would have medians 0.5, 10^-3 and 10, and pick "b" a third of the time.
  const auto x = draws_after_trials(parameter(Parameter::Kind::kUniform, 0, 1),
                                    [](double v) { return -std::abs(v - 0.8); });
  EXPECT_NEAR(x[100], 0.8, 0.1);
  const auto lr = draws_after_trials(parameter(Parameter::Kind::kLogUniform, 1e-5, 1e-1),
                                     [](double v) { return -std::abs(std::log10(v) + 4.5); });
  EXPECT_NEAR(std::log10(lr[100]), -4.5, 0.5);
  const auto epochs = draws_after_trials(parameter(Parameter::Kind::kInt, 1, 20),
                                         [](double v) { return -std::abs(v - 17); });
  EXPECT_NEAR(epochs[100], 17, 2);
  EXPECT_EQ(epochs[100], std::round(epochs[100]));
  const auto choice = draws_after_trials(parameter(Parameter::Kind::kCategorical, 0, 0),
                                         [](double v) { return v == 1 ? 1.0 : 0.0; });
  EXPECT_GT(std::count(choice.begin(), choice.end(), 1.0), 140);
}

TEST(TpeSamplerTest, DrawsAtRandomBeforeItsStartupTrials) {
  const Parameter p = parameter(Parameter::Kind::kUniform, 0, 1);
  std::vector<TrialRecord> trials(9);
  for (int i = 0; i < 9; ++i) {
    trials[i].number = i;
    trials[i].state = "complete";
    trials[i].value = i;
    trials[i].numbers["p"] = 0.1 * i;
  }
  std::mt19937_64 a(5), same(5);
  EXPECT_EQ(tpe_draw({p}, trials, TpeOptions{}, a)[0].text, draw(p, same).text);
}

}  // namespace
