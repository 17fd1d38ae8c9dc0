#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "apps/env_throughput.h"
#include "core/config.h"
#include "experiments/experiment_options.h"
#include "experiments/training.h"

namespace mnrl::apps {
namespace {

class NoMetrics final : public experiments::MetricsSink {
 public:
  void scalar(std::int64_t, const std::string&, double) override {}
};

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

}  // namespace mnrl::apps
