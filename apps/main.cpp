// The mnrl program: parses the command line and hands over to one command.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "core/build_info.h"
#include "core/text.h"

namespace {

const std::vector<std::string> kCommands{"train", "envs", "bench"};

std::string shell_quoted(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + shell_quoted(argv[i]);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mnrl::apps;

  // A mistyped command gets a suggestion instead of CLI11's generic "not expected".
  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    bool known = false;
    for (const auto& c : kCommands) known = known || c == command;
    if (!known) {
      std::fprintf(stderr, "mnrl: unknown command '%s'%s\nCommands: %s. Run 'mnrl --help'.\n",
                   command.c_str(), mnrl::core::did_you_mean(command, kCommands).c_str(),
                   mnrl::core::join(kCommands).c_str());
      return kExitUsage;
    }
  }

  CLI::App app{"mnrl: deep reinforcement learning in C++ on LibTorch", "mnrl"};
  app.set_version_flag("--version", std::string("mnrl ") + mnrl::core::version() + " (" +
                                        mnrl::core::source_revision() + ")");
  app.require_subcommand(1, 1);

  TrainArguments train;
  train.command_line = command_line(argc, argv);
  auto* train_app = app.add_subcommand("train", "Train an agent from a YAML experiment file");
  train_app->add_option("config", train.config, "Experiment YAML file")->required();
  train_app->add_option("--set", train.overrides,
                        "Override a config key, e.g. --set ppo.gamma=0.99 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  train_app->add_option("--seed", train.seed, "Experiment seed (same as --set seed=N)");
  train_app->add_option("--run-dir", train.run_dir,
                        "Directory for this run (default: runs/<name>-<timestamp>)");

  auto* envs_app = app.add_subcommand("envs", "List the registered environments and their spaces");

  BenchArguments bench;
  auto* bench_app = app.add_subcommand(
      "bench", "Measure env steps/s (single and vector) and end-to-end training steps/s");
  bench_app->add_option("config", bench.config, "Experiment YAML file")
      ->capture_default_str();
  bench_app->add_option("--set", bench.overrides, "Override a config key (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  bench_app->add_option("--env-steps", bench.env_steps, "Env steps per env measurement")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  bench_app->add_flag("--env-only", bench.skip_training, "Skip the end-to-end training run");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const auto* sub = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
    std::fprintf(stderr, "mnrl%s: %s\nRun 'mnrl%s --help' for usage.\n",
                 sub ? (" " + sub->get_name()).c_str() : "", e.what(),
                 sub ? (" " + sub->get_name()).c_str() : "");
    return kExitUsage;
  }

  if (train_app->parsed()) return train_command(train);
  if (envs_app->parsed()) return envs_command();
  if (bench_app->parsed()) return bench_command(bench);
  return kExitUsage;
}
