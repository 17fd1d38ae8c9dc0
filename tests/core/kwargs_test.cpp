#include "core/kwargs.h"

#include <gtest/gtest.h>

#include <limits>
#include <utility>

#include "core/config.h"
#include "tests/error_of.h"

namespace mnrl::core {
namespace {

// The message of the KwargError `f` throws.
template <class F>
std::string error_of(F&& f) {
  return mnrl::test_util::error_of<KwargError>(std::forward<F>(f));
}

TEST(KwargsTest, ConvertsTextToTheTypeAsked) {
  Kwargs kwargs;
  kwargs.set("size", "5");
  kwargs.set("big", "1e3");
  kwargs.set("rate", "0.25");
  kwargs.set("slippery", "yes");
  kwargs.set("mode", "left");
  kwargs.set("limit", ".inf");
  kwargs.set_list("goal", {"3", "4"});
  kwargs.set_list("weights", {"0.5", "1"});
  EXPECT_EQ(kwargs.get<int>("size"), 5);
  EXPECT_EQ(kwargs.get<std::int64_t>("big"), 1000);
  EXPECT_EQ(kwargs.get<double>("rate"), 0.25);
  EXPECT_EQ(kwargs.get<float>("rate"), 0.25f);
  EXPECT_EQ(kwargs.get<double>("size"), 5.0);  // an integer is a number
  EXPECT_TRUE(kwargs.get<bool>("slippery"));
  EXPECT_EQ(kwargs.get<std::string>("mode"), "left");
  EXPECT_EQ(kwargs.get<std::string>("size"), "5");  // any scalar is a string
  EXPECT_EQ(kwargs.get<double>("limit"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(kwargs.get<std::vector<std::int64_t>>("goal"), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(kwargs.get<std::vector<double>>("weights"), (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(kwargs.get<int>("absent", 7), 7);
}

TEST(KwargsTest, SetsNumbersAndBoolsAsTheyReadBack) {
  Kwargs kwargs;
  kwargs.set("n", 3);
  kwargs.set("x", 0.1);
  kwargs.set("on", true);
  EXPECT_EQ(kwargs.texts("n"), std::vector<std::string>{"3"});
  EXPECT_EQ(kwargs.get<double>("x"), 0.1);
  EXPECT_EQ(kwargs.get<bool>("on"), true);
}

TEST(KwargsTest, ErrorsNameTheKeyWhereItWasWritten) {
  Kwargs kwargs("env.kwargs", "grid.yaml:5:3");
  kwargs.set("size", "5.5", "grid.yaml:6:11");
  kwargs.set("flag", "maybe", "grid.yaml:7:11");
  kwargs.set_list("goal", {"3", "x"}, "grid.yaml:8:11");
  EXPECT_EQ(error_of([&] { kwargs.get<int>("size"); }),
            "grid.yaml:6:11: env.kwargs.size: expected an integer, got '5.5'");
  EXPECT_EQ(error_of([&] { kwargs.get<bool>("flag", false); }),
            "grid.yaml:7:11: env.kwargs.flag: expected true or false, got 'maybe'");
  EXPECT_EQ(error_of([&] { kwargs.get<int>("goal"); }),
            "grid.yaml:8:11: env.kwargs.goal: expected an integer, got a sequence");
  EXPECT_EQ(error_of([&] { kwargs.get<std::vector<std::int64_t>>("goal"); }),
            "grid.yaml:8:11: env.kwargs.goal: element 1: expected a sequence of integers like "
            "[3, 4], got 'x'");
  EXPECT_EQ(error_of([&] { kwargs.get<std::vector<double>>("size"); }),
            "grid.yaml:6:11: env.kwargs.size: expected a sequence of numbers like [0.5, 1], got "
            "'5.5'");
  EXPECT_EQ(error_of([&] { kwargs.get<double>("width"); }),
            "grid.yaml:5:3: env.kwargs: missing key 'width' (a number)");
}

TEST(KwargsTest, RefusesValuesOutsideTheType) {
  Kwargs kwargs;
  kwargs.set("huge", "3000000000");
  kwargs.set("nan", ".nan");
  kwargs.set("beyond_float", "1e40");
  EXPECT_EQ(kwargs.get<std::int64_t>("huge"), 3000000000);
  EXPECT_NE(error_of([&] { kwargs.get<int>("huge"); }), "");
  EXPECT_NE(error_of([&] { kwargs.get<double>("nan"); }), "");
  EXPECT_EQ(kwargs.get<double>("beyond_float"), 1e40);
  EXPECT_NE(error_of([&] { kwargs.get<float>("beyond_float"); }), "");
}

TEST(KwargsTest, TracksWhichKeysWereAskedFor) {
  Kwargs kwargs;
  kwargs.set("size", 5);
  kwargs.set("sise", 6);
  kwargs.get<int>("size");
  kwargs.get<double>("slip", 0.0);
  EXPECT_EQ(kwargs.unread_keys(), std::vector<std::string>{"sise"});
  EXPECT_EQ(kwargs.asked_keys(), (std::vector<std::string>{"size", "slip"}));
}

struct EnvLike {
  Kwargs kwargs;
  void visit(ConfigVisitor& v) { v.field("kwargs", kwargs, "env kwargs"); }
};

TEST(KwargsTest, ReadFromAConfigWithLocationsAndWrittenBack) {
  auto document = ConfigDocument::parse_string(
      "kwargs:\n  size: 5\n  goal: [3, 4]\n  mode: left\n", "grid.yaml");
  document.set("kwargs.slip=0.1");
  EnvLike env;
  document.read_into(env);
  EXPECT_EQ(env.kwargs.keys(), (std::vector<std::string>{"goal", "mode", "size", "slip"}));
  EXPECT_EQ(error_of([&] { env.kwargs.get<bool>("size"); }),
            "grid.yaml:2:9: kwargs.size: expected true or false, got '5'");
  EXPECT_EQ(error_of([&] { env.kwargs.get<int>("slip"); }),
            "--set kwargs.slip=0.1: kwargs.slip: expected an integer, got '0.1'");

  const std::string yaml = to_yaml([&](ConfigVisitor& v) { env.visit(v); });
  EnvLike again;
  ConfigDocument::parse_string(yaml, "written.yaml").read_into(again);
  EXPECT_EQ(again.kwargs.get<std::vector<std::int64_t>>("goal"), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(again.kwargs.get<double>("slip"), 0.1);
  EXPECT_EQ(again.kwargs.get<std::string>("mode"), "left");
}

TEST(KwargsTest, ConfigRefusesNestedValues) {
  const auto document =
      ConfigDocument::parse_string("kwargs:\n  size: {w: 1}\n", "grid.yaml");
  EnvLike env;
  try {
    document.read_into(env);
    FAIL() << "a mapping as a kwarg value was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "grid.yaml:2:9: kwargs.size: expected a scalar or a sequence of scalars, got a "
              "mapping");
  }
}

}  // namespace
}  // namespace mnrl::core
