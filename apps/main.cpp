// The mnrl program: parses the command line and hands over to one command.
#include <CLI/CLI.hpp>

#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <list>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/config_path.h"
#include "apps/env_arguments.h"
#include "core/build_info.h"
#include "core/openblas.h"
#include "core/text.h"
#include "envs/plugin_call.h"

namespace {

const std::vector<std::string> kCommands{"train", "eval", "plot", "envs", "check-env", "bench"};

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

// "must be in [min, max]" for an integer option (CLI::PositiveNumber words its range in
// doubles, and CLI11 saturates a number too large for the type instead of refusing it).
// Values that are not integers pass here and fail CLI11's conversion instead.
CLI::Validator in_range(std::int64_t minimum,
                        std::int64_t maximum = std::numeric_limits<std::int64_t>::max()) {
  const bool bounded = maximum != std::numeric_limits<std::int64_t>::max();
  return CLI::Validator(
      [minimum, maximum, bounded](std::string& value) {
        std::int64_t number = 0;
        const auto [end, error] =
            std::from_chars(value.data(), value.data() + value.size(), number);
        const bool whole = end == value.data() + value.size();
        const bool too_large = whole && (error == std::errc::result_out_of_range ||
                                         (error == std::errc() && number > maximum));
        if (bounded && (too_large || (whole && error == std::errc() && number < minimum))) {
          return "must be in [" + std::to_string(minimum) + ", " + std::to_string(maximum) +
                 "], got " + value;
        }
        if (too_large) return "must be at most " + std::to_string(maximum) + ", got " + value;
        if (whole && error == std::errc() && number < minimum) {
          return "must be at least " + std::to_string(minimum) + ", got " + value;
        }
        return std::string();
      },
      bounded ? "INT in [" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]"
              : "INT>=" + std::to_string(minimum));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mnrl::apps;
  // Past a file size limit (ulimit -f) a write then fails with EFBIG, which the writer reports
  // by name, instead of the process dying silently of SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);

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
                                        mnrl::core::source_revision() + ")\nBLAS: " +
                                        mnrl::core::blas_description());
  app.require_subcommand(1, 1);
  app.footer(
      "Exit codes: 0 success; 1 failure while running; 2 bad command line, config, run "
      "directory, checkpoint or plugin (nothing run or written); 130/143 stopped by Ctrl-C / "
      "SIGTERM (checkpoint written); 128+N ended by signal N.\n"
      "Docs: README.md, docs/ (reliability.md: what mnrl promises when things go wrong).");

  TrainArguments train;
  train.command_line = command_line(argc, argv);
  auto* train_app = app.add_subcommand("train", "Train an agent from a YAML experiment file");
  auto* config_option = train_app->add_option(
      "config", train.config,
      "Experiment YAML file, or the name of a bundled one (cartpole_ppo; see share/mnrl/configs)");
  auto* resume_option = train_app->add_option(
      "--resume", train.resume,
      "Continue the run in RUN_DIR from its newest usable checkpoint, with its config.yaml");
  resume_option->type_name("RUN_DIR")->excludes(config_option);
  train_app
      ->add_flag("--allow-changes", train.allow_changes,
                 "With --resume: train on although config.yaml changed keys that alter the run "
                 "since the checkpoint (they are recorded in run_info.yaml)")
      ->needs(resume_option);
  resume_option->excludes(
      train_app->add_option("--set", train.overrides,
                            "Override a config key, e.g. --set ppo.gamma=0.99 (repeatable)")
          ->type_name("KEY=VALUE")
          ->allow_extra_args(false));
  resume_option->excludes(
      train_app->add_option("--seed", train.seed, "Experiment seed (same as --set seed=N)"));
  resume_option->excludes(train_app->add_option(
      "--run-dir", train.run_dir, "Directory for this run (default: runs/<name>-<timestamp>)"));

  train_app
      ->add_option("--progress", train.progress,
                   "Progress display: live (one line redrawn), lines (one every log_interval "
                   "steps), none, or auto (live on a terminal, else lines; lines in a job of several "
                   "ranks)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "live", "lines", "none"}));

  // --plugin on every command that makes envs; loaded before the command runs. One list per
  // command ("bench --plugin a env --plugin b" loads both); std::list keeps them in place.
  std::list<std::vector<std::string>> plugin_lists;
  const auto add_plugin_option = [&plugin_lists](CLI::App* command) {
    command->add_option("--plugin", plugin_lists.emplace_back(),
                        "Env plugin (.so) to load first, a path taken as given (repeatable)")
        ->type_name("PATH")
        ->allow_extra_args(false);
  };
  add_plugin_option(train_app);

  EvalArguments eval;
  auto* eval_app = app.add_subcommand(
      "eval", "Evaluate a trained agent: a run directory's newest checkpoint, or a checkpoint");
  eval_app->add_option("target", eval.target, "RUN_DIR or RUN_DIR/checkpoints/step_N")
      ->required();
  eval_app->add_option("--episodes", eval.episodes, "Episodes to play (one env each)")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  eval_app->add_option("--seed", eval.seed, "Seed of the evaluation envs (and sampling)")
      ->capture_default_str()
      ->check(in_range(0));
  eval_app->add_flag("--stochastic", eval.stochastic,
                     "Sample actions from the policy instead of taking the most likely");
  add_plugin_option(eval_app);

  PlotArguments plot;
  auto* plot_app = app.add_subcommand("plot", "Draw learning curves of runs into a PNG (gnuplot)");
  plot_app->add_option("run_dirs", plot.run_dirs, "Run directories (one line each)")->required();
  plot_app->add_option("-o,--output", plot.output, "PNG file to write")->capture_default_str();
  plot_app->add_option("--metric", plot.metric, "Metric name in metrics.csv")
      ->capture_default_str();
  plot_app->add_option("--width", plot.width, "Image width in pixels")
      ->capture_default_str()
      ->check(in_range(100, 10000));
  plot_app->add_option("--height", plot.height, "Image height in pixels")
      ->capture_default_str()
      ->check(in_range(100, 10000));
  plot_app->add_option("--smoothing", plot.smoothing,
                       "Moving-average window in points (0: about a twentieth of the points)")
      ->capture_default_str()
      ->check(in_range(0));

  auto* envs_app = app.add_subcommand("envs", "List the registered environments and their spaces");
  add_plugin_option(envs_app);

  CheckEnvArguments check_env;
  auto* check_env_app = app.add_subcommand(
      "check-env", "Check that an environment keeps the Env contract (spaces, seeding, limits)");
  check_env_app->add_option("id", check_env.id, "Registered environment id, e.g. CartPole-v1")
      ->required();
  check_env_app->add_option("--steps", check_env.steps, "Random-action steps per rollout")
      ->capture_default_str()
      ->check(in_range(1));
  // at_least(0): CLI11 would otherwise wrap "-1" around to 2^64 - 1.
  check_env_app->add_option("--seed", check_env.seed, "Seed of the env resets and the actions")
      ->capture_default_str()
      ->check(in_range(0));
  check_env_app->add_option("--kwarg", check_env.kwargs,
                            "Argument of the env's constructor, e.g. --kwarg size=5 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  add_plugin_option(check_env_app);

  BenchArguments bench;
  auto* bench_app = app.add_subcommand(
      "bench", "Measure env steps/s (single and vector) and end-to-end training steps/s");
  bench_app->add_option("config", bench.config, "Experiment YAML file, or a bundled config's name")
      ->capture_default_str();
  bench_app->add_option("--set", bench.overrides, "Override a config key (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  bench_app->add_option("--env-steps", bench.env_steps, "Env steps per env measurement")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  bench_app->add_flag("--env-only", bench.skip_training, "Skip the end-to-end training run");
  add_plugin_option(bench_app);

  BenchEnvArguments bench_env;
  auto* bench_env_app = bench_app->add_subcommand(
      "env", "Measure one environment's steps/s: single, and vector env serial and threaded");
  bench_env_app->add_option("id", bench_env.id, "Registered environment id, e.g. CartPole-v1")
      ->required();
  bench_env_app->add_option("--num-envs", bench_env.num_envs, "Envs in the vector env")
      ->capture_default_str()
      ->check(in_range(1));
  bench_env_app->add_option("--threads", bench_env.threads,
                            "Threads of the threaded vector env (1: serial only)")
      ->capture_default_str()
      ->check(in_range(1));
  bench_env_app->add_option("--steps", bench_env.steps, "Env steps per measurement")
      ->capture_default_str()
      ->check(in_range(1));
  bench_env_app->add_option("--kwarg", bench_env.kwargs,
                            "Argument of the env's constructor, e.g. --kwarg size=5 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  add_plugin_option(bench_env_app);

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

  const std::string command = bench_env_app->parsed() ? std::string("bench env")
                                                      : app.get_subcommands().front()->get_name();
  // Plugin code that crashes, exits or hangs is reported by name (envs/plugin_call.h).
  mnrl::envs::install_plugin_call_reporting();
  for (const auto& plugins : plugin_lists) {
    if (!load_plugins(plugins, command)) return kExitUsage;
  }
  train.config = find_config(train.config);
  bench.config = find_config(bench.config);
  if (train_app->parsed()) return train_command(train);
  if (eval_app->parsed()) return eval_command(eval);
  if (plot_app->parsed()) return plot_command(plot);
  if (envs_app->parsed()) return envs_command();
  if (check_env_app->parsed()) return check_env_command(check_env);
  if (bench_env_app->parsed()) return bench_env_command(bench_env);
  if (bench_app->parsed()) return bench_command(bench);
  return kExitUsage;
}
