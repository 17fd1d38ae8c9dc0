// Env plugins through the `mnrl` program: every way a plugin can be bad gives a message that
// names the plugin and the cause, and a non-zero exit.
#include <gtest/gtest.h>

#include <string>

#include "cli_test_fixture.h"
#include "tests/plugins/test_plugins.h"

namespace {
using namespace mnrl_cli_test;
using mnrl::test_plugins::path;

// Exit 2 and "mnrl check-env: cannot load plugin '<plugin>': <cause>".
void expect_refused(const Outcome& r, const std::string& plugin, const std::string& cause) {
  expect_outcome(r, 2, "mnrl check-env: cannot load plugin '" + plugin + "': " + cause);
}

TEST_F(CliTest, CheckEnvRunsTheCheckerOnAPluginEnv) {
  expect_outcome(run("check-env --plugin " + path("walk") + " Walk-v0 --kwarg length=4"), 0,
                 "Walk-v0: 11 of 11 checks passed.");
  expect_outcome(run("check-env --plugin " + path("walk") + " OutOfSpace-v0"), 1,
                 "FAIL  observations inside the space");
}

// A state that does not round-trip is found by check-env, not at a run's resume: the first call
// that differs after loading it is named.
TEST_F(CliTest, CheckEnvRejectsAStateThatDoesNotReplay) {
  expect_outcome(run("check-env --plugin " + path("broken_state") + " ForgetfulWalk-v0"), 1,
                 "FAIL  a saved state replays: state saved at episode 1, step 3, loaded into ");
  expect_outcome(run("check-env --plugin " + path("broken_state") + " ForgetfulWalk-v0"), 1,
                 " differs: reward ");
}

TEST_F(CliTest, EnvsListsPluginEnvsWithTheirOrigin) {
  const auto r = run("envs --plugin " + path("walk"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Walk-v0\n  plugin:      " + path("walk") +
                          "\n  observation: Box(1) low=0 high=5"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("CartPole-v1"), std::string::npos) << r.output;
}

TEST_F(CliTest, BenchEnvMeasuresAPluginEnvWithKwargs) {
  expect_outcome(run("bench env Walk-v0 --plugin " + path("walk") +
                     " --kwarg length=3 --steps 1000 --threads 1"),
                 0, "Walk-v0: observations Box(1) low=0 high=3, actions Discrete(2)");
  expect_outcome(run("bench env Walk-v0 --plugin " + path("walk") + " --kwarg length=x"), 2,
                 "mnrl bench env: --kwarg length=x: kwargs.length: expected an integer, got 'x'");
}

TEST_F(CliTest, MalformedKwargArgumentsAreUsageErrors) {
  const std::string check = "check-env --plugin " + path("walk") + " Walk-v0 ";
  expect_outcome(run(check + "--kwarg length"), 2,
                 "mnrl check-env: --kwarg length: expected KEY=VALUE");
  expect_outcome(run(check + "--kwarg length=3 --kwarg length=4"), 2,
                 "mnrl check-env: --kwarg length=4: 'length' is given twice");
  expect_outcome(run(check + "--kwarg length=0"), 2, "kwargs.length: must be at least 1");
}

TEST_F(CliTest, MissingPlugin) {
  expect_refused(run("check-env --plugin libmissing.so Walk-v0"), "libmissing.so", "no such file");
}

TEST_F(CliTest, PluginThatIsNotASharedLibrary) {
  std::ofstream(dir_ / "readme.so") << "plain text\n";
  expect_refused(run("check-env --plugin readme.so Walk-v0"), "readme.so",
                 "it is not a shared library (no ELF header)");
}

TEST_F(CliTest, PluginForAnotherArchitecture) {
  mnrl::test_plugins::foreign_copy(dir_ / "libforeign.so");
  expect_refused(run("check-env --plugin ./libforeign.so Walk-v0"), "./libforeign.so",
                 std::string("it was built for ") + mnrl::test_plugins::kForeignMachineName +
                     "; this program runs on ");
}

TEST_F(CliTest, PluginWithoutEntryPoint) {
  expect_refused(run("check-env --plugin " + path("no_entry") + " Walk-v0"), path("no_entry"),
                 "it is not an mnrl env plugin: it exports no function 'mnrl_env_plugin_entry'");
}

TEST_F(CliTest, PluginOfAnotherSdkVersion) {
  expect_refused(run("check-env --plugin " + path("future_sdk") + " Walk-v0"), path("future_sdk"),
                 "it was built against mnrl env SDK 3.0, but this mnrl (");
}

TEST_F(CliTest, PluginWithUnresolvedSymbols) {
  expect_refused(run("check-env --plugin " + path("unresolved_symbol") + " Walk-v0"),
                 path("unresolved_symbol"),
                 "it needs the symbol 'mnrl_test::helper_that_nobody_defines(int)'");
}

TEST_F(CliTest, PluginThatRegistersATakenId) {
  expect_refused(run("check-env --plugin " + path("duplicate_id") + " CartPole-v1"),
                 path("duplicate_id"),
                 "environment 'CartPole-v1' is already registered (built in)");
}

TEST_F(CliTest, PluginInTheConfigIsReportedAtItsLineAndNothingIsWritten) {
  const auto config = write_config("algo: ppo\nenv:\n  plugin: libmissing.so\n  id: Walk-v0\n");
  expect_outcome(run("train x.yaml"), 2,
                 "x.yaml:3:11: env.plugin: cannot load plugin '" + (dir_ / "libmissing.so").string() +
                     "': no such file");
  EXPECT_TRUE(wrote_nothing_but(config));
}

TEST_F(CliTest, MistypedAndUnknownKwargsAreConfigErrors) {
  const std::string head = "env:\n  plugin: " + path("walk") + "\n  id: Walk-v0\n";
  const auto config = write_config(head + "  kwargs: {length: abc}\n");
  expect_outcome(run("train x.yaml"), 2,
                 "x.yaml:4:20: env.kwargs.length: expected an integer, got 'abc'");
  expect_outcome(run("train x.yaml --set 'env.kwargs={lenght: 3}'"), 2,
                 "env.kwargs.lenght: environment 'Walk-v0' takes no argument 'lenght' (did you "
                 "mean 'length'?)");
  EXPECT_TRUE(wrote_nothing_but(config));
}

// A plugin env that fails while training ends the run with exit 1 and a message naming it.
void expect_training_fails(const Outcome& r, const std::string& env, const std::string& fragment) {
  expect_outcome(r, 1,
                 "mnrl train: error: environment '" + env + "' from plugin '" + path("walk") +
                     "': " + fragment);
}

TEST_F(CliTest, PluginEnvThatThrowsEndsTrainingNamingIt) {
  const std::string head = "algo: ppo\nenv:\n  plugin: " + path("walk") + "\n  id: Throwing-v0\n";
  write_config(head + "  kwargs: {in: step, after: 40}\n");
  expect_training_fails(run("train x.yaml --run-dir run"), "Throwing-v0",
                        "step() threw std::runtime_error: sensor unplugged (episode 1, step 40)");
  write_config(head + "  kwargs: {in: reset, after: 1}\n");
  expect_training_fails(run("train x.yaml --run-dir run2"), "Throwing-v0",
                        "reset() threw std::runtime_error: sensor unplugged (episode 1, step 0)");
}

TEST_F(CliTest, PluginEnvOutsideItsSpaceEndsTrainingNamingIt) {
  write_config("algo: ppo\nenv:\n  plugin: " + path("walk") + "\n  id: OutOfSpace-v0\n");
  expect_training_fails(run("train x.yaml --run-dir run"), "OutOfSpace-v0",
                        "step() broke the declared observation space Box(1) low=0 high=1: "
                        "observation[0] = 7.5 is outside [0, 1] (episode 1, step 3)");
}

}  // namespace
