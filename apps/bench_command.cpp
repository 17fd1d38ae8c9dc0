#include <cstdio>
#include <memory>
#include <exception>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/config_path.h"
#include "apps/env_arguments.h"
#include "apps/env_throughput.h"
#include "apps/learner_throughput.h"
#include "core/config.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/training.h"

namespace mnrl::apps {
namespace {

class NoMetrics final : public experiments::MetricsSink {
 public:
  void scalar(std::int64_t, const std::string&, double) override {}
};

// The learner's update rate alone and, where its products go through the hand-written passes,
// their rate against this core's sgemm: how near the updates are to their floor.
void report_learner(const experiments::ExperimentOptions& options, double seconds) {
  const std::string what = "learner alone, " + options.algo + " updates";
  const LearnerThroughput measured = learner_throughput(options, seconds);

  std::printf("%-44s %14.0f steps/s  (%.1f updates/s of %lld env steps each: training speed "
              "with free envs)\n",
              what.c_str(), measured.env_steps_per_second(),
              static_cast<double>(measured.updates) / measured.seconds,
              static_cast<long long>(measured.env_steps / measured.updates));
  if (measured.multiply_adds == 0) {
    std::printf("%-44s %14s  (no products through the hand-written passes: autograd or a GPU)\n",
                "learner's products", "-");
    return;
  }
  // The floor: the updates' products per env step at the sgemm rate, nothing else costing.
  const double sgemm = sgemm_gflops();
  const double per_step = static_cast<double>(measured.multiply_adds) /
                          static_cast<double>(measured.env_steps);
  std::printf("%-44s %14.1f GFLOP/s  (%.0f%% of this core's sgemm, %.1f GFLOP/s on 256x256x256; "
              "%.2fM multiply-adds per env step, a floor of %.0f steps/s)\n",
              "learner's products", measured.gflops(), 100.0 * measured.gflops() / sgemm, sgemm,
              1e-6 * per_step, sgemm * 1e9 / (2.0 * per_step));
}

}  // namespace

int bench_command(const BenchArguments& args) {
  experiments::ExperimentOptions options;
  try {
    options = experiments::load_experiment(args.config, args.overrides);
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl bench: config error: %s\n", e.what());
    return kExitUsage;
  }
  try {
    const std::string& id = options.env.id;
    std::printf("%-44s %14.0f steps/s\n", (id + ", single env").c_str(),
                single_env_steps_per_second(options.env, args.env_steps));
    std::printf("%-44s %14.0f steps/s\n",
                (id + ", vector env of " + std::to_string(options.env.num_envs)).c_str(),
                vector_env_steps_per_second(options.env, args.env_steps));
    if (args.skip_training) return kExitOk;
    report_learner(options, args.learner_seconds);
    std::fflush(stdout);

    NoMetrics metrics;
    const auto result = experiments::train(options, metrics);
    std::printf("%-44s %14.0f steps/s  (%lld steps in %.2f s, final eval %.1f ± %.1f)\n",
                (options.algo + " end to end, " + args.config).c_str(),
                static_cast<double>(result.steps) / result.seconds,
                static_cast<long long>(result.steps), result.seconds,
                result.final_evaluation.mean_return, result.final_evaluation.std_return);
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mnrl bench: error: %s\n", e.what());
    return kExitFailure;
  }
}

namespace {

// `mnrl bench env ID ...`'s options, into `args`.
CLI::App* add_bench_env_subcommand(CLI::App& bench, BenchEnvArguments& args) {
  CLI::App* bench_env = bench.add_subcommand(
      "env", "Measure one environment's steps/s: single, and vector env serial and threaded");
  bench_env->add_option("id", args.id, "Registered environment id, e.g. CartPole-v1")
      ->required();
  bench_env->add_option("--num-envs", args.num_envs, "Envs in the vector env")
      ->capture_default_str()
      ->check(in_range(1));
  bench_env
      ->add_option("--threads", args.threads, "Threads of the threaded vector env (1: serial only)")
      ->capture_default_str()
      ->check(in_range(1));
  bench_env->add_option("--steps", args.steps, "Env steps per measurement")
      ->capture_default_str()
      ->check(in_range(1));
  bench_env
      ->add_option("--kwarg", args.kwargs,
                   "Argument of the env's constructor, e.g. --kwarg size=5 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  add_plugin_option(*bench_env, args.plugins);
  return bench_env;
}

}  // namespace

std::vector<Command> add_bench_commands(CLI::App& mnrl) {
  auto args = std::make_shared<BenchArguments>();
  CLI::App* bench = mnrl.add_subcommand(
      "bench",
      "Measure env steps/s (single and vector), the learner's update rate alone (and its products "
      "against this core's sgemm) and end-to-end training steps/s");
  bench->add_option("config", args->config, "Experiment YAML file, or a bundled config's name")
      ->capture_default_str();
  bench->add_option("--set", args->overrides, "Override a config key (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  bench->add_option("--env-steps", args->env_steps, "Env steps per env measurement")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  bench->add_option("--learner-seconds", args->learner_seconds,
                    "Seconds of timed updates in the learner measurement")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  bench->add_flag("--env-only", args->skip_training,
                  "Skip the learner measurement and the end-to-end training run");
  add_plugin_option(*bench, args->plugins);
  auto env_args = std::make_shared<BenchEnvArguments>();
  CLI::App* bench_env = add_bench_env_subcommand(*bench, *env_args);

  return {{bench,
           [args] {
             if (!load_plugins(args->plugins, "bench")) return kExitUsage;
             args->config = find_config(args->config);
             if (const std::string unknown = unknown_config_message(args->config);
                 !unknown.empty()) {
               std::fprintf(stderr, "mnrl bench: config error: %s\n", unknown.c_str());
               return kExitUsage;
             }
             return bench_command(*args);
           }},
          // "bench --plugin a env --plugin b" loads both.
          {bench_env, [args, env_args] {
             if (!load_plugins(args->plugins, "bench env") ||
                 !load_plugins(env_args->plugins, "bench env")) {
               return kExitUsage;
             }
             return bench_env_command(*env_args);
           }}};
}

}  // namespace mnrl::apps
