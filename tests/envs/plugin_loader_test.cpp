// Loads the real test plugins of tests/plugins (shared libraries built with the tests).
#include "envs/plugin_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/version.h"
#include "envs/env_checker.h"
#include "envs/env_options.h"
#include "envs/plugin_env_guard.h"
#include "envs/registry.h"
#include "tests/error_of.h"
#include "tests/plugins/test_plugins.h"

namespace mnrl::envs {
namespace {
namespace fs = std::filesystem;

using test_plugins::path;

// The message of the PluginError that loading `path` throws ("" if it loads).
std::string load_error(const std::string& file) {
  try {
    load_plugin(file);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

using mnrl::test_util::error_of;

class PluginLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mnrl_plugin_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(PluginLoaderTest, LoadsAPluginAndRegistersItsEnvsOnce) {
  const LoadedPlugin loaded = load_plugin(path("walk"));
  EXPECT_EQ(loaded.env_ids,
            (std::vector<std::string>{"Hostile-v0", "OutOfSpace-v0", "Throwing-v0", "Walk-v0"}));
  EXPECT_EQ(Registry::global().origin("Walk-v0"), path("walk"));
  EXPECT_EQ(Registry::global().origin("CartPole-v1"), "");
  const auto ids = Registry::global().ids();
  EXPECT_EQ(load_plugin(path("walk")).env_ids, loaded.env_ids);  // a second load is a no-op
  EXPECT_EQ(Registry::global().ids(), ids);
}

// Each plugin is loaded from its own private copy: a second one in the same process is itself,
// not taken for the first (their copies once had the same /proc/self/fd name).
TEST_F(PluginLoaderTest, SeveralPluginsLoadInOneProcess) {
  load_plugin(path("walk"));
  const LoadedPlugin data_file = load_plugin(path("data_file"));
  const LoadedPlugin broken_state = load_plugin(path("broken_state"));
  EXPECT_EQ(data_file.env_ids, std::vector<std::string>{"FileWalk-v0"});
  EXPECT_EQ(broken_state.env_ids, std::vector<std::string>{"ForgetfulWalk-v0"});
  EXPECT_EQ(Registry::global().origin("Walk-v0"), path("walk"));
  EXPECT_EQ(Registry::global().origin("FileWalk-v0"), path("data_file"));
  EXPECT_EQ(Registry::global().origin("ForgetfulWalk-v0"), path("broken_state"));
}

TEST_F(PluginLoaderTest, PluginEnvTakesKwargs) {
  load_plugin(path("walk"));
  core::Kwargs kwargs;
  kwargs.set("length", 3);
  const auto env = Registry::global().make("Walk-v0", kwargs);
  float observation = -1;
  env->reset(&observation, 0);
  EXPECT_EQ(observation, 0.0f);
  StepResult result;
  for (int i = 0; i < 3; ++i) result = env->step(ActionRef{1}, &observation);
  EXPECT_EQ(observation, 3.0f);
  EXPECT_TRUE(result.terminated);
  EXPECT_EQ(result.reward, 1.0);
}

TEST_F(PluginLoaderTest, BadKwargsNameTheKeyAndTheEnv) {
  load_plugin(path("walk"));
  core::Kwargs wrong_type("env.kwargs", "x.yaml:4:3");
  wrong_type.set("length", "three", "x.yaml:4:11");
  EXPECT_EQ(error_of<core::KwargError>([&] { Registry::global().make("Walk-v0", wrong_type); }),
            "x.yaml:4:11: env.kwargs.length: expected an integer, got 'three'");

  core::Kwargs misspelt("env.kwargs", "x.yaml:4:3");
  misspelt.set("lenght", 3, "x.yaml:4:11");
  EXPECT_EQ(error_of<core::KwargError>([&] { Registry::global().make("Walk-v0", misspelt); }),
            "x.yaml:4:11: env.kwargs.lenght: environment 'Walk-v0' takes no argument 'lenght' "
            "(did you mean 'length'?); it reads: length, reward, start");

  core::Kwargs out_of_range;
  out_of_range.set("length", 0);
  EXPECT_EQ(error_of<core::KwargError>([&] { Registry::global().make("Walk-v0", out_of_range); }),
            "kwargs.length: must be at least 1");

  core::Kwargs for_cartpole;
  for_cartpole.set("length", 3);
  EXPECT_EQ(
      error_of<core::KwargError>([&] { Registry::global().make("CartPole-v1", for_cartpole); }),
      "kwargs.length: environment 'CartPole-v1' takes no argument 'length'; it takes no "
      "kwargs");
}

TEST_F(PluginLoaderTest, MissingFile) {
  const std::string path = (dir_ / "libnothing.so").string();
  EXPECT_EQ(load_error(path), "cannot load plugin '" + path + "': no such file");
}

TEST_F(PluginLoaderTest, ANameWithoutSlashIsNotSearchedInTheLibraryPath) {
  // dlopen("libm.so.6") would find the system's libm; a plugin path means this directory.
  ASSERT_FALSE(fs::exists("libm.so.6"));
  EXPECT_EQ(load_error("libm.so.6"), "cannot load plugin 'libm.so.6': no such file");
}

TEST_F(PluginLoaderTest, NotASharedLibrary) {
  const std::string text = (dir_ / "notes.so").string();
  std::ofstream(text) << "these are not machine instructions\n";
  EXPECT_EQ(load_error(text),
            "cannot load plugin '" + text + "': it is not a shared library (no ELF header)");
  EXPECT_NE(load_error(dir_.string()).find("it is a directory"), std::string::npos);
  EXPECT_NE(load_error(MNRL_TEST_OBJECT_FILE).find("it is an object file (.o)"), std::string::npos);
}

TEST_F(PluginLoaderTest, WrongArchitecture) {
  const fs::path foreign = dir_ / "libwalk_foreign.so";
  test_plugins::foreign_copy(foreign);
  const std::string message = load_error(foreign.string());
  EXPECT_EQ(message.rfind("cannot load plugin '" + foreign.string() + "': it was built for " +
                              test_plugins::kForeignMachineName + "; this program runs on ",
                          0),
            0u)
      << message;
}

TEST_F(PluginLoaderTest, NoEntryPoint) {
  EXPECT_EQ(load_error(path("no_entry")),
            "cannot load plugin '" + path("no_entry") +
                "': it is not an mnrl env plugin: it exports no function 'mnrl_env_plugin_entry' "
                "(declare its envs in an MNRL_PLUGIN block from envs/plugin.h; "
                "MNRL_REGISTER_ENV is for envs built into a program)");
}

TEST_F(PluginLoaderTest, SdkVersionMismatchSaysBothVersions) {
  EXPECT_EQ(load_error(path("future_sdk")),
            "cannot load plugin '" + path("future_sdk") +
                "': it was built against mnrl env SDK 3.0, but this mnrl (" MNRL_VERSION_STRING
                ") provides SDK 2.0: rebuild the plugin against this mnrl");
}

TEST_F(PluginLoaderTest, UnresolvedSymbolIsNamedReadably) {
  const std::string message = load_error(path("unresolved_symbol"));
  EXPECT_EQ(message.rfind("cannot load plugin '" + path("unresolved_symbol") +
                              "': it needs the symbol 'mnrl_test::helper_that_nobody_defines(int)'",
                          0),
            0u)
      << message;
}

TEST_F(PluginLoaderTest, PluginOfAnotherMnrlIsToldToRebuild) {
  EXPECT_EQ(load_error(path("newer_mnrl")),
            "cannot load plugin '" + path("newer_mnrl") +
                "': it needs the symbol "
                "'mnrl::envs::function_from_a_newer_mnrl(mnrl::envs::Registry&)', which this mnrl "
                "(" MNRL_VERSION_STRING
                ") does not define: it was built against another version "
                "of mnrl or with another _GLIBCXX_USE_CXX11_ABI; rebuild it against this mnrl");
}

TEST_F(PluginLoaderTest, AnIdThatIsTakenRefusesThePluginAsAWhole) {
  EXPECT_EQ(load_error(path("duplicate_id")),
            "cannot load plugin '" + path("duplicate_id") +
                "': environment 'CartPole-v1' is already registered (built in)");
  EXPECT_FALSE(Registry::global().contains("FreshCartPole-v0"));
}

TEST_F(PluginLoaderTest, RegisteringWhileLoadingIsRefused) {
  EXPECT_EQ(load_error(path("static_registration")),
            "cannot load plugin '" + path("static_registration") +
                "': it registers 'EarlyCartPole-v0' while it loads (MNRL_REGISTER_ENV is for envs "
                "built into a program): declare a plugin's envs in an MNRL_PLUGIN block, so that "
                "its SDK version is checked first");
  EXPECT_FALSE(Registry::global().contains("EarlyCartPole-v0"));
}

TEST_F(PluginLoaderTest, GuardNamesThePluginWhenItsEnvThrows) {
  load_plugin(path("walk"));
  EnvOptions options;
  options.id = "Throwing-v0";
  options.kwargs.set("after", 2);
  const auto env = make_env(options);
  float observation = 0;
  env->reset(&observation, 1);
  env->step(ActionRef{0}, &observation);
  EXPECT_EQ(error_of<EnvContractError>([&] { env->step(ActionRef{0}, &observation); }),
            "environment 'Throwing-v0' from plugin '" + path("walk") +
                "': step() threw std::runtime_error: sensor unplugged (episode 1, step 2)");

  options.kwargs = core::Kwargs();
  options.kwargs.set("in", "reset");
  const auto resetting = make_env(options);
  EXPECT_NE(error_of<EnvContractError>([&] {
              resetting->reset(&observation, 1);
            }).find("reset() threw std::runtime_error: sensor unplugged (episode 1, step 0)"),
            std::string::npos);
}

TEST_F(PluginLoaderTest, GuardCatchesObservationsOutsideTheDeclaredSpace) {
  load_plugin(path("walk"));
  EnvOptions options;
  options.id = "OutOfSpace-v0";
  const auto env = make_env(options);
  float observation = 0;
  env->reset(&observation, 1);
  env->step(ActionRef{0}, &observation);
  env->step(ActionRef{0}, &observation);
  EXPECT_EQ(error_of<EnvContractError>([&] { env->step(ActionRef{0}, &observation); }),
            "environment 'OutOfSpace-v0' from plugin '" + path("walk") +
                "': step() broke the declared observation space Box(1) low=0 high=1: "
                "observation[0] = 7.5 is outside [0, 1] (episode 1, step 3)");
}

TEST_F(PluginLoaderTest, EnvCheckerChecksAPluginEnv) {
  load_plugin(path("walk"));
  const auto passed = [](const EnvCheckReport& report) {
    for (const auto& r : report.results) {
      if (r.status == EnvCheckStatus::kFailed) return false;
    }
    return true;
  };
  EXPECT_TRUE(passed(check_registered_env("Walk-v0")));
  EXPECT_FALSE(passed(check_registered_env("OutOfSpace-v0")));
}

}  // namespace
}  // namespace mnrl::envs
