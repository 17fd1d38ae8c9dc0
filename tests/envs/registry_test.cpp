#include "envs/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "envs/time_limit.h"
#include "scripted_env.h"
#include "tests/error_of.h"

namespace mnrl::envs {
namespace {

using mnrl::test_util::error_of;

TEST(RegistryTest, CartPoleIsRegisteredGlobally) {
  EXPECT_TRUE(Registry::global().contains("CartPole-v1"));
  EXPECT_FALSE(Registry::global().contains("cartpole"));
  const auto env = Registry::global().make("CartPole-v1");
  EXPECT_EQ(env->spec().id, "CartPole-v1");
}

TEST(RegistryTest, IdsAreSorted) {
  Registry registry;
  for (const char* id : {"b-v0", "c-v0", "a-v0"}) {
    registry.add(id, [id] { return std::make_unique<test_envs::ScriptedEnv>(0, id); });
  }
  EXPECT_EQ(registry.ids(), (std::vector<std::string>{"a-v0", "b-v0", "c-v0"}));
  const auto global_ids = Registry::global().ids();
  EXPECT_TRUE(std::is_sorted(global_ids.begin(), global_ids.end()));
}

TEST(RegistryTest, UnknownIdSuggestsTheClosestAndListsRegistered) {
  const std::string message =
      error_of<std::invalid_argument>([] { Registry::global().make("CartPol-v1"); });
  EXPECT_NE(message.find("unknown environment 'CartPol-v1' (did you mean 'CartPole-v1'?)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("registered: "), std::string::npos) << message;
  EXPECT_NE(message.find("CartPole-v1", message.find("registered: ")), std::string::npos)
      << message;

  const std::string far =
      error_of<std::invalid_argument>([] { Registry::global().make("Humanoid-v4"); });
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
}

TEST(RegistryTest, DuplicateIdThrows) {
  Registry registry;
  registry.add("Scripted-v0", [] { return std::make_unique<test_envs::ScriptedEnv>(); });
  const std::string message = error_of<std::invalid_argument>([&] {
    registry.add("Scripted-v0", [] { return std::make_unique<test_envs::ScriptedEnv>(); });
  });
  EXPECT_NE(message.find("'Scripted-v0' is already registered"), std::string::npos) << message;
  EXPECT_THROW(Registry::global().add("CartPole-v1", [] { return nullptr; }),
               std::invalid_argument);
}

TEST(RegistryTest, MakeValidatesTheSpec) {
  class BadEnv final : public Env {
   public:
    BadEnv() {
      spec_.id = "Bad-v0";
      spec_.observation_space = Box{{2}, {0.0f}, {1.0f, 1.0f}};  // one low bound missing
      spec_.action_space = Discrete{2};
    }
    const EnvSpec& spec() const override { return spec_; }
    void reset(core::TypedPtr, std::optional<std::uint64_t>) override {}
    StepResult step(const ActionRef&, core::TypedPtr) override { return {}; }

   private:
    EnvSpec spec_;
  };
  Registry registry;
  registry.add("Bad-v0", [] { return std::make_unique<BadEnv>(); });
  const std::string message = error_of<std::invalid_argument>([&] { registry.make("Bad-v0"); });
  EXPECT_NE(message.find("'Bad-v0'"), std::string::npos) << message;
  EXPECT_NE(message.find("observation space"), std::string::npos) << message;
}

TEST(RegistryTest, MakeWrapsInTimeLimitOnlyWithALimit) {
  Registry registry;
  registry.add("Scripted-v0", [] { return std::make_unique<test_envs::ScriptedEnv>(); });
  EXPECT_EQ(dynamic_cast<TimeLimit*>(registry.make("Scripted-v0").get()), nullptr);
  const auto limited = registry.make("Scripted-v0", {}, 4);
  ASSERT_NE(dynamic_cast<TimeLimit*>(limited.get()), nullptr);
  EXPECT_EQ(limited->spec().max_episode_steps, 4);
  EXPECT_THROW(registry.make("Scripted-v0", {}, -1), std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::envs
